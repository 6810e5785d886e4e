// The texts the GPU benches embed: the project's own prose, so nothing is downloaded.
//   benchTexts(count, maxTokens, length) → count texts of about maxTokens − 28 … maxTokens tokens: consecutive prose
//   lines of README.md, DEVELOPERS.md and docs/*.md (no code, tables or headings: lines that start with a capital,
//   have 8+ words, no | { } and do not end in ; or (), joined while the text stays ≤ maxTokens; length(text) counts
//   a text's tokens with the model's special tokens). Run from the repository root.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function benchTexts(count, maxTokens, length) {
  const texts = [];
  let current = '';
  const SOURCES = ['README.md', 'DEVELOPERS.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).sort().map((f) => join('docs', f))];
  for (const raw of SOURCES.flatMap((f) => readFileSync(f, 'utf8').split('\n'))) {
    const line = raw.replace(/^[-*] /, '').trim();
    if (line.length < 40 || !/^[A-Z]/.test(line) || /[|{}]/.test(line) || /[;(]$/.test(line) || line.split(' ').length < 8) continue;
    const joined = current ? `${current} ${line}` : line;
    if (length(joined) <= maxTokens) { current = joined; continue; }
    if (current) texts.push(current);
    current = length(line) <= maxTokens ? line : '';
    if (texts.length === count) break;
  }
  if (current && texts.length < count) texts.push(current);
  if (texts.length < count) throw new Error(`benchTexts: README.md, DEVELOPERS.md and docs/ gave ${texts.length} texts, need ${count}`);
  return texts;
}
