// The hand-written web/index.d.ts and web/lab.d.ts, type-checked the way a consumer's project checks them:
// a folder outside the repository with `relpos` in node_modules (resolved through the "exports" map's
// "types" condition), `tsc --noEmit` with module nodenext and the DEFAULT lib of the target (no
// ESNext.Disposable added, no @types), for target es2022 and esnext, strict on and off. Compiled there:
//   - tests/js/types/consumer.ts (every public type in use; consumer-esnext.ts adds `using`, esnext only);
//   - every ```js block of README.md and docs/*.md (after= chains composed as docs-examples.test.mjs runs
//     them), as JavaScript under checkJs: the calls, options and results the docs show must type-check,
//     null checks included (noImplicitAny off: plain JavaScript has no annotations to give). A line whose
//     `//=> throws …` shows a bad call may fail to compile: that is the point of it.
// The four compilations start together (tsc is single-threaded).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';

import { ROOT } from './helpers.mjs';
import { chain, compose, jsBlocks } from './docs/markdown.mjs';

const tsc = resolve(ROOT, 'node_modules/typescript/bin/tsc');
const DOC_FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const work = mkdtempSync(join(tmpdir(), 'relpos-types-'));
after(() => rmSync(work, { recursive: true, force: true }));

// browser="…" blocks read `input` (a file picker)
const BROWSER_PRELUDE = ["const input = /** @type {{ files: FileList }} */ (/** @type {unknown} */ (document.querySelector('input[type=file]')));"];

/** The consumer project: package.json, node_modules/relpos → the checkout, the consumer files and one module per doc block. */
function project() {
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  mkdirSync(join(work, 'node_modules'));
  symlinkSync(ROOT, join(work, 'node_modules', 'relpos'), 'dir');
  for (const f of ['consumer.ts', 'consumer-esnext.ts']) copyFileSync(join(ROOT, 'tests/js/types', f), join(work, f));
  mkdirSync(join(work, 'docs'));
  const where = new Map();
  for (const block of jsBlocks(ROOT, DOC_FILES, readFileSync)) {
    const list = chain(block);
    const name = `docs/${block.file.replace(/\W+/g, '-')}-${block.line}.mjs`;
    const { code, map } = compose(list, { prelude: list.some((b) => b.attrs.browser) ? BROWSER_PRELUDE : [] });
    writeFileSync(join(work, name), code + '\nexport {};\n');
    where.set(name, map);
  }
  // README: a TypeScript project whose package.json says "type": "commonjs" (npm init -y) needs .mts for top-level await
  mkdirSync(join(work, 'cjs'));
  writeFileSync(join(work, 'cjs', 'package.json'), JSON.stringify({ name: 'cjs-consumer', private: true, type: 'commonjs' }));
  const example = "import { init } from 'relpos';\nconst rp = await init();\nconsole.log(rp.threads);\nexport {};\n";
  for (const f of ['example.mts', 'example.ts']) writeFileSync(join(work, 'cjs', f), example);
  return where;
}

const where = existsSync(tsc) ? project() : null;

/** tsc --noEmit over the project with these settings; resolves to its output (errors mapped to README/docs lines). */
async function check(target, strict) {
  const files = ['consumer.ts', ...(target === 'esnext' ? ['consumer-esnext.ts'] : []), ...where.keys()];
  const config = join(work, `tsconfig.${target}.${strict ? 'strict' : 'loose'}.json`);
  writeFileSync(config, JSON.stringify({
    compilerOptions: { target, module: 'nodenext', moduleResolution: 'nodenext', strict, noImplicitAny: false, noEmit: true, allowJs: true, checkJs: true, types: [] },
    files,
  }));
  let out = '';
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { cwd: work, encoding: 'utf8' });
  } catch (e) {
    out = `${e.stdout}${e.stderr}`;
  }
  // one diagnostic per entry (its continuation lines indented), named by the README / docs line it is about
  const entries = out.split(/\n(?! )/).filter(Boolean).map((entry) => {
    const m = /^(docs\/[^(]+)\((\d+),\d+\)/.exec(entry);
    const doc = m && where.get(m[1])?.[m[2] - 1];
    return { entry: doc ? `${doc}: ${entry}` : entry, doc };
  });
  return entries.filter(({ doc }) => !doc || !/\/\/=>\s*throws/.test(docLine(doc))).map(({ entry }) => entry).join('\n');
}

const docText = new Map();
/** The text of 'file:line' in the checkout. */
function docLine(at) {
  const [file, line] = at.split(':');
  if (!docText.has(file)) docText.set(file, readFileSync(join(ROOT, file), 'utf8').split('\n'));
  return docText.get(file)[line - 1] ?? '';
}

/** tsc --noEmit of one file of the "type": "commonjs" folder (module nodenext, target es2022): its output. */
async function checkCjs(file) {
  try {
    await promisify(execFile)(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '--module', 'nodenext', '--target', 'es2022', '--strict', join('cjs', file)], { cwd: work, encoding: 'utf8' });
    return '';
  } catch (e) {
    return `${e.stdout}${e.stderr}`;
  }
}

const runs = new Map();
const run = (target, strict) => {
  const key = `${target} ${strict}`;
  if (!runs.has(key)) runs.set(key, check(target, strict));
  return runs.get(key);
};

for (const target of ['es2022', 'esnext'])
  for (const strict of [true, false])
    test(`tsc (module nodenext, target ${target}, default lib, strict ${strict ? 'on' : 'off'}) accepts consumer.ts and every js example of README.md and docs/`, { skip: !where && 'typescript is not installed: run npm ci' }, async () => {
      for (const t of ['es2022', 'esnext']) for (const st of [true, false]) run(t, st);  // all four at once
      const errors = await run(target, strict);
      assert.equal(errors, '', `tsc reported errors:\n${errors}`);
    });

test('README: with "type": "commonjs", top-level await compiles in example.mts and not in example.ts', { skip: !where && 'typescript is not installed' }, async () => {
  const [mts, ts] = await Promise.all([checkCjs('example.mts'), checkCjs('example.ts')]);
  assert.equal(mts, '');
  assert.match(ts, /error TS1309: The current file is a CommonJS module and cannot use 'await' at the top level/);
});

test('the doc examples compiled include every README.md and docs/ js block', { skip: !where && 'typescript is not installed' }, () => {
  assert.ok(where.size >= 50, `${where.size} blocks`);
  assert.ok([...where.keys()].some((f) => f.startsWith('docs/README-md-')));
});
