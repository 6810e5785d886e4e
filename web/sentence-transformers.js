// The sentence-transformers recipe saved beside a checkpoint's weights, read by loadModel so that
// pipeline('feature-extraction') can embed the way SentenceTransformer.encode() does:
//   modules.json                        [{ idx, name, path, type }]: Transformer → Pooling → Dense* → Normalize?
//   {Dense path}/config.json + model.safetensors   in/out features, bias, activation; linear.weight (web/st-dense.js)
//   {Pooling path}/config.json          pooling_mode_* booleans or pooling_mode (string or list),
//                                       word_embedding_dimension / embedding_dimension, include_prompt
//   config_sentence_transformers.json   prompts { name: text }, default_prompt_name
//   sentence_bert_config.json           max_seq_length, do_lower_case (the Transformer module's)
// The files are read only when modules.json exists (as sentence-transformers itself does). A file that
// is not what its format says (not JSON, a field of the wrong type, an unknown pooling mode, a module
// path leaving the folder, a default prompt that is not among the prompts) is an Error naming the
// file and the problem; loading stops there and nothing is allocated. A valid recipe that relpos
// cannot run (max / weighted pooling, several modes concatenated, a Dense activation it does not know, a
// Dense saved only as pytorch_model.bin, other modules) loads, with
// `unsupported` saying why: the pipeline then needs the caller's `pooling` (web/pipelines/feature-extraction.js).
import { describe as describeValue } from './validation.js';
import { DENSE_ACTIVATIONS, loadDense, parseDenseConfig } from './st-dense.js';
import { readBytes } from './tokenizer.js';

export const ST_FILES = Object.freeze({
  modules: 'modules.json',
  config: 'config_sentence_transformers.json',
  transformer: 'sentence_bert_config.json',
  /** The Pooling module's config.json, in the folder modules.json names (e.g. '1_Pooling'). */
  pooling: (path) => (path === '' ? 'config.json' : `${path}/config.json`),
  /** A Dense module's config and weights, in its folder (e.g. '2_Dense'). */
  denseConfig: (path) => (path === '' ? 'config.json' : `${path}/config.json`),
  denseWeights: (path) => (path === '' ? 'model.safetensors' : `${path}/model.safetensors`),
});

/** Pooling modes of sentence-transformers' Pooling, in its concatenation order, by legacy key. */
const LEGACY_MODES = Object.freeze({
  pooling_mode_cls_token: 'cls',
  pooling_mode_max_tokens: 'max',
  pooling_mode_mean_tokens: 'mean',
  pooling_mode_mean_sqrt_len_tokens: 'mean_sqrt_len_tokens',
  pooling_mode_weightedmean_tokens: 'weightedmean',
  pooling_mode_lasttoken: 'lasttoken',
});
export const ST_POOLING_MODES = Object.freeze(Object.values(LEGACY_MODES));
/** The modes relpos runs, and the feature-extraction pipeline's name for each. */
export const POOLING_OF_MODE = Object.freeze({ cls: 'cls', mean: 'mean', lasttoken: 'last_token' });

/** Module kinds by the class name at the end of a sentence_transformers type ('sentence_transformers.models.Pooling'). */
const KINDS = Object.freeze({ Transformer: 'transformer', Pooling: 'pooling', Dense: 'dense', Normalize: 'normalize', Dropout: 'dropout' });

/** A JSON value in a message (validation.js's describe, but a parsed object is 'an object' whatever its keys). */
const describe = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? 'an object' : describeValue(v));
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const fail = (file, what) => new Error(`${file}: ${what}`);
const quoted = (names) => names.map((n) => `'${n}'`).join(', ');

/** Parses a file's text as JSON; an Error naming the file otherwise. */
export function parseJson(text, file) {
  if (typeof text !== 'string') throw fail(file, `expected JSON text, got ${describe(text)}`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${e.message}`, { cause: e });
  }
}

/** A module path: '' (the folder itself) or relative folder names without '.', '..', '\\' or a leading '/'. */
function checkModulePath(path, file, at) {
  if (typeof path !== 'string') throw fail(file, `${at}.path: expected a folder name such as '1_Pooling' (or '' for the model folder), got ${describe(path)}`);
  if (path === '') return path;
  const parts = path.replace(/\/+$/, '').split('/');
  if (/[\\\0]/.test(path) || path.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..'))
    throw fail(file, `${at}.path: ${JSON.stringify(path)} must be a relative folder inside the model folder (no '..', '.', '\\' or leading '/')`);
  return parts.join('/');
}

/** modules.json → [{ idx, name, path, type, kind }] (kind null for modules relpos does not know). */
export function parseModules(value, file = ST_FILES.modules) {
  if (!Array.isArray(value)) throw fail(file, `expected a JSON array of modules ({ idx, name, path, type }), got ${describe(value)}`);
  if (value.length === 0) throw fail(file, 'expected at least one module, got an empty array');
  return value.map((m, i) => {
    const at = `module ${i}`;
    if (!isPlainObject(m)) throw fail(file, `${at}: expected an object { idx, name, path, type }, got ${describe(m)}`);
    if (typeof m.type !== 'string' || m.type === '')
      throw fail(file, `${at}.type: expected a class name such as 'sentence_transformers.models.Pooling', got ${describe(m.type)}`);
    const path = checkModulePath(m.path, file, at);
    if (m.idx !== undefined && !(Number.isInteger(m.idx) && m.idx >= 0)) throw fail(file, `${at}.idx: expected a non-negative integer, got ${describe(m.idx)}`);
    if (m.name !== undefined && typeof m.name !== 'string') throw fail(file, `${at}.name: expected a string, got ${describe(m.name)}`);
    const cls = m.type.startsWith('sentence_transformers.') ? m.type.slice(m.type.lastIndexOf('.') + 1) : null;
    return Object.freeze({ idx: m.idx ?? i, name: m.name ?? String(i), path, type: m.type, kind: KINDS[cls] ?? null });
  });
}

/** The Pooling config.json → { modes, includePrompt, dimension }. */
export function parsePooling(value, file) {
  if (!isPlainObject(value)) throw fail(file, `expected a JSON object (the Pooling module's config), got ${describe(value)}`);
  let dimension = null;
  for (const key of ['word_embedding_dimension', 'embedding_dimension']) {
    const d = value[key];
    if (d === undefined || d === null) continue;
    if (!Number.isInteger(d) || d < 1) throw fail(file, `${key}: expected a positive integer, got ${describe(d)}`);
    if (dimension !== null && d !== dimension) throw fail(file, `word_embedding_dimension ${dimension} and embedding_dimension ${d} disagree`);
    dimension = d;
  }
  let modes;
  if (value.pooling_mode !== undefined && value.pooling_mode !== null) {
    const given = value.pooling_mode;
    const list = typeof given === 'string' ? [given] : given;
    if (!Array.isArray(list) || list.length === 0 || list.some((m) => typeof m !== 'string'))
      throw fail(file, `pooling_mode: expected one of ${quoted(ST_POOLING_MODES)} or a non-empty list of them, got ${describe(given)}`);
    for (const m of list) if (!ST_POOLING_MODES.includes(m)) throw fail(file, `pooling_mode: unknown mode ${JSON.stringify(m)} (known: ${quoted(ST_POOLING_MODES)})`);
    modes = [...list];
  } else {
    modes = [];
    for (const [key, mode] of Object.entries(LEGACY_MODES)) {
      const on = value[key];
      if (on === undefined || on === null) continue;
      if (typeof on !== 'boolean') throw fail(file, `${key}: expected true or false, got ${describe(on)}`);
      if (on) modes.push(mode);
    }
    if (modes.length === 0) modes = ['mean']; // sentence-transformers' default when every flag is off
  }
  const includePrompt = value.include_prompt ?? true;
  if (typeof includePrompt !== 'boolean') throw fail(file, `include_prompt: expected true or false, got ${describe(includePrompt)}`);
  return { modes: Object.freeze(modes), includePrompt, dimension };
}

/** config_sentence_transformers.json → { prompts, defaultPromptName }. */
export function parseSentenceTransformersConfig(value, file = ST_FILES.config) {
  if (!isPlainObject(value)) throw fail(file, `expected a JSON object, got ${describe(value)}`);
  const entries = [];
  if (value.prompts !== undefined && value.prompts !== null) {
    if (!isPlainObject(value.prompts)) throw fail(file, `prompts: expected an object { name: prompt text }, got ${describe(value.prompts)}`);
    for (const [name, text] of Object.entries(value.prompts)) {
      if (typeof text !== 'string') throw fail(file, `prompts[${JSON.stringify(name)}]: expected the prompt's text (a string), got ${describe(text)}`);
      entries.push([name, text]);
    }
  }
  // fromEntries defines own properties, so a prompt named '__proto__' stays a prompt
  const prompts = Object.freeze(Object.fromEntries(entries));
  const defaultPromptName = value.default_prompt_name ?? null;
  if (defaultPromptName !== null) {
    if (typeof defaultPromptName !== 'string') throw fail(file, `default_prompt_name: expected a prompt name or null, got ${describe(defaultPromptName)}`);
    if (!Object.prototype.hasOwnProperty.call(prompts, defaultPromptName)) {
      const known = Object.keys(prompts);
      throw fail(file, `default_prompt_name ${JSON.stringify(defaultPromptName)} is not among the prompts (${known.length ? quoted(known) : 'there are none'})`);
    }
  }
  return { prompts, defaultPromptName };
}

/** sentence_bert_config.json → { maxSeqLength, doLowerCase }. */
export function parseTransformerConfig(value, file = ST_FILES.transformer) {
  if (!isPlainObject(value)) throw fail(file, `expected a JSON object, got ${describe(value)}`);
  const maxSeqLength = value.max_seq_length ?? null;
  if (maxSeqLength !== null && !(Number.isInteger(maxSeqLength) && maxSeqLength >= 1))
    throw fail(file, `max_seq_length: expected a positive integer or null, got ${describe(maxSeqLength)}`);
  const doLowerCase = value.do_lower_case ?? false;
  if (typeof doLowerCase !== 'boolean') throw fail(file, `do_lower_case: expected true or false, got ${describe(doLowerCase)}`);
  return { maxSeqLength, doLowerCase };
}

/**
 * Why relpos cannot run these modules as sentence-transformers would, or null. Runs: Transformer,
 * then Pooling (one mode: cls, mean or lasttoken), then any Dense modules, then optionally Normalize;
 * Dropout anywhere (the identity at inference).
 */
function unsupportedReason(modules, pooling, denseIssue) {
  const known = modules.filter((m) => m.kind !== 'dropout');
  const other = known.find((m) => m.kind === null);
  if (other) return `modules.json: module ${JSON.stringify(other.name)} (${other.type}) is not run by relpos (it runs Transformer, Pooling, Dense and Normalize)`;
  const kinds = known.map((m) => m.kind).join(',');
  if (!/^transformer,pooling(,dense)*(,normalize)?$/.test(kinds))
    return `modules.json: the modules ${known.map((m) => m.type.slice(m.type.lastIndexOf('.') + 1)).join(' → ')} are not Transformer → Pooling (→ Dense …) (→ Normalize), which is what relpos runs`;
  if (denseIssue) return denseIssue;
  if (pooling.modes.length > 1) return `${pooling.file}: pooling modes ${quoted(pooling.modes)} concatenated are not implemented by relpos (one of ${quoted(Object.keys(POOLING_OF_MODE))})`;
  if (!POOLING_OF_MODE[pooling.modes[0]]) return `${pooling.file}: pooling mode '${pooling.modes[0]}' is not implemented by relpos (supported: ${quoted(Object.keys(POOLING_OF_MODE))})`;
  return null;
}

/**
 * Reads the recipe from a source (sources.js reader), or resolves to null without modules.json.
 * `report(name)` → a progress function (loaded, total) for that file. The Pooling module's
 * dimension (poolingDimension) is checked against the model's hidden size by loadModel.
 */
export async function readSentenceTransformers(src, { report = () => () => {} } = {}) {
  const read = async (name) => {
    const text = await src.text(name);
    if (text === null) return null;
    report(name)(text.length, text.length);
    return parseJson(text, name);
  };
  const modulesValue = await read(ST_FILES.modules);
  if (modulesValue === null) return null;
  const modules = parseModules(modulesValue);
  const files = [ST_FILES.modules];

  const poolings = modules.filter((m) => m.kind === 'pooling');
  let pooling = null;
  if (poolings.length > 0) {
    if (poolings.length > 1) throw fail(ST_FILES.modules, `expected at most one Pooling module, got ${poolings.length}`);
    const file = ST_FILES.pooling(poolings[0].path);
    const value = await read(file);
    if (value === null) throw new Error(`${file}: not found at ${src.where(file)} (modules.json names a Pooling module in '${poolings[0].path}')`);
    pooling = { ...parsePooling(value, file), file };
    files.push(file);
  }

  let prompts = Object.freeze({});
  let defaultPromptName = null;
  const configValue = await read(ST_FILES.config);
  if (configValue !== null) {
    ({ prompts, defaultPromptName } = parseSentenceTransformersConfig(configValue));
    files.push(ST_FILES.config);
  }

  let maxSeqLength = null;
  let doLowerCase = false;
  const transformer = modules.find((m) => m.kind === 'transformer');
  if (transformer && transformer.path === '') {
    const value = await read(ST_FILES.transformer);
    if (value !== null) {
      ({ maxSeqLength, doLowerCase } = parseTransformerConfig(value));
      files.push(ST_FILES.transformer);
    }
  }

  // Dense modules, in order: their configs must chain from the Pooling dimension (checked against the model's
  // hidden size by loadModel); weights are read only when relpos can run the module.
  const dense = [];
  let denseIssue = null;
  let features = pooling?.dimension ?? null;
  for (const m of modules.filter((x) => x.kind === 'dense')) {
    const file = ST_FILES.denseConfig(m.path);
    const value = await read(file);
    if (value === null) throw new Error(`${file}: not found at ${src.where(file)} (modules.json names a Dense module in '${m.path}')`);
    const config = parseDenseConfig(value, file);
    files.push(file);
    if (features !== null && config.inFeatures !== features)
      throw new Error(`${file}: in_features ${config.inFeatures} does not match the ${features} features the module before it gives (modules.json: ${modules.map((x) => x.name).join(' → ')})`);
    features = config.outFeatures;
    if (!DENSE_ACTIVATIONS[config.activation]) {
      denseIssue ??= `${file}: activation_function '${config.activation}' is not run by relpos (supported: ${quoted(Object.keys(DENSE_ACTIVATIONS))})`;
      continue;
    }
    const weightsFile = ST_FILES.denseWeights(m.path);
    const bytes = await readBytes(src, weightsFile, report(weightsFile));
    if (bytes === null) {
      denseIssue ??= `${weightsFile}: not found at ${src.where(weightsFile)} (relpos reads a Dense module's weights from model.safetensors only)`;
      continue;
    }
    files.push(weightsFile);
    dense.push(loadDense(config, bytes, weightsFile));
  }

  const unsupported = pooling ? unsupportedReason(modules, pooling, denseIssue) : 'modules.json: no Pooling module, so sentence-transformers gives no sentence embedding';
  return Object.freeze({
    files: Object.freeze(files),
    modules: Object.freeze(modules),
    pooling: pooling && !unsupported ? POOLING_OF_MODE[pooling.modes[0]] : null,
    poolingModes: pooling ? pooling.modes : Object.freeze([]),
    poolingFile: pooling ? pooling.file : null,
    poolingDimension: pooling ? pooling.dimension : null,
    includePrompt: pooling ? pooling.includePrompt : true,
    normalize: modules.some((m) => m.kind === 'normalize'),
    /** The Dense modules between Pooling and Normalize, in order (web/st-dense.js loadDense), [] when none. */
    dense: Object.freeze(dense),
    /** Features of the sentence embedding: the last Dense module's out_features, else the Pooling dimension. */
    embeddingDimension: features,
    prompts,
    defaultPromptName,
    maxSeqLength,
    doLowerCase,
    unsupported,
  });
}
