// GGUF files (llama.cpp / Ollama) as a model source: which file, streamed through the C++ reader and converted as
// it arrives (cpp/src/io/gguf*.cpp, models/layers/streamed_checkpoint.h), the tokenizer and the pooling recipe
// from its metadata.
//
//   ggufSource(source, options)  → null, or { src, file }: the GGUF file to load, when
//     - source is a path or URL ending in '.gguf' (a file: URL, http(s), or a Node path), or the file's bytes
//       (ArrayBuffer, Uint8Array, Blob / File starting with "GGUF");
//     - options.gguf names a file ('model-q8_0.gguf') or a quantization ('Q8_0', 'q4_k_m') of a folder, a map of
//       files or a Hub repository (Hub ids and URL prefixes cannot be listed, so there it must be a file name).
//   ggufInFolder(names) → the one GGUF file of a folder or map of files without config.json (web/model.js asks when
//     its listing holds GGUF files), else an Error listing them.
//   loadGguf(mod, src, file, { dtype, onProgress, tokenizers }) → { handle, config, tokenizer, recipe, gguf }
//     config: the family's config.json as relpos maps the metadata (Hugging Face names; pad_token_id from the
//     tokenizer metadata); recipe: the sentence-transformers-style defaults of pipeline('feature-extraction')
//     (pooling from <arch>.pooling_type: 1 mean, 2 cls, 3 last token; normalize true, as llama.cpp's
//     llama-embedding does by default; EmbeddingGemma's Dense layers dense_2 / dense_3 when the file has them);
//     gguf: { file, architecture, metadata (scalars and arrays of ≤ 64 entries), rankLabels (a RANK-pooling
//     reranker's classifier.output_labels, e.g. ['yes', 'no']) }.
import { unwrap } from '../positions.js';
import { describe } from '../validation.js';
import { openSource, CHUNK_BYTES } from '../sources.js';
import { converting, reporter, streamSafetensors } from '../weights.js';
import { ggufTokenizer } from '../tokenizers/gguf.js';

const isBlob = (v) => typeof Blob !== 'undefined' && v instanceof Blob;
const GGUF_NAME = /\.gguf$/i;
const POOLING = { 1: 'mean', 2: 'cls', 3: 'last_token' };

function splitLocation(text) {
  if (/^(https?|file|data|blob):/i.test(text)) {
    const url = new URL(text);
    const name = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf('/') + 1));
    return { folder: new URL('.', url).href, file: name };
  }
  const cut = Math.max(text.lastIndexOf('/'), text.lastIndexOf('\\'));
  // 'hf:owner/name/file.gguf' is a Hub repository's file; any other folder keeps its trailing '/', so that
  // 'models/x.gguf' is the folder 'models/', never the Hub id 'models' (hub.js's rule)
  if (text.startsWith('hf:') && cut > 0) return { folder: text.slice(0, cut), file: text.slice(cut + 1) };
  return { folder: cut < 0 ? './' : text.slice(0, cut + 1), file: text.slice(cut + 1) };
}

async function startsWithMagic(v) {
  const head = isBlob(v) ? new Uint8Array(await v.slice(0, 4).arrayBuffer()) : v instanceof ArrayBuffer ? new Uint8Array(v, 0, Math.min(4, v.byteLength)) : new Uint8Array(v.buffer, v.byteOffset, Math.min(4, v.byteLength));
  return head.length === 4 && head[0] === 0x47 && head[1] === 0x47 && head[2] === 0x55 && head[3] === 0x46;
}

/** The GGUF files a listable source holds, sorted. */
async function ggufFiles(src) {
  return typeof src.list === 'function' ? (await src.list()).filter((n) => GGUF_NAME.test(n)).sort() : null;
}

/** options.gguf (a file name, or a quantization such as 'Q8_0' between separators of the name) → one file name. */
function pick(files, wanted, where) {
  if (GGUF_NAME.test(wanted) && (files === null || files.includes(wanted))) return wanted;
  if (files === null)
    throw new Error(`loadModel: gguf: '${wanted}' is not a file name, and ${where} cannot be listed to find the file of that quantization; pass the file name, e.g. { gguf: 'model-${wanted}.gguf' }`);
  const token = wanted.toLowerCase().replace(/\.gguf$/i, '');
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(^|[-_.])${escaped}([-_.]|$)`);
  const found = files.filter((f) => pattern.test(f.toLowerCase().replace(/\.gguf$/, '')));
  if (found.length === 1) return found[0];
  const list = files.length ? files.join(', ') : 'none';
  if (found.length === 0) throw new Error(`loadModel: gguf: no GGUF file of ${where} matches '${wanted}' (its GGUF files: ${list})`);
  throw new Error(`loadModel: gguf: '${wanted}' matches several GGUF files of ${where}: ${found.join(', ')}; pass the file name`);
}

/** See the top of this file. */
export async function ggufSource(source, options = {}) {
  const wanted = options.gguf;
  if (wanted !== undefined && wanted !== null && (typeof wanted !== 'string' || wanted === ''))
    throw new TypeError(`loadModel: gguf: expected a GGUF file name or a quantization such as 'Q8_0', got ${describe(wanted)}`);
  if (source instanceof URL) source = source.href;
  if ((source instanceof ArrayBuffer || ArrayBuffer.isView(source) || isBlob(source)) && (await startsWithMagic(source))) {
    const file = isBlob(source) && typeof source.name === 'string' && GGUF_NAME.test(source.name) ? source.name : 'model.gguf';
    return { src: await openSource({ [file]: source }, options), file };
  }
  if (typeof source === 'string' && GGUF_NAME.test(source.replace(/[?#].*$/, ''))) {
    const { folder, file } = splitLocation(source.replace(/[?#].*$/, ''));
    return { src: await openSource(folder, options), file };
  }
  if (typeof source !== 'string' && (source === null || typeof source !== 'object' || Array.isArray(source) || ArrayBuffer.isView(source) || source instanceof ArrayBuffer || isBlob(source))) return null;
  if (wanted !== undefined && wanted !== null) {
    const src = await openSource(source, options);
    return { src, file: pick(await ggufFiles(src), wanted, typeof source === 'string' ? `'${source}'` : 'the map of files') };
  }
  return null;
}

/** The names of a folder or map of files without config.json that holds GGUF files → the one GGUF file, else an Error listing them. */
export function ggufInFolder(names) {
  const files = names.filter((n) => GGUF_NAME.test(n)).sort();
  if (files.length === 1) return files[0];
  throw new Error(`loadModel: the folder or map of files holds several GGUF files (${files.join(', ')}) and no config.json; choose one with { gguf: '<file name or quantization>' }`);
}

function denseModules(stream, hidden) {
  const dense = [];
  let features = hidden;
  for (const name of ['dense_2.weight', 'dense_3.weight']) {
    const weight = unwrap(stream.tensor(name));
    if (!weight) break;
    const out = weight.length / features;
    if (!Number.isInteger(out)) throw new Error(`${name}: ${weight.length} values are not whole rows of ${features} features`);
    dense.push(Object.freeze({ inFeatures: features, outFeatures: out, bias: null, activation: 'torch.nn.modules.linear.Identity', weight }));
    features = out;
  }
  return dense;
}

function recipe(file, arch, metadata, dense, hidden) {
  const pooling = POOLING[metadata[`${arch}.pooling_type`]] ?? null;
  return Object.freeze({
    files: Object.freeze([file]),
    modules: Object.freeze([]),
    pooling,
    poolingModes: Object.freeze(pooling ? [pooling] : []),
    poolingFile: file,
    poolingDimension: null,
    includePrompt: true,
    normalize: true,
    dense: Object.freeze(dense),
    embeddingDimension: dense.length ? dense[dense.length - 1].outFeatures : hidden,
    prompts: Object.freeze({}),
    defaultPromptName: null,
    maxSeqLength: null,
    doLowerCase: false,
    unsupported: pooling ? null : `${file}: ${arch}.pooling_type ${metadata[`${arch}.pooling_type`] ?? '(absent)'} is not a pooling relpos runs (1 mean, 2 cls, 3 last token)`,
  });
}

/** See the top of this file. */
export async function loadGguf(mod, src, file, { dtype, onProgress, tokenizers, weightSink = null }) {
  const stream = unwrap(mod.openGgufStream({ dtype }));
  let staging = null;
  try {
    if (weightSink) unwrap(stream.setWeightSink(weightSink)); // device 'webgpu': linear layers to the GPU (webgpu/weight-sink.js)
    staging = unwrap(mod.allocateBytes(CHUNK_BYTES));
    const sink = streamSafetensors(mod, stream, staging, file, reporter(onProgress, file), converting(onProgress, file, stream));
    if (!(await src.bytes(file, sink))) throw new Error(`${file}: not found at ${src.where(file)}`);
    unwrap(stream.endFile());
    const info = unwrap(stream.gguf());
    const config = JSON.parse(info.config);
    const m = info.metadata;
    const arch = m['general.architecture'];
    if (Number.isInteger(m['tokenizer.ggml.padding_token_id'])) config.pad_token_id = m['tokenizer.ggml.padding_token_id'];
    const tokenizer = await ggufTokenizer(m, { file, tokenizers });
    const dense = denseModules(stream, config.hidden_size);
    const shown = {};
    for (const [k, v] of Object.entries(m)) if (!(v?.length > 64 && typeof v !== 'string')) shown[k] = v;
    const labels = m[`${arch}.classifier.output_labels`];
    const gguf = Object.freeze({
      file,
      architecture: arch,
      metadata: Object.freeze(shown),
      rankLabels: m[`${arch}.pooling_type`] === 4 && Array.isArray(labels) ? Object.freeze([...labels]) : null,
    });
    const handle = unwrap(stream.load(info.config));
    return { handle, config, tokenizer, recipe: recipe(file, arch, m, dense, config.hidden_size), gguf };
  } finally {
    staging?.delete();
    stream.delete();
  }
}
