// Every figure in README.md and docs/ comes from a committed results file, and a sentence that no longer
// says what its file says fails here (tests/js/docs/figures.mjs says where each figure comes from):
//   - the generated blocks (README's headline table, docs/performance.md's tables) are re-rendered from
//     bench/results/ by bench/lib/readme.mjs's own functions and must equal the committed text;
//   - each MEASURED sentence, written from its results file, must be in its doc;
//   - every number with a unit in the prose must sit in one of those, or be a setting / limit / target
//     (NOT_MEASURED), or be listed in UNSOURCED (reported below; the list may only shrink).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { FIGURE, measured, NOT_MEASURED, UNSOURCED } from './docs/figures.mjs';
import { headlineTable } from '../../bench/lib/headline.mjs';
import { performanceSection } from '../../bench/lib/readme.mjs';

const DOC_FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const readDocs = () => new Map(DOC_FILES.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

/** Offsets of [start, end) ranges of `text` that are code (fences, inline code) or a re-rendered generated block. */
function excluded(text) {
  const out = [];
  for (const m of text.matchAll(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\1\s*$/gm)) out.push([m.index, m.index + m[0].length]);
  // the generated blocks the first test re-renders (others, e.g. docs/q8.md's, are scanned like prose)
  for (const m of text.matchAll(/<!-- (headline|bench):start -->[\s\S]*?<!-- \1:end -->/g)) out.push([m.index, m.index + m[0].length]);
  for (const m of text.matchAll(/`[^`\n]*`/g)) out.push([m.index, m.index + m[0].length]);
  return out;
}

/** What is wrong with the figures of `docs` (a Map file → text): a list of messages. */
export function figureProblems(docs) {
  const problems = [];
  const covered = new Map(DOC_FILES.map((f) => [f, []]));
  const find = (file, text, what) => {
    const doc = docs.get(file);
    let at = doc.indexOf(text);
    if (at < 0) problems.push(`${file}: ${what} is not in the text: "${text}"`);
    for (; at >= 0; at = doc.indexOf(text, at + 1)) covered.get(file).push([at, at + text.length]);
  };
  for (const { file, from, text } of measured(ROOT)) find(file, text, `the sentence written from ${from}`);
  for (const { file, text } of NOT_MEASURED) find(file, text, 'the setting');
  const unsourced = new Set(UNSOURCED);
  const seenUnsourced = new Set();
  for (const [file, doc] of docs) {
    const skip = [...excluded(doc), ...covered.get(file)];
    for (const m of doc.matchAll(FIGURE)) {
      const at = m.index;
      if (skip.some(([a, b]) => at >= a && at + m[0].length <= b)) continue;
      const key = `${file}: ${m[0].replace(/\s+/g, ' ')}`;
      if (unsourced.has(key)) {
        seenUnsourced.add(key);
        continue;
      }
      const line = doc.slice(0, at).split('\n').length;
      problems.push(`${file}:${line}: "${m[0].replace(/\s+/g, ' ')}" has no results file (tests/js/docs/figures.mjs: write it from one, or say why it is not a measurement)`);
    }
  }
  for (const key of unsourced) if (!seenUnsourced.has(key)) problems.push(`UNSOURCED lists "${key}", which the docs no longer say: remove it`);
  return problems;
}

test("the README's headline table and docs/performance.md's tables are what bench/lib/readme.mjs renders from bench/results/latest.json", () => {
  const latest = JSON.parse(readFileSync(join(ROOT, 'bench/results/latest.json'), 'utf8'));
  const block = (file, name) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const m = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(text);
    assert.ok(m, `${file}: no ${name} block`);
    return m[1];
  };
  assert.equal(block('README.md', 'headline'), headlineTable(latest).join('\n'), 'README.md: run node bench/lib/readme.mjs');
  assert.equal(block('docs/performance.md', 'bench'), performanceSection(latest, join(ROOT, 'bench/results')), 'docs/performance.md: run node bench/lib/readme.mjs');
});

test('every figure of README.md and docs/ is written from a committed results file (or is a setting, or listed as unsourced)', (t) => {
  assert.deepEqual(figureProblems(readDocs()), []);
  for (const u of UNSOURCED) t.diagnostic(`unsourced: ${u}`);
});

test('a changed number fails: one figure changed in a sentence, or in its results file, is reported', () => {
  const docs = readDocs();
  const webgpu = docs.get('docs/webgpu.md');
  const sentence = measured(ROOT).find((m) => m.file === 'docs/webgpu.md').text;
  const changed = sentence.replace(/\d+\.\d/, (x) => (Number(x) + 0.1).toFixed(1));
  assert.notEqual(changed, sentence);
  docs.set('docs/webgpu.md', webgpu.replace(sentence, changed));
  const problems = figureProblems(docs);
  assert.ok(problems.some((p) => p.includes('docs/webgpu.md: the sentence written from')), problems.join('\n'));
  // a new figure in the prose, from nowhere
  const fresh = readDocs();
  fresh.set('README.md', fresh.get('README.md').replace('## Install', 'It loads in 12.5 ms.\n\n## Install'));
  assert.ok(figureProblems(fresh).some((p) => /README\.md:\d+: "12\.5 ms" has no results file/.test(p)));
});
