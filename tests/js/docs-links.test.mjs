// The links of README.md, DEVELOPERS.md and docs/*.md: every relative link names a file of the checkout
// and, with a #fragment, a heading (GitHub's anchor for it) or <a id> of that file. External links
// (http:, https:, mailto:) are not fetched. The README (npm's page renders it, where relative links lead
// nowhere) links the files the package ships absolutely, at https://unpkg.com/relpos@VERSION/: those are
// checked as the local file they name, VERSION must be package.json's, and pack.test.mjs checks that
// the tarball holds them. Also: every docs/ file is linked from the README, and each
// opens with a title and a sentence saying what it covers.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { anchors, links, slug } from './docs/markdown.mjs';

const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
const FILES = ['README.md', 'DEVELOPERS.md', ...DOCS];
const text = (file) => readFileSync(join(ROOT, file), 'utf8');
const { version } = JSON.parse(text('package.json'));
const DOCS_BASE = `https://unpkg.com/relpos@${version}/`;
/** An absolute link to a shipped file → the path relative to the package root, or null. */
const shipped = (target) => (target.startsWith(DOCS_BASE) ? target.slice(DOCS_BASE.length) : null);

test('slug() gives the anchors GitHub gives headings', () => {
  assert.equal(slug('Feature extraction — `\'feature-extraction\'`'), 'feature-extraction--feature-extraction');
  assert.equal(slug('Hosting the .wasm files'), 'hosting-the-wasm-files');
  assert.equal(slug('`lab.train`'), 'labtrain');
  assert.equal(slug('MPNet, ModernBERT, NomicBERT (`families`: lib/families.mjs)'), 'mpnet-modernbert-nomicbert-families-libfamiliesmjs');
  assert.equal(slug('8-bit weights: `dtype: \'q8\'`'), '8-bit-weights-dtype-q8');
  assert.deepEqual([...anchors('# A\n## B\n## B\n```\n# not a heading\n```\n<a id="x"></a>')], ['#a', '#b', '#b-1', '#x']);
});

for (const file of FILES) {
  test(`${file}: every relative link reaches a file and, with #fragment, an anchor in it`, () => {
    const own = anchors(text(file));
    const dead = [];
    for (const { target: link, line } of links(text(file))) {
      if (/^https:\/\/unpkg\.com\/relpos@/.test(link) && !shipped(link)) {
        dead.push(`${file}:${line}: ${link}: not this version's files (${DOCS_BASE})`);
        continue;
      }
      const target = shipped(link) ?? link;
      if (/^(https?|mailto):/.test(target)) continue;
      if (file === 'README.md' && !shipped(link) && !target.startsWith('#')) {
        dead.push(`${file}:${line}: ${target}: a relative link, which leads nowhere on npm's page: link ${DOCS_BASE}${target}`);
        continue;
      }
      const [path, fragment] = target.split('#');
      const to = path ? resolve(ROOT, shipped(link) ? '.' : dirname(file), decodeURIComponent(path)) : join(ROOT, file);
      if (!to.startsWith(ROOT) || !existsSync(to)) {
        dead.push(`${file}:${line}: ${target}: no file ${relative(ROOT, to)}`);
        continue;
      }
      if (fragment === undefined) continue;
      if (statSync(to).isDirectory() || !to.endsWith('.md')) {
        dead.push(`${file}:${line}: ${target}: a #fragment on a file that is not Markdown`);
        continue;
      }
      const targets = path ? anchors(readFileSync(to, 'utf8')) : own;
      if (!targets.has(`#${fragment}`)) dead.push(`${file}:${line}: ${target}: no anchor #${fragment} in ${relative(ROOT, to)} (has ${[...targets].slice(0, 12).join(' ')} …)`);
    }
    assert.deepEqual(dead, []);
  });
}

test('the README links every file of docs/, and each opens with a title and what it covers', () => {
  const readmeLinks = new Set(links(text('README.md')).map((l) => (shipped(l.target) ?? l.target).split('#')[0]));
  const unlinked = DOCS.filter((d) => !readmeLinks.has(d));
  assert.deepEqual(unlinked, [], 'docs/ files the README does not link');
  for (const d of DOCS) {
    const [title, blank, first] = text(d).split('\n');
    assert.match(title, /^# \S/, `${d} opens with a # title`);
    assert.equal(blank, '', `${d}: a blank line after the title`);
    assert.ok(first && !first.startsWith('#') && !first.startsWith('```') && !first.startsWith('|'), `${d}: a sentence after the title, not ${first}`);
  }
});

test('README.md stays a five-minute read (at most 300 lines)', () => {
  const lines = text('README.md').split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
});
