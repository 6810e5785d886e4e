// Text in, numbers or labels out, over a Model loaded with a tokenizer (web/model.js). One file per
// task in web/pipelines/; this entry picks the task and, given a model source instead of a Model,
// loads it first (like Transformers.js' `await pipeline('feature-extraction', 'owner/name')`).
//
//   const embed = pipeline('feature-extraction', model);
//   const { data, dims } = await embed(['first text', 'second'], { pooling: 'mean', normalize: true });
//   const ner = await pipeline('ner', 'owner/bert-ner');               // loads, then resolves
//   await ner('John lives in Paris', { aggregationStrategy: 'simple' });
// Pipelines run synchronously inside; they return promises so that callers can swap in async back ends.
import { checkKnownOptions, describe } from './validation.js';
import { INIT_OPTIONS } from './loader.js';
import { LOAD_OPTIONS } from './model.js';
import { featureExtraction } from './pipelines/feature-extraction.js';
import { fillMask } from './pipelines/fill-mask.js';
import { questionAnswering } from './pipelines/question-answering.js';
import { requireClassifier, textClassification } from './pipelines/text-classification.js';
import { isReranker } from './pipelines/reranking.js';
import { tokenClassification } from './pipelines/token-classification.js';
import { zeroShotClassification } from './pipelines/zero-shot-classification.js';

export { pool } from './pipelines/feature-extraction.js';

export const PIPELINE_TASKS = Object.freeze([
  'feature-extraction',
  'text-classification',
  'zero-shot-classification',
  'token-classification',
  'question-answering',
  'fill-mask',
]);
/** Other names of tasks, as in Hugging Face. */
export const TASK_ALIASES = Object.freeze({ ner: 'token-classification', 'sentiment-analysis': 'text-classification' });

/** The head each task needs: model.head.task, or null when any model will do. */
const HEAD_OF = {
  'token-classification': 'token-classification',
  'question-answering': 'question-answering',
  'fill-mask': 'fill-mask',
};
const HEAD_NAMES = {
  'token-classification': 'a token-classification head (…ForTokenClassification)',
  'question-answering': 'a question-answering head (…ForQuestionAnswering)',
  'fill-mask': 'a masked-LM head (…ForMaskedLM)',
};

const BUILD = {
  'feature-extraction': featureExtraction,
  'text-classification': textClassification,
  'zero-shot-classification': zeroShotClassification,
  'token-classification': tokenClassification,
  'question-answering': questionAnswering,
  'fill-mask': fillMask,
};

function checkTask(task) {
  const names = [...PIPELINE_TASKS, ...Object.keys(TASK_ALIASES)];
  if (typeof task !== 'string' || !names.includes(task))
    throw new Error(`pipeline: task: expected one of ${names.map((t) => `'${t}'`).join(', ')}, got ${describe(task)}`);
  return TASK_ALIASES[task] ?? task;
}

const isModel = (m) => m !== null && typeof m === 'object' && typeof m.forward === 'function' && 'tokenizer' in m;

function build(task, name, model, loaded) {
  // a causal-LM head (Qwen3-Reranker) is a yes/no reranker in text-classification (pipelines/reranking.js)
  if ((task === 'text-classification' && !isReranker(model)) || task === 'zero-shot-classification') requireClassifier(model, name);
  const needs = HEAD_OF[task];
  if (needs && model.head?.task !== needs) {
    const has = model.head ? `a ${model.head.task} head` : 'no task head';
    throw new Error(`${name}: the checkpoint has ${has}; this task needs ${HEAD_NAMES[task]}`);
  }
  const run = BUILD[task](model, name);
  Object.defineProperties(run, {
    task: { value: task, enumerable: true },
    model: { value: model, enumerable: true },
    /** Frees the model when the pipeline loaded it (a Model you passed stays yours). */
    dispose: { value: () => (loaded ? model.dispose() : undefined) },
  });
  return run;
}

const PIPELINE_OPTIONS = [...LOAD_OPTIONS, 'runtime', ...INIT_OPTIONS];
const runtimes = new Map(); // init options (JSON) → Promise of the runtime pipeline(task, source) made with them
let makeRuntime = null;
/** Set by web/index.js: how pipeline(task, source) makes its runtime (init(options)). */
export function setRuntimeFactory(factory) {
  makeRuntime = factory;
}

/** The runtime made once per distinct init options (threads, simd, wasmPaths). */
async function sharedRuntime(initOptions) {
  const key = JSON.stringify(initOptions);
  if (!runtimes.has(key)) runtimes.set(key, makeRuntime(initOptions));
  try {
    return await runtimes.get(key);
  } catch (e) {
    runtimes.delete(key); // a later call may try again
    throw e;
  }
}

/**
 * pipeline(task, model) → the task's async function (see index.d.ts). pipeline(task, source,
 * options) with a model source (Hub id, URL, folder, files) → a Promise of it: the model is loaded
 * by options.runtime (a Relpos), else by a runtime made once per init options (threads, simd,
 * wasmPaths: init's, e.g. { threads: 2 }); the other options go to loadModel (dtype, variant, host,
 * revision, onProgress, …). Unknown option names are TypeErrors naming the closest known one.
 */
export function pipeline(task, model, options = {}) {
  const name = typeof task === 'string' && TASK_ALIASES[task] ? task : undefined;
  const t = checkTask(task);
  checkKnownOptions(options, 'pipeline: options', PIPELINE_OPTIONS);
  const given = Object.keys(options).filter((k) => options[k] !== undefined);
  if (isModel(model)) {
    if (given.length)
      throw new TypeError(`pipeline: options: '${given[0]}' is an option for loading a model (init or rp.loadModel), and this model is loaded already: give it there, or pass pipeline() a model source instead`);
    return build(t, name ?? t, model, false);
  }
  if (model === undefined || model === null || typeof model === 'number' || typeof model === 'boolean')
    throw new TypeError(`pipeline: model: expected a model from rp.loadModel() or a model source (Hub id, URL, folder, files), got ${describe(model)}`);
  const { runtime, simd, wasmPaths, threads, ...loadOptions } = options;
  const initOptions = Object.fromEntries(Object.entries({ simd, wasmPaths, threads }).filter(([, v]) => v !== undefined));
  const hasRuntime = runtime !== undefined && runtime !== null;
  if (hasRuntime && Object.keys(initOptions).length)
    throw new TypeError(`pipeline: options: '${Object.keys(initOptions)[0]}' is an init() option, but options.runtime is initialised already: give one or the other`);
  return (async () => {
    if (hasRuntime && typeof runtime?.loadModel !== 'function') throw new TypeError(`pipeline: options.runtime: expected a runtime from init(), got ${describe(runtime)}`);
    const rp = hasRuntime ? runtime : await sharedRuntime(initOptions);
    const loaded = await rp.loadModel(model, loadOptions);
    try {
      return build(t, name ?? t, loaded, true);
    } catch (e) {
      loaded.dispose();
      throw e;
    }
  })();
}
