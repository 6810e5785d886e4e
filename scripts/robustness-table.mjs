#!/usr/bin/env node
// Prints the bad-input table of docs/robustness.md by running every case against the SIMD build:
// the error class and message are measured, not written by hand. Each row names the test that
// proves it; the script checks that the test file contains that test's name (or, for the
// expectThrow() rows of errors.test.mjs, its label) and exits 1 otherwise or when a case does
// not throw.
//
//   node scripts/robustness-table.mjs > /tmp/table.md
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { init, pipeline } from '../web/index.js';
import { randomArray, ROOT } from '../tests/js/helpers.mjs';
import { haveFixtures, joinSafetensors, loadCase, splitSafetensors } from '../tests/js/safetensors.mjs';
import { bytesField, field, goodPieces, proto, str } from '../tests/js/spm-proto.mjs';
import { writeHeaderOnlyCheckpoint } from '../tests/support/random-checkpoint.mjs';
import { familyFiles, haveFamilies, nomicSentenceTransformersFiles } from '../tests/js/family-bad-inputs.mjs';
import { dense3, haveLlm, llmFiles } from '../tests/js/llm-bad-inputs.mjs';
import { recordingGpu } from '../tests/js/webgpu-adapter.mjs';
import * as gguf from '../tests/js/gguf-bad-inputs.mjs';

const rp = await init({ simd: true });
const n = 40;
const good = () => ({ q: randomArray(n, 1), k: randomArray(n, 2), v: randomArray(n, 3), batch: 1, heads: 2, seqLen: 5, headDim: 4, scheme: { type: 'none' } });
const att = (extra) => () => rp.attention({ ...good(), ...extra });
const E = 'errors.test.mjs', M = 'memory-limits.test.mjs', F = 'model-errors.test.mjs', R = 'robustness.test.mjs';
const label = (l, cls) => `${l} → ${cls}, then a correct call still works`;

if (!haveFixtures) {
  console.error('robustness-table: the HF fixtures are needed for the model-file rows');
  process.exit(1);
}
const fx = loadCase('bert-absolute');
const W = 'encoder.layer.0.attention.self.query.weight';
const load = (weights, config = fx.configText) => () => rp.loadModel({ 'config.json': config, 'model.safetensors': weights });
const edit = (fn) => {
  const { header, data } = splitSafetensors(fx.modelBytes);
  const h = structuredClone(header);
  fn(h);
  return joinSafetensors(h, data);
};
const withHeaderLength = (len) => {
  const b = fx.modelBytes.slice();
  new DataView(b.buffer).setBigUint64(0, len, true);
  return b;
};
const cfg = JSON.parse(fx.configText);
const S = 'sentencepiece.test.mjs';
const V = 'variant.test.mjs';
const variantName = 'variant must be a plain name: TypeError / RangeError, and the runtime keeps working';
const variantMissing = "all-MiniLM-L6-v2 loads with variant 'fp16' (model.fp16.safetensors) and without it names what it tried";
const variantPresent = "'no weights found' from a folder or a map of files names the weight files it holds and the variant that loads them";
const hugeName = "converted weights that cannot fit → RangeError naming the bytes and suggesting q8 before converting, then a model loads";
// A llama folder whose header declares a 600,000 × 1024 BF16 table; its data is a sparse file (never read).
function hugeLlama() {
  const dir = mkdtempSync(join(tmpdir(), 'relpos-robustness-'));
  const config = { model_type: 'llama', hidden_size: 1024, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 4,
    num_key_value_heads: 2, vocab_size: 600000, max_position_embeddings: 512, rms_norm_eps: 1e-6, hidden_act: 'silu' };
  writeHeaderOnlyCheckpoint(dir, config);
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const TASKS = join(ROOT, '..', 'shared', 'fixtures', 'hf-tasks');
const taskModel = (name) => rp.loadModel(join(TASKS, name));
const OPTIONS_TEST = 'options nobody reads are TypeErrors naming the option and the closest known one (init, loadModel, pipeline, pipeline calls, forward, encode, attention); elements of a list are named';
const tasks = {};
tasks.nerModel = await taskModel('bert-token-classification');
tasks.ner = pipeline('ner', tasks.nerModel);
tasks.qa = pipeline('question-answering', await taskModel('bert-question-answering'));
tasks.fill = pipeline('fill-mask', await taskModel('bert-fill-mask'));
tasks.pairs = pipeline('text-classification', await taskModel('bert-text-pair-classification'));
const deberta = loadCase('deberta-v2-b-v3like');
const withSpm = (bytes, { base = deberta, file = 'spm.model', extra = {} } = {}) => () =>
  rp.loadModel({ 'config.json': base.configText, 'model.safetensors': base.modelBytes, [file]: bytes, ...extra });
const spmMalformed = 'malformed .model files are clear Errors naming the file and the problem';
const spmLayout = 'a model type without a known special-token layout, or split_by_punct, is a clear Error';
const model = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
const disposedModel = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
disposedModel.dispose();
const disposedRuntime = await init({ simd: false });
disposedRuntime.dispose();
const x30k = new Float32Array(30000);
const x2e27 = new Float32Array(2 ** 27);
const hugeBlob = Object.setPrototypeOf({ size: 3 * 2 ** 30 }, Blob.prototype);

// [class, case, run, test file, test name (as it appears in the file)]
const cases = [
  ['argument type', 'q as a plain Array', att({ q: Array.from(randomArray(n)) }), E, label('q as a plain Array', 'TypeError'), 'q as a plain Array'],
  ['argument type', 'k as a Float64Array', att({ k: new Float64Array(n) }), E, label('k as a Float64Array', 'TypeError'), 'k as a Float64Array'],
  ['argument type', 'v missing', att({ v: undefined }), E, label('v missing', 'TypeError'), 'v missing'],
  ['argument type', 'mask as an Int32Array', att({ mask: new Int32Array(5) }), E, label('mask as an Int32Array', 'TypeError'), 'mask as an Int32Array'],
  ['argument type', 'heads as a string', att({ heads: '2' }), E, label('heads as a string', 'TypeError'), 'heads as a string'],
  ['argument type', 'causal as a number', att({ causal: 1 }), E, label('causal as a number', 'TypeError'), 'causal as a number'],
  ['argument type', 'options not an object', () => rp.attention(42), E, label('options not an object', 'TypeError'), 'options not an object'],
  ['argument type', 'scheme table as a plain Array (T5 biasTable)', att({ scheme: { type: 't5', numBuckets: 4, biasTable: [1, 2, 3, 4, 5, 6, 7, 8] } }), E, label('a T5 bias table as a plain Array', 'TypeError'), 'a T5 bias table as a plain Array'],
  ['size', 'negative batch', att({ batch: -1 }), E, label('negative batch', 'RangeError'), 'negative batch'],
  ['size', 'non-integer seqLen', att({ seqLen: 2.5 }), E, label('non-integer seqLen', 'RangeError'), 'non-integer seqLen'],
  ['size', 'zero headDim', att({ headDim: 0 }), E, label('zero headDim', 'RangeError'), 'zero headDim'],
  ['size', 'NaN heads', att({ heads: NaN }), E, label('NaN heads', 'RangeError'), 'NaN heads'],
  ['shape', 'q shorter than batch·heads·seqLen·headDim', att({ q: randomArray(n - 1) }), E, label('q shorter than the sizes', 'RangeError'), 'q shorter than the sizes'],
  ['shape', 'sizes larger than the arrays', att({ seqLen: 6 }), E, label('sizes larger than the arrays', 'RangeError'), 'sizes larger than the arrays'],
  ['shape', 'mask of the wrong length', att({ mask: new Uint8Array(4) }), E, label('mask of the wrong length', 'RangeError'), 'mask of the wrong length'],
  ['scheme parameter', 'unknown scheme type', att({ scheme: { type: 'xpos' } }), E, label('an unknown scheme', 'Error'), 'an unknown scheme'],
  ['scheme parameter', 'no scheme', att({ scheme: undefined }), E, label('no scheme', 'Error'), 'no scheme'],
  ['scheme parameter', 'RoPE rotaryDim > headDim', att({ scheme: { type: 'rope', rotaryDim: 8 } }), E, label('a RoPE rotaryDim larger than headDim', 'RangeError'), 'a RoPE rotaryDim larger than headDim'],
  ['scheme parameter', 'negative Shaw maxDistance', att({ scheme: { type: 'shaw', maxDistance: -2, keyTable: new Float32Array(4) } }), E, label('a negative Shaw maxDistance', 'RangeError'), 'a negative Shaw maxDistance'],
  ['scheme parameter', 'missing T5 bias table', att({ scheme: { type: 't5', numBuckets: 4 } }), E, label('a missing T5 bias table', 'Error'), 'a missing T5 bias table'],
  ['scheme parameter', 'mis-shaped T5 bias table', att({ scheme: { type: 't5', numBuckets: 4, biasTable: new Float32Array(9) } }), E, label('a mis-shaped T5 bias table', 'Error'), 'a mis-shaped T5 bias table'],
  ['scheme parameter', 'mis-shaped Shaw key table', att({ scheme: { type: 'shaw', maxDistance: 2, keyTable: new Float32Array(15) } }), E, label('a mis-shaped Shaw key table', 'Error'), 'a mis-shaped Shaw key table'],
  ['scheme parameter', 'DeBERTa posKey for the wrong span', att({ scheme: { type: 'deberta', buckets: 4, maxRelative: 8, terms: ['c2p'], posKey: new Float32Array(32) } }), E, label('a DeBERTa posKey for the wrong span', 'Error'), 'a DeBERTa posKey for the wrong span'],
  ['scheme parameter', 'unknown DeBERTa term', att({ scheme: { type: 'deberta', terms: ['c2c'] } }), E, label('an unknown DeBERTa term', 'Error'), 'an unknown DeBERTa term'],
  ['scheme parameter', 'learned table with fewer rows than seqLen', att({ scheme: { type: 'learned-absolute', table: new Float32Array(16) } }), E, label('a learned table with too few rows', 'Error'), 'a learned table with too few rows'],
  ['scheme parameter', 'ALiBi custom slopes for the wrong head count', att({ scheme: { type: 'alibi', slopes: new Float32Array(3) } }), E, label('ALiBi custom slopes for the wrong head count', 'Error'), 'ALiBi custom slopes for the wrong head count'],
  ['scheme parameter', 'rejected inside C++ (bidirectional T5 with 3 buckets)', att({ scheme: { type: 't5', numBuckets: 3, maxDistance: 2, bidirectional: true, biasTable: new Float32Array(6) } }), E, 'a relpos::Error raised inside the C++ library arrives as a RangeError with its message (1000 times), and the runtime keeps working'],
  ['scheme parameter', 'positions helper rejected inside C++', () => rp.positions.t5RelativeBucket(5, { numBuckets: 1, maxDistance: 1 }), E, 'a relpos::Error from a positions helper becomes a RangeError, not an abort'],
  ['memory limit', 'huge seqLen with returnProbs (30000², 1·1·30000·1)', () => rp.attention({ q: x30k, k: x30k, v: x30k, batch: 1, heads: 1, seqLen: 30000, headDim: 1, returnProbs: true, scheme: { type: 'none' } }), M, 'build: huge seqLen with returnProbs → RangeError naming the bytes and the limit (heap untouched), then a correct call'],
  ['memory limit', 'huge batch with returnProbs (8192·16·32·32: q, k, v, output = 2 GiB, not streamed)', () => rp.attention({ q: x2e27, k: x2e27, v: x2e27, batch: 8192, heads: 16, seqLen: 32, headDim: 32, returnProbs: true, scheme: { type: 'none' } }), M, 'build: huge batch with returnProbs (q, k, v, output alone exceed the limit) → RangeError, then a correct call'],
  ['memory limit / overflow', 'batch·heads·seqLen·headDim beyond 2^53 ((2^31−1)^4)', att({ batch: 2 ** 31 - 1, heads: 2 ** 31 - 1, seqLen: 2 ** 31 - 1, headDim: 2 ** 31 - 1 }), M, 'build: sizes whose products overflow or exceed the limit'],
  ['memory limit (C++ std::bad_alloc)', 'positions.t5BucketTable(23170): 2147395600 bytes in C++', () => rp.positions.t5BucketTable(23170), M, 'build: a positions helper whose result cannot be allocated in C++ → RangeError with the bytes and the limit, then a correct call'],
  ['memory limit', 'model.safetensors of 3 GiB', load(hugeBlob), M, 'build: a model.safetensors larger than the limit → RangeError before anything is read, then a model loads'],
  ['memory limit', 'forward() whose attentions exceed the limit', () => { const s = Math.min(model.info.maxPositionEmbeddings, 512); const b = Math.ceil(2 ** 31 / (4 * model.info.numLayers * model.info.numHeads * s * s)) + 1; return model.forward({ inputIds: Array.from({ length: b }, () => new Int32Array(s).fill(3)) }, { outputAttentions: true }); }, M, 'build: a forward pass whose attentions cannot fit → RangeError naming the bytes and the limit, then a correct forward'],
  ['model file', 'truncated model.safetensors', load(fx.modelBytes.slice(0, fx.modelBytes.length - 100)), F, 'a truncated model.safetensors names the file'],
  ['model file', 'header length past the end of the file', load(withHeaderLength(BigInt(fx.modelBytes.length * 4))), F, 'a header length past the end of the file names the file'],
  ['model file', 'header length 2^63 + 8 (overflow)', load(withHeaderLength(2n ** 63n + 8n)), R, 'safetensors offsets and header lengths near 2^64 are Errors naming the file, never wrap around'],
  ['model file', 'header not JSON', load(joinSafetensors('{"a": nope', new Uint8Array(8))), F, 'a header that is not JSON, or not a JSON object, names the file'],
  ['model file', 'header not a JSON object', load(joinSafetensors('[1, 2, 3]', new Uint8Array(8))), F, 'a header that is not JSON, or not a JSON object, names the file'],
  ['model file', 'data offsets out of range', load(edit((h) => { const [, e] = h[W].data_offsets; h[W].data_offsets = [e + 1e6, e + 1e6 + 4096]; })), F, 'data offsets out of range name the file and tensor'],
  ['model file', 'overlapping tensors', load(edit((h) => { h['extra.weight'] = { dtype: 'F32', shape: [4], data_offsets: [h[W].data_offsets[0], h[W].data_offsets[0] + 16] }; })), F, 'overlapping tensors name the file and a tensor'],
  ['model file', 'offsets ≠ dtype × shape', load(edit((h) => { h[W].shape = [32, 31]; })), F, 'offsets that do not match dtype × shape name the file and tensor'],
  ['model file', 'unsupported dtype (F64)', load(edit((h) => { h[W].dtype = 'F64'; h[W].shape = [32, 16]; })), F, 'an unsupported dtype names the file, tensor and dtype'],
  ['model file', 'missing tensor', load(edit((h) => { delete h[W]; })), F, 'a missing tensor is named'],
  ['model file', 'tensor of the wrong shape', load(edit((h) => { h[W].shape = [16, 64]; })), F, 'a tensor of the wrong shape is named with both shapes'],
  ['model file', 'config.json without model_type', load(fx.modelBytes, JSON.stringify({ ...cfg, model_type: undefined })), F, 'config.json: missing model_type, unknown model_type (lists the supported ones), not JSON, wrong field type'],
  ['model file', 'config.json: unknown model_type', load(fx.modelBytes, JSON.stringify({ ...cfg, model_type: 'gpt-j' })), F, 'config.json: missing model_type, unknown model_type (lists the supported ones), not JSON, wrong field type'],
  ['model file', 'config.json not JSON', load(fx.modelBytes, '{"model_type": "bert",'), F, 'config.json: missing model_type, unknown model_type (lists the supported ones), not JSON, wrong field type'],
  ['model file', 'config.json field of the wrong type', load(fx.modelBytes, JSON.stringify({ ...cfg, hidden_size: 'big' })), F, 'config.json: missing model_type, unknown model_type (lists the supported ones), not JSON, wrong field type'],
  ['model file', 'missing config.json', () => rp.loadModel({ 'model.safetensors': fx.modelBytes }), F, 'missing files are named'],
  ['model file', 'missing model.safetensors', () => rp.loadModel({ 'config.json': fx.configText }), F, 'missing files are named'],
  ['tokenizer file', 'spm.model truncated inside a varint', withSpm(proto(...goodPieces, [0x0a])), S, spmMalformed],
  ['tokenizer file', 'spm.model truncated inside a piece', withSpm(proto(...goodPieces).subarray(0, 20)), S, spmMalformed],
  ['tokenizer file', 'spm.model: wrong wire type', withSpm(proto(field(1, 0, [1]))), S, spmMalformed],
  ['tokenizer file', 'spm.model: group wire type', withSpm(proto(field(7, 3, []))), S, spmMalformed],
  ['tokenizer file', 'spm.model: varint longer than 10 bytes', withSpm(proto(Array(11).fill(0xff))), S, spmMalformed],
  ['tokenizer file', 'spm.model without pieces', withSpm(proto(bytesField(3, bytesField(1, str('nmt_nfkc'))))), S, spmMalformed],
  ['tokenizer file', 'spm.model of model type WORD', withSpm(proto(...goodPieces, bytesField(2, field(3, 0, [3])))), S, spmMalformed],
  ['tokenizer file', 'spm.model of model type CHAR', withSpm(proto(...goodPieces, bytesField(2, field(3, 0, [4])))), S, spmMalformed],
  ['tokenizer file', 'spm.model without an UNKNOWN piece', withSpm(proto(goodPieces[1])), S, spmMalformed],
  ['tokenizer file', 'spm.model piece text not UTF-8', withSpm(proto(bytesField(1, bytesField(1, [0xff, 0xfe])))), S, spmMalformed],
  ['tokenizer file', 'spm.model with normalization rule nfkc_cf', withSpm(proto(...goodPieces, bytesField(3, bytesField(1, str('nfkc_cf'))))), S, spmMalformed],
  ['tokenizer file', 'spiece.model for model_type bert (no special-token layout)', withSpm(proto(...goodPieces), { base: fx, file: 'spiece.model' }), S, spmLayout],
  ['tokenizer file', "tokenizer_config.json with split_by_punct: true", withSpm(proto(...goodPieces), { extra: { 'tokenizer_config.json': { split_by_punct: true } } }), S, spmLayout],
  ...checkpointRows(),
  ...taskHeadRows(),
  ['model input', 'text without tokenizer.json', () => model.forward({ text: 'hello' }), F, 'text without tokenizer.json is a clear Error; ids out of the vocabulary a RangeError'],
  ['model input', 'token id outside the vocabulary', () => model.forward({ inputIds: [[1, 2, 100]] }), F, 'text without tokenizer.json is a clear Error; ids out of the vocabulary a RangeError'],
  ['model input', 'non-integer token id', () => model.forward({ inputIds: [[1, 2.5]] }), F, 'text without tokenizer.json is a clear Error; ids out of the vocabulary a RangeError'],
  ['argument type', 'loadModel(42)', () => rp.loadModel(42), F, 'bad loadModel arguments are TypeErrors'],
  ['init', "init('simd')", () => init('simd'), R, 'init: options that are not an object, a bad simd value or bad wasmPaths are TypeErrors'],
  ['init', "init({ simd: 'yes' })", () => init({ simd: 'yes' }), R, 'init: options that are not an object, a bad simd value or bad wasmPaths are TypeErrors'],
  ['init', 'init({ wasmPaths: 42 })', () => init({ wasmPaths: 42 }), R, 'init: options that are not an object, a bad simd value or bad wasmPaths are TypeErrors'],
  ['init', 'wasmPaths where no .wasm exists', () => init({ simd: false, wasmPaths: '/nonexistent/relpos/' }), R, 'init: a wasmPaths prefix where no .wasm exists is an Error naming the build and the location; init works afterwards'],
  ['before init', 'attention() on the pending init() promise', () => init().attention(good()), R, 'calls before init() resolved: the pending promise has no attention(), pipeline() without a model is a TypeError'],
  ['before init', "pipeline('feature-extraction') without a model", () => pipeline('feature-extraction', undefined), R, 'calls before init() resolved: the pending promise has no attention(), pipeline() without a model is a TypeError'],
  ['disposed', 'attention() on a disposed runtime', () => disposedRuntime.attention(good()), R, 'a disposed runtime refuses attention() and loadModel() with an Error; other runtimes are unaffected'],
  ['disposed', 'loadModel() on a disposed runtime', () => disposedRuntime.loadModel({}), R, 'a disposed runtime refuses attention() and loadModel() with an Error; other runtimes are unaffected'],
  ['disposed', 'forward() on a disposed model', () => disposedModel.forward({ inputIds: [1, 2] }), R, 'a disposed model refuses forward() and encode() with an Error; dispose() twice is harmless'],
  ['disposed', 'encode() on a disposed model', () => disposedModel.encode('hi'), R, 'a disposed model refuses forward() and encode() with an Error; dispose() twice is harmless'],
  ['argument type', "loadModel(src, { dtype: 8 })", () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes }, { dtype: 8 }), 'q8.test.mjs', 'loadModel rejects a dtype other than fp32 or q8, naming the allowed values'],
  ['argument value', "loadModel(src, { dtype: 'int4' })", () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes }, { dtype: 'int4' }), 'q8.test.mjs', 'loadModel rejects a dtype other than fp32 or q8, naming the allowed values'],
  ['argument type', 'loadModel(src, { variant: 16 })', () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes }, { variant: 16 }), V, variantName],
  ['argument value', "loadModel(src, { variant: '../fp16' })", () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes }, { variant: '../fp16' }), V, variantName],
  ['model file', "variant 'fp16' of a folder without model.fp16.safetensors", () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes }, { variant: 'fp16' }), V, variantMissing],
  ['model file', 'a folder holding only model.fp16.safetensors, loaded without variant', () => rp.loadModel({ 'config.json': fx.configText, 'model.fp16.safetensors': fx.modelBytes }), V, variantPresent],
  ['memory limit', 'a llama checkpoint whose fp32 weights cannot fit (600,000 × 1024 embedding table)', () => rp.loadModel(hugeLlama()), 'streamed-load.test.mjs', hugeName],
  ...taskRows(),
  ...sentenceTransformersRows(),
  ...familyRows(),
  ['argument value', "loadModel(src, { dtype: 'fp16' }) on device 'wasm' (the default)", () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes }, { dtype: 'fp16' }),
   'webgpu-dtypes.test.mjs', "device 'webgpu' rejects naming shader-f16; 'auto' falls back to fp32 on WASM with the reason; 'wasm' rejects fp16"],
  ...lostDeviceRows(),
  ...llmRows(),
  // option names nobody reads, and list elements (web/validation.js checkKnownOptions, checkStrings)
  ['options', 'init({ threds: 2 }): an option name init does not read', () => init({ threds: 2 }), 'pipelines.test.mjs', OPTIONS_TEST],
  ['options', "fill-mask: { top_k: 2 }, an option name the call does not read", () => tasks.fill('a [MASK] b', { top_k: 2 }), 'pipelines.test.mjs', OPTIONS_TEST],
  ['options', "forward(…, { outputHiddenState: true }): a misspelt forward option", () => tasks.nerModel.forward({ inputIds: [[101, 102]] }, { outputHiddenState: true }), 'pipelines.test.mjs', OPTIONS_TEST],
  ['options', "pipeline('ner', loadedModel, { threads: 2 }): init's option for a model loaded already", () => pipeline('ner', tasks.nerModel, { threads: 2 }), 'pipelines.test.mjs', OPTIONS_TEST],
  ['options', "fill-mask: ['a [MASK] b', null], a list element that is not a string", () => tasks.fill(['a [MASK] b', null]), 'pipelines.test.mjs', OPTIONS_TEST],
  ...ggufRows(),
  ...robertaRows(),
];

// A GPU device lost under a model on WebGPU (tests/js/webgpu-device-lost.test.mjs), on SwiftShader: the device is the
// one a recording GPU object handed to loadModel (tests/js/webgpu-adapter.mjs recordingGpu), destroyed by the script.
function lostDeviceRows() {
  const L = 'webgpu-device-lost.test.mjs';
  const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';
  const lose = (during) => async () => {
    if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER)) process.env.VK_ICD_FILENAMES = SWIFTSHADER;
    const { findGpu } = await import('../web/webgpu/index.js');
    const gpu = recordingGpu((await findGpu({})).gpu);
    const m = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes }, { device: 'webgpu', gpu });
    const inputs = { inputIds: [[1, 2, 3, 4]] };
    try {
      await m.forward(inputs);
      if (during) {
        const pending = m.forward(inputs);
        gpu.devices[0].destroy();
        return await pending;
      }
      gpu.devices[0].destroy();
      await new Promise((r) => setTimeout(r, 200));
      return await m.forward(inputs);
    } finally {
      m.dispose();
    }
  };
  return [
    ['GPU device', 'forward on a WebGPU model whose GPU device is destroyed during the call', lose(true), L,
     "webgpu model: a device destroyed during a forward rejects that forward with the loss (no hang), info.deviceLost shows it, later forwards reject at once; the model loads again (webgpu, or 'auto' → WASM without an adapter)"],
    ['GPU device', 'forward after the GPU device was lost while the model was idle', lose(false), L,
     'webgpu model: a device lost while idle shows in model.info.deviceLost and the next forward is an Error saying so'],
  ];
}

// Task-head rows (tests/js/task-heads.test.mjs): heads of the wrong shape, labels missing, bad head options.
function taskHeadRows() {
  const T = 'task-heads.test.mjs';
  const dir = join(ROOT, '..', 'shared', 'fixtures', 'hf-tasks', 'bert-token-classification');
  const cfgText = readFileSync(join(dir, 'config.json'), 'utf8');
  const bytes = new Uint8Array(readFileSync(join(dir, 'model.safetensors')));
  const headFiles = (config, header) => {
    const { header: h, data } = splitSafetensors(bytes);
    const copy = structuredClone(h);
    if (header) header(copy);
    return { 'config.json': JSON.stringify({ ...JSON.parse(cfgText), ...config }), 'model.safetensors': joinSafetensors(copy, data) };
  };
  const asQa = (h) => {
    h['qa_outputs.weight'] = h['classifier.weight'];
    h['qa_outputs.bias'] = h['classifier.bias'];
    delete h['classifier.weight'];
    delete h['classifier.bias'];
  };
  const plainBert = () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
  const withModel = (name, fn) => async () => {
    const m = await rp.loadModel(join(ROOT, '..', 'shared', 'fixtures', 'hf-tasks', name));
    try {
      return fn(m);
    } finally {
      m.dispose();
    }
  };
  return [
    ['task head', 'id2label names 3 labels, the classifier has 5 rows', () => rp.loadModel(headFiles({ id2label: { 0: 'O', 1: 'B-PER', 2: 'I-PER' } })),
     T, 'labels missing from config.json id2label are an Error naming the id and the head size; loading works afterwards'],
    ['task head', 'qa_outputs.weight [5, 32] (a head of the wrong shape)', () => rp.loadModel(headFiles({ architectures: ['BertForQuestionAnswering'] }, asQa)),
     T, 'a head tensor of the wrong shape or missing is an Error naming the tensor (and both shapes)'],
    ['task head', 'architectures names BertForMaskedLM, its tensors are absent', () => rp.loadModel(headFiles({ architectures: ['BertForMaskedLM'] })),
     T, 'a head tensor of the wrong shape or missing is an Error naming the tensor (and both shapes)'],
    ['task head', 'forward(…, { logits: true }) without a head', async () => (await plainBert()).forward({ inputIds: [[1, 2]] }, { logits: true }),
     T, 'bad logits options and token type ids are TypeErrors / RangeErrors naming what was expected'],
    ['task head', 'logitsAt past the end of the batch', withModel('bert-fill-mask', (m) => m.forward({ inputIds: [[101, 103, 102]] }, { logits: true, logitsAt: [[0, 3]] })),
     T, 'bad logits options and token type ids are TypeErrors / RangeErrors naming what was expected'],
    ['task head', 'token type id 5 with type_vocab_size 2', withModel('bert-token-classification', (m) => m.forward({ inputIds: [[101, 102]], tokenTypeIds: [[0, 5]] })),
     T, 'bad logits options and token type ids are TypeErrors / RangeErrors naming what was expected'],
  ];
}

// Task-pipeline rows: the HF task fixtures (../shared/fixtures/hf-tasks) with their heads.
function taskRows() {
  const T = 'task-pipelines-behaviour.test.mjs';
  const qaErrors = 'question-answering: a question longer than maxSeqLen, an empty context and a docStride not below the window are clear Errors';
  const context = 'John lives in Paris. He works at a small company in London and travels to Berlin every month.';
  return [
    ['task pipeline', 'fill-mask: a text without the mask token', () => tasks.fill('Paris is the capital of France.'), T, 'fill-mask: an input without the mask token, or targets that give no token, are clear Errors'],
    ['task pipeline', 'fill-mask: targets that give no token', () => tasks.fill('a [MASK] b', { targets: [''] }), T, 'fill-mask: an input without the mask token, or targets that give no token, are clear Errors'],
    ['task pipeline', 'question-answering: a question longer than maxSeqLen', () => tasks.qa({ question: 'why '.repeat(70), context }), T, qaErrors],
    ['task pipeline', 'question-answering: an empty context', () => tasks.qa({ question: 'Why?', context: '' }), T, qaErrors],
    ['task pipeline', 'question-answering: docStride not below the window', () => tasks.qa({ question: 'Why?', context }, { maxSeqLen: 16, docStride: 11 }), T, qaErrors],
    ['task pipeline', "ner: aggregationStrategy 'mean'", () => tasks.ner('John lives in Paris', { aggregationStrategy: 'mean' }), T, 'bad inputs to the task pipelines are TypeErrors / Errors naming the option and what was expected'],
    ['task pipeline', 'ner: a text longer than the model with truncation: false', () => tasks.ner('Paris and Rome. '.repeat(30), { truncation: false }), T, 'truncation: absolute-position models default to max_position_embeddings; relative-position models have no limit'],
    ['task pipeline', 'ner: maxLength above max_position_embeddings', () => tasks.ner('Paris', { maxLength: 100 }), T, 'truncation: absolute-position models default to max_position_embeddings; relative-position models have no limit'],
    ['task pipeline', "pipeline('fill-mask') on a token-classification checkpoint", () => pipeline('fill-mask', tasks.nerModel), T, 'bad inputs to the task pipelines are TypeErrors / Errors naming the option and what was expected'],
    ['task pipeline', "text-classification: functionToApply 'relu'", () => tasks.pairs({ text: 'a', textPair: 'b' }, { functionToApply: 'relu' }), T, 'text-classification: output shapes follow HF (a text → [best], a pair → best, a list → one best each; topK → sorted lists)'],
  ];
}

// sentence-transformers rows (tests/js/sentence-transformers.test.mjs): the recipe files beside the
// weights, malformed, and the feature-extraction options they bring (prompts, dimensions).
function sentenceTransformersRows() {
  const T = 'sentence-transformers.test.mjs';
  const malformed = 'malformed modules.json, Pooling config.json, config_sentence_transformers.json or sentence_bert_config.json are Errors naming the file; loading works afterwards';
  const tokenizer = readFileSync(join(ROOT, 'tests', 'js', 'fixtures', 'tokenizer.json'), 'utf8');
  const transformer = { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' };
  const pooling = { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' };
  const meanConfig = { word_embedding_dimension: cfg.hidden_size, pooling_mode_mean_tokens: true };
  const files = (extra) => {
    const f = { 'config.json': fx.configText, 'model.safetensors': fx.modelBytes, 'tokenizer.json': tokenizer };
    for (const [name, v] of Object.entries(extra)) f[name] = typeof v === 'string' ? v : JSON.stringify(v);
    return f;
  };
  const withPooling = (extra) => files({ 'modules.json': [transformer, pooling], '1_Pooling/config.json': meanConfig, ...extra });
  const st = (extra) => () => rp.loadModel(files(extra));
  const embed = (extra, texts, options) => async () => {
    const m = await rp.loadModel(withPooling(extra));
    try {
      return await pipeline('feature-extraction', m)(texts, options);
    } finally {
      m.dispose();
    }
  };
  const prompts = { 'config_sentence_transformers.json': { prompts: { query: 'search_query: ', document: 'search_document: ' } } };
  return [
    ['sentence-transformers file', 'modules.json not JSON', st({ 'modules.json': '[{"type": ' }), T, malformed],
    ['sentence-transformers file', 'modules.json not an array', st({ 'modules.json': { type: 'sentence_transformers.models.Pooling' } }), T, malformed],
    ['sentence-transformers file', 'modules.json entry without a type', st({ 'modules.json': [transformer, { path: '1_Pooling' }] }), T, malformed],
    ['sentence-transformers file', "modules.json module path with '..'", st({ 'modules.json': [transformer, { ...pooling, path: '../1_Pooling' }] }), T, malformed],
    ['sentence-transformers file', 'modules.json names a Pooling module, 1_Pooling/config.json missing', st({ 'modules.json': [transformer, pooling] }), T, malformed],
    ['sentence-transformers file', '1_Pooling/config.json not JSON', st({ 'modules.json': [transformer, pooling], '1_Pooling/config.json': '{"pooling_mode_mean_tokens": tru' }), T, malformed],
    ['sentence-transformers file', '1_Pooling/config.json: a pooling_mode_* flag not a boolean', st({ 'modules.json': [transformer, pooling], '1_Pooling/config.json': { pooling_mode_cls_token: 'yes' } }), T, malformed],
    ['sentence-transformers file', '1_Pooling/config.json: unknown pooling_mode', st({ 'modules.json': [transformer, pooling], '1_Pooling/config.json': { pooling_mode: 'median' } }), T, malformed],
    ['sentence-transformers file', '1_Pooling/config.json: word_embedding_dimension ≠ hidden size', st({ 'modules.json': [transformer, pooling], '1_Pooling/config.json': { ...meanConfig, word_embedding_dimension: 384 } }), T, malformed],
    ['sentence-transformers file', 'config_sentence_transformers.json: a prompt not a string', () => rp.loadModel(withPooling({ 'config_sentence_transformers.json': { prompts: { query: 1 } } })), T, malformed],
    ['sentence-transformers file', 'config_sentence_transformers.json: default_prompt_name not among the prompts', () => rp.loadModel(withPooling({ 'config_sentence_transformers.json': { prompts: { query: 'q: ' }, default_prompt_name: 'passage' } })), T, malformed],
    ['sentence-transformers file', 'sentence_bert_config.json: max_seq_length 0', () => rp.loadModel(withPooling({ 'sentence_bert_config.json': { max_seq_length: 0 } })), T, malformed],
    ['feature-extraction', 'promptName unknown to the model', embed(prompts, ['a text'], { promptName: 'passage' }), T,
     'prompts: promptName prepends its text (= the plain model on prompt + text); a literal prompt wins; default_prompt_name applies unless promptName is null'],
    ['feature-extraction', 'dimensions above the hidden size', embed({}, ['a text'], { dimensions: cfg.hidden_size + 1 }), T,
     'dimensions: the first N values, then the L2 norm when the model normalises (or normalize: true); out of [1, hidden] is a RangeError'],
    ['feature-extraction', '1_Pooling/config.json: max pooling (not implemented), no pooling option', embed({ '1_Pooling/config.json': { pooling_mode: 'max' } }, ['a text'], {}), T,
     'a recipe relpos does not run (max pooling, modes concatenated, a LayerNorm module, no Pooling) needs the caller’s pooling: an Error naming it otherwise'],
  ];
}

// MPNet / ModernBERT / NomicBERT rows (#26, tests/js/families-errors.test.mjs): the fixture folders of
// ../shared/fixtures/hf-families with config.json fields changed or removed, a tensor removed, no tokenizer.
// (The MPNet rows that build the model come last: they were added once the MPNet model was merged.)
function familyRows() {
  if (!haveFamilies) {
    console.error('robustness-table: the hf-families fixtures are needed for the MPNet / ModernBERT / NomicBERT rows');
    process.exit(1);
  }
  const T = 'families-errors.test.mjs';
  const nomicSettings = 'nomic_bert: rotary_scaling_factor, prenorm true and a rotary_emb_fraction giving an odd rotary dim are Errors naming the field and why; the model loads afterwards';
  const missingTensor = 'a tensor the family needs, missing from model.safetensors, is an Error naming the tensor; the model loads afterwards';
  const missingField = 'config.json without a field the family needs: the family default applies, and the weights that disagree with it are named with both shapes';
  const heads = 'a hidden size that is not a multiple of the attention heads is a RangeError naming both, for every family; a ModernBERT head size RoPE cannot rotate (odd) is an Error';
  const noTokenizer = 'forward({ text }) and encode() without tokenizer.json are Errors saying to pass inputIds, for every family; forward with ids works afterwards';
  const fload = (name, options) => () => rp.loadModel(familyFiles(name, options));
  const fwdText = (name) => async () => {
    const m = await rp.loadModel(familyFiles(name));
    try {
      return m.forward({ text: 'hello world' });
    } finally {
      m.dispose();
    }
  };
  return [
    ['family config', 'nomic_bert: rotary_scaling_factor 2', fload('nomic-bert-a', { config: { rotary_scaling_factor: 2 } }), T, nomicSettings],
    ['family config', 'nomic_bert: prenorm true', fload('nomic-bert-a', { config: { prenorm: true } }), T, nomicSettings],
    ['family config', 'nomic_bert: rotary_emb_fraction 0.375 (a rotary dim of 3 in a head of 8)', fload('nomic-bert-a', { config: { rotary_emb_fraction: 0.375 } }), T, nomicSettings],
    ['family config', 'modernbert: local_attention −2', fload('modernbert-a', { config: { local_attention: -2 } }), T,
     'modernbert: a negative local_attention is a RangeError naming the field; the model loads afterwards'],
    ['family config', 'modernbert: 32 heads in hidden_size 32 (an odd RoPE head size)', fload('modernbert-b', { config: { num_attention_heads: 32 } }), T, heads],
    ['family config', 'modernbert: hidden_size 32, num_attention_heads 3', fload('modernbert-a', { config: { num_attention_heads: 3 } }), T, heads],
    ['family config', 'nomic_bert: n_embd 32, n_head 5', fload('nomic-bert-a', { config: { n_head: 5 } }), T, heads],
    ['family config', 'mpnet: hidden_size 32, num_attention_heads 3', fload('mpnet-a', { config: { num_attention_heads: 3 } }), T, heads],
    ['family config', 'nomic_bert: config.json without n_embd (GPT-2’s 768 applies)', fload('nomic-bert-a', { config: { n_embd: undefined } }), T, missingField],
    ['family config', 'modernbert: config.json without intermediate_size (1152 applies)', fload('modernbert-a', { config: { intermediate_size: undefined } }), T, missingField],
    ['model file', 'modernbert: layers.1.attn_norm.weight missing', fload('modernbert-a', { drop: ['layers.1.attn_norm.weight'] }), T, missingTensor],
    ['model file', 'nomic_bert: encoder.layers.0.mlp.fc12.weight missing', fload('nomic-bert-a', { drop: ['encoder.layers.0.mlp.fc12.weight'] }), T, missingTensor],
    ['model input', 'modernbert: forward({ text }) without tokenizer.json', fwdText('modernbert-a'), T, noTokenizer],
    ['model input', 'nomic_bert: forward({ text }) without tokenizer.json', fwdText('nomic-bert-a'), T, noTokenizer],
    ['feature-extraction', "nomic_bert: promptName 'query' (nomic-embed's prompts are search_query, …)", async () => {
      const m = await rp.loadModel(nomicSentenceTransformersFiles());
      try {
        return await pipeline('feature-extraction', m)(['a text'], { promptName: 'query' });
      } finally {
        m.dispose();
      }
    }, T, "feature-extraction: a promptName unknown to the model (nomic-embed's prompts) is an Error listing the model's prompts; a known one works afterwards"],
    ['family config', 'mpnet: relative_attention_num_buckets 16', fload('mpnet-a', { config: { relative_attention_num_buckets: 16 } }), T,
     'mpnet: relative_attention_num_buckets below 32 is an Error naming the field and the 32 buckets MPNet always uses; the model loads afterwards'],
    ['model input', 'mpnet: forward({ text }) without tokenizer.json', fwdText('mpnet-a'), T, noTokenizer],
  ];
}

// RoBERTa family / BGE-M3 rows (#40, tests/js/families-roberta.test.mjs): ../shared/fixtures/hf-families-d folders,
// a sequence longer than the id-counted position table allows, BGE-M3 .pt heads swapped (wrong shapes), missing, not a
// torch file.
function robertaRows() {
  const D = join(ROOT, '..', 'shared', 'fixtures', 'hf-families-d');
  if (!existsSync(join(D, 'bge-m3', 'expected.json'))) {
    console.error('robustness-table: the hf-families-d fixtures are needed for the RoBERTa-family / BGE-M3 rows');
    process.exit(1);
  }
  const T = 'families-roberta.test.mjs';
  const name = 'errors: too many tokens for the position table, BGE-M3 heads of the wrong shape or missing';
  const m3 = {};
  for (const f of ['config.json', 'model.safetensors', 'sentencepiece.bpe.model', 'tokenizer_config.json', 'special_tokens_map.json', 'colbert_linear.pt', 'sparse_linear.pt'])
    m3[f] = new Uint8Array(readFileSync(join(D, 'bge-m3', f)));
  const { 'sparse_linear.pt': _, ...noSparse } = m3;
  const tooLong = async () => {
    const m = await rp.loadModel(join(D, 'roberta-a')); // max_position_embeddings 47, pad_token_id 1
    try {
      return m.forward({ inputIds: [new Array(46).fill(5)] });
    } finally {
      m.dispose();
    }
  };
  return [
    ['model input', 'roberta: 46 tokens with max_position_embeddings 47 (positions pad + 1 … need pad + n + 1 rows)', tooLong, T, name],
    ['BGE-M3 head', 'colbert_linear.pt holding sparse_linear.pt\'s [1, H] Linear', () => rp.loadBgeM3({ ...m3, 'colbert_linear.pt': m3['sparse_linear.pt'] }), T, name],
    ['BGE-M3 head', 'sparse_linear.pt holding colbert_linear.pt\'s [H, H] Linear', () => rp.loadBgeM3({ ...m3, 'sparse_linear.pt': m3['colbert_linear.pt'] }), T, name],
    ['BGE-M3 head', 'sparse_linear.pt missing', () => rp.loadBgeM3(noSparse), T, name],
    ['BGE-M3 head', 'colbert_linear.pt of 3 bytes (not a torch file)', () => rp.loadBgeM3({ ...m3, 'colbert_linear.pt': new Uint8Array([1, 2, 3]) }), T, name],
  ];
}

// Qwen3 / Gemma3 rows (#34, tests/js/llm-embedders-errors.test.mjs): ../shared/fixtures/hf-llm-embedders folders with
// config.json fields changed, a q/k norm removed, a sentence-transformers Dense module changed.
function llmRows() {
  if (!haveLlm) {
    console.error('robustness-table: the hf-llm-embedders fixtures are needed for the qwen3 / gemma3_text rows');
    process.exit(1);
  }
  const T = 'llm-embedders-errors.test.mjs';
  const refuse = 'qwen3 / gemma3_text configs and checkpoints relpos cannot run are Errors naming the cause; the runtime stays usable';
  const lload = (name, options) => () => rp.loadModel(llmFiles(name, options));
  return [
    ['family config', 'gemma3_text: layer_types with 2 entries for 3 layers', lload('gemma3-bidir-a', { config: { layer_types: ['sliding_attention', 'full_attention'] } }), T, refuse],
    ['family config', "gemma3_text: layer_types entry 'chunked_attention'", lload('gemma3-bidir-a', { config: { layer_types: ['sliding_attention', 'chunked_attention', 'sliding_attention'] } }), T, refuse],
    ['family config', "qwen3: rope_scaling { rope_type: 'yarn', factor: 4 }", lload('qwen3-embed-right', { config: { rope_scaling: { rope_type: 'yarn', factor: 4 } } }), T, refuse],
    ['family config', 'qwen3: head_dim 8 while q_proj holds 4 heads of 16', lload('qwen3-embed-right', { config: { head_dim: 8 } }), T, refuse],
    ['family config', 'gemma3_text: 2 query heads, num_key_value_heads 3', lload('gemma3-bidir-a', { config: { num_key_value_heads: 3 } }), T, refuse],
    ['model file', 'qwen3: layers.1.self_attn.k_norm.weight missing', lload('qwen3-embed-right', { drop: ['layers.1.self_attn.k_norm.weight'] }), T, refuse],
    ['sentence-transformers', 'Dense 3_Dense with in_features 64 after a 128-feature Dense', lload('gemma3-st-embed', { extra: { '3_Dense/config.json': dense3({ in_features: 64 }) } }), T, refuse],
    ['feature-extraction', "Dense activation_function 'torch.nn.modules.activation.Hardswish'", async () => {
      const m = await rp.loadModel(llmFiles('gemma3-st-embed', { extra: { '3_Dense/config.json': dense3({ activation_function: 'torch.nn.modules.activation.Hardswish' }) } }));
      try {
        return await pipeline('feature-extraction', m)('t5 t6');
      } finally {
        m.dispose();
      }
    }, T, 'a Dense activation relpos does not know: the recipe loads, feature-extraction names it and runs with an explicit pooling'],
  ];
}

// PyTorch checkpoint rows: the hostile files of scripts/make-checkpoint-variants.py.
function checkpointRows() {
  const dir = join(ROOT, 'build', 'checkpoint-variants', 'hostile');
  if (!existsSync(dir)) {
    console.error('robustness-table: run /usr/bin/python3 scripts/make-checkpoint-variants.py for the checkpoint rows');
    process.exit(1);
  }
  const C = 'checkpoints.test.mjs';
  const H = 'hostile and legacy checkpoints are Errors naming the problem; the runtime stays usable';
  const bin = (file) => () => rp.loadModel({ 'config.json': fx.configText, 'pytorch_model.bin': readFileSync(join(dir, file)) });
  return [
    ['checkpoint', 'pickle global os.system', bin('os-system.bin'), C, H],
    ['checkpoint', 'pickle global posix.system (a class with __reduce__)', bin('posix-system.bin'), C, H],
    ['checkpoint', 'pickle global builtins.eval', bin('builtins-eval.bin'), C, H],
    ['checkpoint', 'unknown pickle global', bin('unknown-global.bin'), C, H],
    ['checkpoint', 'bad persistent id', bin('bad-persistent-id.bin'), C, H],
    ['checkpoint', 'storage too small for the tensor view', bin('storage-too-small.bin'), C, H],
    ['checkpoint', 'unsupported storage dtype (float64)', bin('unsupported-dtype.bin'), C, H],
    ['checkpoint', 'truncated zip archive', bin('truncated.bin'), C, H],
    ['checkpoint', 'compressed zip entries', bin('compressed.bin'), C, H],
    ['checkpoint', 'legacy (pre-1.6) PyTorch format', bin('legacy.bin'), C, H],
    ['checkpoint', 'shard named by the index missing', () => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors.index.json': { weight_map: { [W]: 'model-00001-of-00002.safetensors' } } }),
     C, 'a sharded set reports progress for the index and every shard; a missing shard is named'],
    ['checkpoint', "shard name with '..'", () => rp.loadModel({ 'config.json': fx.configText, 'pytorch_model.bin.index.json': { weight_map: { [W]: '../x.bin' } } }),
     C, 'a sharded set reports progress for the index and every shard; a missing shard is named'],
  ];
}

function ggufRows() {
  if (!gguf.haveGguf) {
    console.error('robustness-table: the GGUF fixtures (../shared/fixtures/gguf) are needed for the GGUF rows');
    process.exit(1);
  }
  const T = 'gguf.test.mjs', name = 'hostile GGUF files are Errors naming the file and the problem; a model loads afterwards';
  const load = (bytes) => () => rp.loadModel(bytes);
  return [
    ['GGUF file', 'truncated file (cut inside the vocabulary)', load(gguf.truncated(1500)), T, name],
    ['GGUF file', 'truncated file (cut where an array still claims 100 entries)', load(gguf.truncated(2000)), T, name],
    ['GGUF file', 'a tensor past the end of the file', load(gguf.dataCut()), T, name],
    ['GGUF file', 'unknown ggml type (99)', load(gguf.unknownType()), T, name],
    ['GGUF file', "an architecture relpos does not run ('gptj')", load(gguf.otherArchitecture()), T, name],
    ['GGUF file', 'vocabulary size ≠ token_embd rows', load(gguf.vocabMismatch()), T, name],
    ['GGUF file', 'a 2^40 metadata count', load(gguf.hugeMetadataCount()), T, name],
    ['GGUF file', 'block_count 2^31 − 1 in a 2-block file (a fuzz finding: a per-layer list of that length)', load(gguf.hugeBlockCount()), T, name],
    ['GGUF file', "ambiguous { gguf: 'Q8_0' } in a map of files with two Q8_0 files", () => rp.loadModel({ 'model-dense-q8_0.gguf': gguf.ggufBytes('gemma3-st-embed', 'dense-q8_0'), 'model-q8_0.gguf': gguf.ggufBytes('gemma3-st-embed', 'q8_0') }, { gguf: 'Q8_0' }), T,
     'choosing a GGUF file: ambiguous quantizations and unknown names are Errors listing the files'],
  ];
}

const files = {};
const source = (f) => (files[f] ??= readFileSync(join(ROOT, 'tests/js', f), 'utf8'));
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const short = (m) => (m.length > 300 ? m.slice(0, 300) + '…' : m);
let failed = 0;
const lines = ['| # | class | case | error | message | test |', '| --- | --- | --- | --- | --- | --- |'];
for (const [i, [cls, what, run, file, name, key]] of cases.entries()) {
  if (!source(file).includes(key ?? name)) {
    console.error(`row ${i + 1}: ${file} has no test named "${key ?? name}"`);
    failed++;
  }
  let error = null;
  try {
    await run();
  } catch (e) {
    error = e;
  }
  if (!error) {
    console.error(`row ${i + 1}: "${what}" did not throw`);
    failed++;
    continue;
  }
  lines.push(`| ${i + 1} | ${cell(cls)} | ${cell(what)} | ${error.constructor.name} | \`${cell(short(error.message))}\` | ${file}: ${cell(name)} |`);
}
model.dispose();
console.log(lines.join('\n'));
process.exit(failed ? 1 : 0);
