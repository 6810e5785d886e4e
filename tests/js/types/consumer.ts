// A consumer of the package's public types, compiled with `tsc --noEmit` by tests/js/types.test.mjs.
// Imports the package by name, so the "exports" map's "types" condition is what resolves it.
import relpos, { init, pipeline, simdSupported, SCHEME_TYPES, version } from 'relpos';
import type { Answer, AttentionOptions, AttentionResult, EntityGroup, FillMaskResult, ForwardResult, LabelScore, Model, Relpos, Scheme, SchemeType, TokenEntity, ZeroShotResult } from 'relpos';

async function models(rp: Relpos): Promise<number> {
  const model: Model = await rp.loadModel('https://example.com/model/', {
    onProgress: ({ file, loaded, total }) => console.log(file, loaded, total ?? '?'),
  });
  const hub = await rp.loadModel('microsoft/deberta-v3-xsmall', {
    host: 'https://hub.example.com', revision: 'main', cache: false,
    onProgress: ({ file, cached }) => console.log(file, cached ? '(cache)' : ''),
  });
  const big = await rp.loadModel('./embeddinggemma-300m/', {
    dtype: 'q8',
    onProgress: ({ stage, file, loaded, total, convertedBytes }) => {
      const converting: boolean = stage === 'convert';
      const held: number = convertedBytes ?? 0;
      console.log(converting, file, loaded, total, held);
    },
  });
  big.dispose();
  const removed: number = (await rp.clearCache()) + (await relpos.clearCache());
  hub.dispose();
  void removed;
  const picked = await rp.loadModel({ 'config.json': new Blob(['{}']), 'model.safetensors': new ArrayBuffer(8) });
  const small = await rp.loadModel('https://example.com/model/', { dtype: 'q8' });
  const held: number = small.info.weightBytes + (small.info.dtype === 'q8' ? 1 : 0);
  const gpu = await rp.loadModel('https://example.com/model/', { device: 'auto' });
  const onGpu: ForwardResult = await gpu.forwardAsync({ inputIds: [[1, 2]] });
  const where: string = gpu.info.device + (gpu.info.deviceReason ?? '') + (gpu.info.adapter?.vendor ?? '') + onGpu.lastHiddenState.dims.length;
  const lost: string = gpu.info.deviceLost ? `${gpu.info.deviceLost.reason}: ${gpu.info.deviceLost.message}` : 'device ok';
  const plain = await rp.loadModel('https://example.com/model/', { device: 'webgpu', subgroups: false });
  const path: boolean = plain.info.adapter?.subgroups ?? false;
  const sizes: number = (plain.info.adapter?.subgroupMinSize ?? 0) + (plain.info.adapter?.subgroupMaxSize ?? 0);
  void where;
  void lost;
  void path;
  void sizes;
  const r: ForwardResult = model.forward({ inputIds: [[1, 2, 3]], attentionMask: [[1, 1, 1]] }, { outputAttentions: true });
  const t = model.forward({ text: ['a', 'b'] }, { outputHiddenStates: true });
  const embed = await pipeline('feature-extraction', model)(['a b'], { pooling: 'mean', normalize: true });
  const top: LabelScore[] = await pipeline('text-classification', model)('text', { topK: 2 });
  const zs: ZeroShotResult = await pipeline('zero-shot-classification', model)('text', ['x', 'y']);
  void picked.info.causal;
  picked[Symbol.dispose]();  // `using` is in consumer-esnext.ts (target esnext)
  model.dispose();
  return r.lastHiddenState.data.length + (r.attentions?.[0].dims[1] ?? 0) + (t.tokens?.length ?? 0) + embed.dims[0] +
    top.length + zs.scores.length + rp.modelTypes.length + (model.labels?.length ?? 0) + model.info.hiddenSize + held;
}
void models;

async function tasks(rp: Relpos, model: Model): Promise<number> {
  const tokens: TokenEntity[] = await pipeline('ner', model)('John lives in Paris', { ignoreLabels: [] });
  const groups: EntityGroup[][] = await pipeline('token-classification', model)(['a', 'b'], { aggregationStrategy: 'first', batchSize: 2 });
  const answer = await pipeline('question-answering', model)({ question: 'Where?', context: 'In Paris.' }, { topK: 2, docStride: 16, maxSeqLen: 64, maxAnswerLen: 5, handleImpossibleAnswer: true });
  const first: Answer = Array.isArray(answer) ? answer[0] : answer;
  const jsStyle = await pipeline('question-answering', model)('Where?', 'In Paris.');
  const fills = await pipeline('fill-mask', model)('Paris is the [MASK].', { topK: 3, targets: ['city'] });
  const fill: FillMaskResult = (fills as FillMaskResult[])[0];
  const best: LabelScore = await pipeline('text-classification', model)({ text: 'q', textPair: 'doc' }, { functionToApply: 'sigmoid' });
  const ranked: LabelScore[][] = await pipeline('text-classification', model)([{ text: 'q', textPair: 'd' }], { topK: null });
  const loaded = await pipeline('feature-extraction', 'sentence-transformers/all-MiniLM-L6-v2', { runtime: rp, variant: 'fp16', dtype: 'q8' });
  const v = await loaded(['x'], { truncation: true, maxLength: 128, batchSize: 8 });
  const m = await loaded('x', { promptName: 'query', prompt: 'q: ', dimensions: 64, includePrompt: false, pooling: 'last_token' });
  const from: string = loaded.defaults.from.pooling + (loaded.model.sentenceTransformers?.files.join() ?? '') + m.dims[1];
  void from;
  loaded.dispose();
  // @ts-expect-error aggregationStrategy is one of five names
  await pipeline('ner', model)('x', { aggregationStrategy: 'mean' });
  // @ts-expect-error a pipeline needs a model or a source
  pipeline('fill-mask', 42);
  return tokens.length + groups.length + first.start + fill.score + best.score + ranked.length + v.dims[0] + (Array.isArray(jsStyle) ? 0 : jsStyle.end) + loaded.model.info.hiddenSize;
}
void tasks;

async function main(): Promise<number> {
  const rp: Relpos = await init({ simd: simdSupported() ? 'auto' : false, wasmPaths: '/static/relpos/' });
  await relpos.init({ wasmPaths: { 'relpos-simd.wasm': new URL('https://cdn.example.com/relpos-simd.wasm') } });
  const batch = 1, heads = 2, seqLen = 3, headDim = 4;
  const n = batch * heads * seqLen * headDim;
  const schemes: Scheme[] = [
    { type: 'none' },
    { type: 'sinusoidal', layout: 'concatenated', base: 10000 },
    { type: 'learned-absolute', table: new Float32Array(seqLen * headDim) },
    { type: 'mlp', hidden: 5, w1: new Float32Array(5), b1: new Float32Array(5), w2: new Float32Array(20), b2: new Float32Array(4) },
    { type: 'shaw', maxDistance: 2, keyTable: new Float32Array(20), valueTable: new Float32Array(20) },
    { type: 'bert-relative', maxPositions: 4, keyQuery: true, table: new Float32Array(28) },
    { type: 'huang', maxDistance: 2, table: new Float32Array(20) },
    { type: 'huang' },
    { type: 'transformer-xl', dModel: 8, clampLen: 0, u: new Float32Array(8), v: new Float32Array(8), wKR: new Float32Array(64) },
    { type: 't5', numBuckets: 32, maxDistance: 128, bidirectional: true, biasTable: new Float32Array(64) },
    { type: 'tupe', posDim: 4, positions: new Float32Array(12), uQ: new Float32Array(32), uK: new Float32Array(32) },
    { type: 'deberta', buckets: 256, maxRelative: 512, terms: ['c2p', 'p2c'], posKey: new Float32Array(1), posQuery: new Float32Array(1) },
    { type: 'rope', layout: 'half', theta: 10000, rotaryDim: 4 },
    { type: 'alibi', slopes: 'bloom' },
    { type: 'alibi', slopes: new Float32Array([0.5, 0.25]), biasMax: 8, symmetric: true },
  ];
  const options: AttentionOptions = {
    q: new Float32Array(n), k: new Float32Array(n), v: new Float32Array(n),
    batch, heads, seqLen, headDim, mask: new Uint8Array(batch * seqLen), causal: true,
    scheme: schemes[0], returnProbs: true, returnTerms: true,
  };
  const r: AttentionResult = rp.attention(options);
  const content: Float32Array | undefined = r.terms?.content;
  const out: Float32Array = r.output;
  const types: readonly SchemeType[] = rp.schemes;
  const buckets: Int32Array = rp.positions.t5BucketTable(seqLen, { bidirectional: false, numBuckets: 32, maxDistance: 128 });
  const { cos, sin } = rp.positions.ropeTables(seqLen, headDim, { layout: 'interleaved' });
  const bias: Float32Array = rp.positions.alibiBias(seqLen, rp.positions.alibiSlopes(heads, 'mpt'), { symmetric: false });
  const table: Float32Array = rp.positions.sinusoidTable(seqLen, headDim, { layout: 'interleaved', firstPosition: 0 });
  const span: number = rp.positions.debertaSpan({ buckets: 256, maxRelative: 512 });
  const simd: boolean = rp.simd;
  const v: string = rp.version + version + SCHEME_TYPES.join();
  const scoped = await init();
  scoped.attention({ ...options, scheme: { type: 'rope' } });
  scoped[Symbol.dispose]();
  rp.dispose();
  return out.length + (content?.length ?? 0) + types.length + buckets.length + cos.length + sin.length + bias.length +
    table.length + span + Number(simd) + v.length + rp.heapBytes + rp.positions.shawIndexTable(3, 2).length;
}

// @ts-expect-error an unknown scheme type is rejected
const bad: Scheme = { type: 'xpos' };
// @ts-expect-error q must be a Float32Array
const badOptions: AttentionOptions = { q: [1], k: new Float32Array(1), v: new Float32Array(1), batch: 1, heads: 1, seqLen: 1, headDim: 1, scheme: { type: 'none' } };
// @ts-expect-error a T5 scheme needs its bias table
const noTable: Scheme = { type: 't5', numBuckets: 32 };

void main;
void bad;
void badOptions;
void noTable;

// The lab: through 'relpos' and through 'relpos/lab'.
import { lab } from 'relpos';
import labDefault, { SCHEMES, TASKS } from 'relpos/lab';
import type { LabAttention, LabEvaluation, LabProgress, LabRun, LabTrainOptions } from 'relpos';

async function labRun(signal: AbortSignal): Promise<number> {
  const options: LabTrainOptions = {
    task: lab.TASKS[0], scheme: 'shaw', trainLength: 16, steps: 100, batch: 16, model: { dim: 32, layers: 2, heads: 4 },
    seed: 1, lr: 3e-3, k: 3, symbols: 8, maxLength: 64, build: 'scalar', progressEvery: 5,
    onProgress: ({ step, steps, loss, learningRate, seconds }: LabProgress) => console.log(step, steps, loss, learningRate, seconds), signal,
  };
  const run: LabRun = await labDefault.train(options);
  const evals: LabEvaluation[] = await run.evaluate([16, 32, 64], { batches: 8 });
  const a: LabAttention = await run.attention({ length: 32, seed: 2 });
  const causal: boolean = run.config.causal;
  run.dispose();
  { const scoped = await relpos.lab.train({ scheme: SCHEMES[5] }); void scoped.losses; scoped[Symbol.dispose](); }
  return evals[0].perPosition.length + a.maps[0].length + run.losses.length + run.seconds + run.flops +
    (causal ? 1 : 0) + TASKS.length + lab.DEFAULTS.model.dim + run.config.maxLength + a.tokens.length;
}
void labRun;
