// Types for the relpos npm package (hand-written; see web/index.js).

// Symbol.dispose (the objects below have [Symbol.dispose]() for `using`): declared here so that a project whose lib
// lacks ESNext.Disposable (TypeScript's default lib for target es2022) compiles; identical to the lib's own
// declaration, so projects that have it (target esnext, @types/node) compile too.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** Where the .wasm files are hosted, like tfjs's setWasmPaths: a prefix (URL or directory, with or
 * without a trailing '/') or a map from file name to URL. Default: next to this package's dist/. */
export type WasmPaths =
  | string
  | URL
  | { 'relpos-simd.wasm'?: string | URL; 'relpos-scalar.wasm'?: string | URL; 'relpos-simd-threads.wasm'?: string | URL };

export interface InitOptions {
  /** true: the SIMD128 build (throws if unsupported); false: scalar; 'auto' (default): detect. */
  simd?: boolean | 'auto';
  wasmPaths?: WasmPaths;
  /** Threads to compute with: 'auto' (Node: os.availableParallelism(); browsers: navigator.hardwareConcurrency
   * on cross-origin isolated pages, else 1; capped at 8) or an integer in [1, 64]. Default 1. More than one
   * loads relpos-simd-threads when SIMD and SharedArrayBuffer are available; otherwise the single-thread
   * build runs and `threadsReason` says why. TypeError/RangeError for anything else. */
  threads?: 'auto' | number;
}

export type SchemeType =
  | 'none'
  | 'sinusoidal'
  | 'learned-absolute'
  | 'mlp'
  | 'shaw'
  | 'bert-relative'
  | 'huang'
  | 'transformer-xl'
  | 't5'
  | 'tupe'
  | 'deberta'
  | 'rope'
  | 'alibi';

/** Plain attention: logit = q·k / sqrt(headDim). */
export interface NoneScheme {
  type: 'none';
}
/** Vaswani sinusoids added to q, k and v (headDim even). */
export interface SinusoidalScheme {
  type: 'sinusoidal';
  /** 'interleaved' (default): sin, cos pairs; 'concatenated': all sines then all cosines. */
  layout?: 'interleaved' | 'concatenated';
  /** Default 10000. */
  base?: number;
}
/** BERT-style learned absolute positions added to q, k and v. */
export interface LearnedAbsoluteScheme {
  type: 'learned-absolute';
  /** [rows ≥ seqLen, headDim]. */
  table: Float32Array;
}
/** d2l's MLP position encoder e(p) = W2·relu(W1·f(p) + b1) + b2, added to q, k and v. */
export interface MlpScheme {
  type: 'mlp';
  /** 1 (f(p) = [p], default) or an even sinusoid width. */
  featureDim?: number;
  hidden: number;
  /** [hidden, featureDim] */ w1: Float32Array;
  /** [hidden] */ b1: Float32Array;
  /** [headDim, hidden] */ w2: Float32Array;
  /** [headDim] */ b2: Float32Array;
}
/** Shaw et al.: distances clip(j − i, ±maxDistance) index learned key (and value) tables. */
export interface ShawScheme {
  type: 'shaw';
  maxDistance: number;
  /** [2·maxDistance + 1, headDim] */ keyTable: Float32Array;
  /** [2·maxDistance + 1, headDim]; omit for keys only. */ valueTable?: Float32Array;
}
/** BERT relative_key / relative_key_query (seqLen ≤ maxPositions). */
export interface BertRelativeScheme {
  type: 'bert-relative';
  maxPositions: number;
  /** relative_key_query (default false: relative_key). */
  keyQuery?: boolean;
  /** [2·maxPositions − 1, headDim] */ table: Float32Array;
}
/** Huang et al. memory-efficient relative attention (skewing). */
export interface HuangScheme {
  type: 'huang';
  /** Clip distance of the learned table (required with a table). */
  maxDistance?: number;
  /** [2·maxDistance + 1, headDim]; omit to use the sinusoid of the distance. */
  table?: Float32Array;
}
/** Transformer-XL relative attention with r_w_bias u, r_r_bias v and the r_net projection. */
export interface TransformerXLScheme {
  type: 'transformer-xl';
  /** Width of the relative sinusoid (even). */
  dModel: number;
  /** Clamp |i − j| to this (≤ 0 or omitted: no clamp). */
  clampLen?: number;
  /** [heads, headDim] */ u: Float32Array;
  /** [heads, headDim] */ v: Float32Array;
  /** [heads·headDim, dModel] */ wKR: Float32Array;
}
/** T5 bucketed relative bias (no 1/sqrt(d) scaling). */
export interface T5Scheme {
  type: 't5';
  /** Default 32. */ numBuckets?: number;
  /** Default 128. */ maxDistance?: number;
  /** Default true (encoder); false for decoders. */ bidirectional?: boolean;
  /** [numBuckets, heads], as Hugging Face stores relative_attention_bias. */ biasTable: Float32Array;
}
/** TUPE: separately projected absolute positions. */
export interface TupeScheme {
  type: 'tupe';
  posDim: number;
  /** [rows ≥ seqLen, posDim] */ positions: Float32Array;
  /** [heads·headDim, posDim] */ uQ: Float32Array;
  /** [heads·headDim, posDim] */ uK: Float32Array;
}
/** DeBERTa disentangled attention. span = buckets > 0 ? buckets : maxRelative. */
export interface DebertaScheme {
  type: 'deberta';
  /** Log-bucket count (default 256; ≤ 0 disables bucketing). */
  buckets?: number;
  /** Default 512. */
  maxRelative?: number;
  /** Default ['c2p', 'p2c']. */
  terms?: Array<'c2p' | 'p2c'>;
  /** [heads, 2·span, headDim] projected Kr (needed for 'c2p'). */ posKey?: Float32Array;
  /** [heads, 2·span, headDim] projected Qr (needed for 'p2c'). */ posQuery?: Float32Array;
}
/** Rotary position embedding of q and k. */
export interface RopeScheme {
  type: 'rope';
  /** 'half' (default, LLaMA/GPT-NeoX) or 'interleaved' (RoFormer/GPT-J). */
  layout?: 'interleaved' | 'half';
  /** Default 10000. */ theta?: number;
  /** Rotated leading dimensions, even and ≤ headDim (default/0: headDim). */ rotaryDim?: number;
}
/** ALiBi linear biases m_h·(j − i). */
export interface AlibiScheme {
  type: 'alibi';
  /** 'bloom' (default), 'mpt', or one slope per head. */
  slopes?: 'bloom' | 'mpt' | Float32Array;
  /** MPT's alibi_bias_max (default 8). */ biasMax?: number;
  /** −m_h·|i − j| instead (default false). */ symmetric?: boolean;
}

export type Scheme =
  | NoneScheme
  | SinusoidalScheme
  | LearnedAbsoluteScheme
  | MlpScheme
  | ShawScheme
  | BertRelativeScheme
  | HuangScheme
  | TransformerXLScheme
  | T5Scheme
  | TupeScheme
  | DebertaScheme
  | RopeScheme
  | AlibiScheme;

export interface AttentionOptions {
  /** [batch, heads, seqLen, headDim] row-major. */ q: Float32Array;
  /** [batch, heads, seqLen, headDim] */ k: Float32Array;
  /** [batch, heads, seqLen, headDim] */ v: Float32Array;
  batch: number;
  heads: number;
  seqLen: number;
  headDim: number;
  /** [batch, seqLen]; nonzero = the key may be attended. */
  mask?: Uint8Array;
  /** Queries see only keys j ≤ i. */
  causal?: boolean;
  /**
   * Sliding window: query i sees only keys with |i − j| ≤ window (an integer ≥ 0; ModernBERT's local
   * layers use local_attention / 2 = 64). Computed as a banded schedule: only the keys inside the
   * window are visited, so the cost grows with seqLen · window, not seqLen². Probabilities and terms
   * outside the window are 0. Omitted (or null): full attention.
   */
  window?: number;
  scheme: Scheme;
  /** Also return the probabilities [batch, heads, seqLen, seqLen]. */
  returnProbs?: boolean;
  /** Also return each logit term [batch, heads, seqLen, seqLen], keyed by name ('content' first). */
  returnTerms?: boolean;
}

/** 'content' (scaled q·k) plus the scheme's own terms, e.g. 'bias' (T5, ALiBi), 'c2p' / 'p2c' (DeBERTa), each [batch, heads, seqLen, seqLen]. */
export type AttentionTerms = { content: Float32Array; [term: string]: Float32Array };

export interface AttentionResult {
  /** [batch, heads, seqLen, headDim]; a fresh array the caller owns. */
  output: Float32Array;
  /** With returnProbs: true (the attention overloads then type it as present). */
  probs?: Float32Array;
  /** With returnTerms: true. */
  terms?: AttentionTerms;
}

export interface SinusoidOptions {
  layout?: 'interleaved' | 'concatenated';
  base?: number;
}
export interface T5BucketOptions {
  bidirectional?: boolean;
  numBuckets?: number;
  maxDistance?: number;
}
export interface DebertaBucketOptions {
  buckets?: number;
  maxRelative?: number;
}

export interface Positions {
  /** [length, dim] sinusoids of positions firstPosition, firstPosition + 1, … */
  sinusoidTable(length: number, dim: number, options?: SinusoidOptions & { firstPosition?: number }): Float32Array;
  /** [dim] sinusoid of one (possibly negative or fractional) position. */
  sinusoidRow(position: number, dim: number, options?: SinusoidOptions): Float32Array;
  /** [seqLen, seqLen]: clip(j − i, −k, k) + k. */
  shawIndexTable(seqLen: number, maxDistance: number): Int32Array;
  /** [seqLen, seqLen]: i − j + maxPositions − 1. */
  bertRelativeIndexTable(seqLen: number, maxPositions: number): Int32Array;
  /** T5's _relative_position_bucket of relativePosition = j − i. */
  t5RelativeBucket(relativePosition: number, options?: T5BucketOptions): number;
  /** [seqLen, seqLen] T5 buckets. */
  t5BucketTable(seqLen: number, options?: T5BucketOptions): Int32Array;
  /** DeBERTa's bucketed relative position of r = i − j. */
  debertaRelativePosition(relativePosition: number, options?: DebertaBucketOptions): number;
  /** [seqLen, seqLen] DeBERTa relative positions. */
  debertaRelativeTable(seqLen: number, options?: DebertaBucketOptions): Int32Array;
  /** buckets > 0 ? buckets : maxRelative. */
  debertaSpan(options?: DebertaBucketOptions): number;
  /** [heads] ALiBi slopes. */
  alibiSlopes(heads: number, rule?: 'bloom' | 'mpt', options?: { biasMax?: number }): Float32Array;
  /** [heads, seqLen, seqLen]: slope_h·(j − i), or −slope_h·|i − j| when symmetric. */
  alibiBias(seqLen: number, slopes: Float32Array, options?: { symmetric?: boolean }): Float32Array;
  /** cos/sin tables [length, rotaryDim] in the given layout. */
  ropeTables(length: number, rotaryDim: number, options?: { layout?: 'interleaved' | 'half'; theta?: number }): {
    cos: Float32Array;
    sin: Float32Array;
  };
}

// ---- models from Hugging Face checkpoints (web/model.js) ------------------------------------------

/** config.json's model_type values loadModel accepts. */
export type ModelType = 'bert' | 'deberta-v2' | 't5' | 'roformer' | 'distilbert' | 'transfo-xl' | 'bloom' | 'mpt' | 'llama' | 'mpnet' | 'modernbert' | 'nomic_bert'
  | 'roberta' | 'xlm-roberta' | 'camembert' | 'electra' | 'jina_bert_v2';

/** One file of a model folder the user picked (or bytes you already hold). Strings and objects only for JSON files. */
export type ModelFile = Blob | ArrayBuffer | ArrayBufferView | string | object;
/**
 * 'config.json', the weights ('model.safetensors', 'pytorch_model.bin', or an index
 * '*.index.json' and its shards), optional 'tokenizer.json' (or 'spm.model' / 'spiece.model'),
 * 'tokenizer_config.json' and 'special_tokens_map.json'.
 */
export type ModelFiles = { [fileName: string]: ModelFile };
/**
 * A Hugging Face Hub id ('owner/name', 'name' or 'hf:owner/name'), a URL prefix of a folder (http(s);
 * relative URLs resolve against the page and must start with './' or '/' or end with '/'), under Node
 * a folder path or file: URL, or a map of files (optionally wrapped as { files }). A string of the
 * shape 'name' or 'owner/name' is a Hub id unless, under Node, a folder of that path exists; with
 * `host` or `revision` given, or after 'hf:', it is always a Hub id.
 */
export type ModelSource = string | URL | ModelFiles | { files: ModelFiles };

export interface LoadProgress {
  /** 'config.json', 'tokenizer.json' (or 'spm.model' / 'spiece.model'), 'tokenizer_config.json', 'special_tokens_map.json' or a weight file (each shard of a sharded set). */
  file: string;
  /** Bytes of `file` read so far ('convert': bytes of it converted into the model's weights). */
  loaded: number;
  /** Bytes expected, or null when the server does not say (compressed or chunked responses). */
  total: number | null;
  /** True when the file is read from the browser cache (Cache API) rather than downloaded. */
  cached: boolean;
  /**
   * Absent on download events. 'convert': a safetensors weight file of a family that converts as it
   * streams (llama, qwen3, gemma3_text): sent after each chunk once it is converted, so `loaded`
   * reaching `total` means the file's weights are ready; other weight files are converted after the
   * download, without events.
   */
  stage?: 'convert';
  /** 'convert' events: bytes the converted weights of every file so far hold (the model's weightBytes at the end). */
  convertedBytes?: number;
}

export interface LoadModelOptions {
  onProgress?: (progress: LoadProgress) => void;
  /** Hub ids: the Hub's URL (a mirror or a self-hosted copy of its /{id}/resolve/{revision}/{file} layout). Default 'https://huggingface.co'. */
  host?: string | URL;
  /** Hub ids: branch, tag or commit. Default 'main'. */
  revision?: string;
  /**
   * Browsers: keep downloaded files in the Cache API (cache 'relpos-files-v1', keyed by URL) and read
   * them from there next time. Default true for Hub ids, false for URL prefixes; no effect under
   * Node (no Cache API) or for folders and maps of files.
   */
  cache?: boolean;
  /** The @huggingface/tokenizers module, when a bare `import('@huggingface/tokenizers')` cannot resolve (no bundler). */
  tokenizers?: { Tokenizer: new (tokenizerJson: object, tokenizerConfig: object) => HfTokenizer };
  /** How the weights are held: 'fp32' (default) or 'q8' — every linear layer's weight quantized to int8
   * (a scale per output channel times a 4-bit multiplier per 32 inputs) and the word embeddings to int8 as
   * they are read; about 4× less memory, a small measured accuracy cost (README). On WebGPU the linear layers'
   * weights stay int8 there too (dequantized inside the GEMM; activations f32). 'fp16': WebGPU only — weights
   * and activations stored as f16 on the GPU, sums in f32; needs the adapter feature 'shader-f16' (device
   * 'webgpu' rejects without it, 'auto' falls back to fp32 on WASM with info.deviceReason; device 'wasm' rejects). */
  dtype?: WeightDtype;
  /**
   * GGUF (llama.cpp / Ollama files, docs/gguf.md): which GGUF file of a folder, a map of files, a URL prefix or a
   * Hub repository to load — a file name ('model-q8_0.gguf'), or for folders and maps a quantization ('Q8_0',
   * 'q4_k_m') matched between the separators of the names (an Error lists the files when none or several match).
   * Not needed for a '.gguf' path or URL, GGUF bytes, or a folder holding one GGUF file and no config.json.
   */
  gguf?: string;
  /** Hugging Face's variant: 'fp16' reads model.fp16.safetensors (or model.safetensors.index.fp16.json,
   * pytorch_model.fp16.bin) instead of model.safetensors. */
  variant?: string;
  /** Where forward runs: 'wasm' (default), 'webgpu' (the C++ family's plan run as WGSL dispatches; web/webgpu/
   * is imported only then; rejects when the family or an option is not on the GPU yet, with the reason) or
   * 'auto' (WebGPU when an adapter exists and the family is covered, else WASM: info.deviceReason says why). */
  device?: 'wasm' | 'webgpu' | 'auto';
  /** WebGPU: the GPU object (navigator.gpu, or create([]) of the npm package 'webgpu'); default navigator.gpu,
   * else in Node the 'webgpu' package. */
  gpu?: unknown;
  /** WebGPU: use subgroup operations (subgroupAdd) in the reductions of the norms and of pooling's normalize where
   * the adapter has the feature 'subgroups' and WGSL has the subgroup_id builtin (default true); false keeps the
   * plain workgroup-memory reductions. info.adapter.subgroups says which path a model runs (docs/webgpu.md). */
  subgroups?: boolean;
}

export type WeightDtype = 'fp32' | 'q8' | 'fp16';

/** The part of @huggingface/tokenizers' Tokenizer that relpos uses. */
export interface HfTokenizer {
  encode(text: string, options?: { text_pair?: string | null; add_special_tokens?: boolean }): {
    ids: number[];
    tokens: string[];
    attention_mask: number[];
  };
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
}

/** A row-major float tensor; data is a fresh array the caller owns. */
export interface FloatTensor {
  data: Float32Array;
  dims: number[];
}
export interface IntTensor {
  data: Int32Array;
  dims: number[];
}

/** Token ids: one sequence, or a batch (ragged rows are right-padded with pad_token_id and masked). */
export type TokenIds = ArrayLike<number> | ArrayLike<number>[];

export type ForwardInputs =
  | { inputIds: TokenIds; attentionMask?: TokenIds; tokenTypeIds?: TokenIds; text?: undefined }
  | { text: string | string[]; textPair?: string | string[]; inputIds?: undefined };

/** ModelInfo.loadMs. */
export interface LoadTimes {
  files: number;
  weights: number;
  build: number;
  gpu: { context: number; plans: number; weightValues: number; uploads: number; release: number } | null;
  total: number;
}

export interface ForwardOptions {
  /** hiddenStates: numLayers + 1 tensors [batch, seq, hidden], the embeddings first. */
  outputHiddenStates?: boolean;
  /** attentions: numLayers tensors [batch, heads, seq, seq] of probabilities. */
  outputAttentions?: boolean;
  /**
   * The task head's output (Error when the checkpoint has none, see Model.head): text-classification
   * logits [batch, labels]; token-classification logits [batch, seq, labels]; question-answering
   * startLogits / endLogits [batch, seq]; fill-mask and text-generation (a causal LM such as Qwen3ForCausalLM)
   * logits [positions, vocab] at logitsAt, or [batch, seq, vocab] without it.
   */
  logits?: boolean;
  /** Masked-LM and causal-LM heads: [batch index, token index] pairs where the vocabulary logits are computed (only there). */
  logitsAt?: [number, number][];
  /**
   * pooled [batch, hidden]: the last hidden state's mean over the attention mask, first token ('cls'), or last token
   * the mask keeps ('last_token': right or left padding; zeros when it keeps none) — the pipelines' pool(). On WebGPU it
   * runs on the GPU and only [batch, hidden] is read back. With pooling, lastHiddenState and poolerOutput are left out
   * unless outputLastHiddenState: true.
   */
  pooling?: 'mean' | 'cls' | 'last_token';
  /** With pooling: each pooled row divided by its L2 norm. Default false. */
  normalize?: boolean;
  /** lastHiddenState (and poolerOutput) as well; default true without pooling, false with it. */
  outputLastHiddenState?: boolean;
}

/** The task head a checkpoint carries (config.json architectures, else the head tensors present). */
export interface ModelHead {
  /** 'text-generation': a causal LM (Qwen3ForCausalLM); relpos reads its logits (a reranker's yes / no) and generates nothing. */
  task: 'text-classification' | 'token-classification' | 'question-answering' | 'fill-mask' | 'text-generation';
  /** id2label names in id order (classification heads), else null. */
  labels: readonly string[] | null;
  /** Logits per row: the labels, 2 (start, end) or the vocabulary size. */
  outputs: number;
}

export interface ForwardResult {
  /** [batch, seq, hidden]. Values at padded positions are unspecified. Absent with pooling (unless outputLastHiddenState: true). */
  lastHiddenState: FloatTensor;
  /** [batch, hidden]: with the pooling option (ForwardOptions.pooling). */
  pooled?: FloatTensor;
  hiddenStates?: FloatTensor[];
  attentions?: FloatTensor[];
  /** [batch, hidden]: BERT's tanh(dense(first token)), when the checkpoint has a pooler. */
  poolerOutput?: FloatTensor;
  logits?: FloatTensor;
  /** Question-answering heads: [batch, seq]. */
  startLogits?: FloatTensor;
  endLogits?: FloatTensor;
  /** The padded ids and mask that ran, [batch, seq]. */
  inputIds: IntTensor;
  attentionMask: IntTensor;
  /** Token strings per sequence (text inputs only). */
  tokens?: string[][];
}

/** What the options of a forward call guarantee: hiddenStates with outputHiddenStates: true, attentions with outputAttentions: true. */
export type ForwardOutputs<O> = (O extends { outputHiddenStates: true } ? { hiddenStates: FloatTensor[] } : {}) &
  (O extends { pooling: string } ? { pooled: FloatTensor } : {}) &
  (O extends { outputAttentions: true } ? { attentions: FloatTensor[] } : {});

/** The configuration relpos resolved from config.json (Hugging Face defaults applied). */
export interface ModelInfo {
  modelType: ModelType;
  vocabSize: number;
  hiddenSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  intermediateSize: number;
  maxPositionEmbeddings: number;
  /** Longest sequence forward() takes: max_position_embeddings for absolute positions, 0 = no limit (relative positions). */
  maxSequence: number;
  hiddenAct: string;
  /** How the weights are held (LoadModelOptions.dtype; 'fp16' only on WebGPU, an 'auto' fallback says 'fp32'). */
  dtype: WeightDtype;
  /** Bytes of weights held in the WebAssembly heap (model + classification head). */
  weightBytes: number;
  /** True for decoder stacks (transfo-xl, bloom, mpt, llama): attention is causal. */
  causal: boolean;
  /** Threads forward computes with on WebAssembly: its runtime's (init({ threads }), or pipeline's { threads }). */
  threads: number;
  /** Where forward runs. */
  device: 'wasm' | 'webgpu';
  /** With device 'auto': why the model stayed on WASM (no adapter, a family or scheme not on the GPU yet); else null. */
  deviceReason: string | null;
  /** On WebGPU: bytes of weights held on the GPU (q8: linear layers int8 plus scales; fp16: 2 bytes per value). */
  gpuWeightBytes?: number;
  /**
   * Where loadModel's time went, in milliseconds: files (config.json, tokenizer and sentence-transformers files),
   * weights (reading the weight files, converting as they stream in), build (the C++ model from them), gpu
   * (device 'webgpu' / 'auto' only, else null: context — the adapter and device; plans — plan recordings; weightValues
   * — weights copied out of WebAssembly; uploads — GPU buffers, their writes and fp16's narrowing, until the GPU is done;
   * release — freeing the WebAssembly copies), total.
   */
  loadMs: LoadTimes;
  /** On WebGPU: bytes of weights still held in WebAssembly memory after the upload (norm gains, biases, scheme tables:
   * the linear layers and embedding tables live on the GPU only). weightBytes is what the load converted. */
  wasmWeightBytes?: number;
  /**
   * On WebGPU: null while the GPU device works; { reason, message } once it was lost (driver reset,
   * device.destroy(), the browser reclaiming it). After a loss every forward rejects with an Error saying
   * so (error.deviceLost has the same fields); load the model again (device 'auto' falls back to WASM).
   */
  deviceLost?: { reason: string; message: string } | null;
  /** On WebGPU: the adapter (vendor, architecture, device, description); subgroups: whether the kernels' reductions
   * use subgroup operations (options.subgroups); subgroupMinSize / subgroupMaxSize: the adapter's (0 when unknown). */
  adapter?: {
    vendor: string; architecture: string; device: string; description: string; backend: 'webgpu'; source: string;
    subgroups: boolean; subgroupMinSize: number; subgroupMaxSize: number;
  };
}

export interface Model {
  /** config.json as parsed (Hugging Face field names). */
  readonly config: { model_type: string; [field: string]: unknown };
  readonly info: ModelInfo;
  /** Label names of the classification head (sequence or token) in id order, or null. */
  readonly labels: readonly string[] | null;
  /** The checkpoint's task head, or null. */
  readonly head: ModelHead | null;
  /** Built from tokenizer.json, else from spm.model / spiece.model (SentencePiece), or null when the folder had neither. */
  readonly tokenizer: HfTokenizer | null;
  /** The sentence-transformers files of the folder (modules.json, …), or null without modules.json. From a GGUF
   * file: its pooling (pooling_type), normalize true and EmbeddingGemma's Dense layers, in the same shape. */
  readonly sentenceTransformers: SentenceTransformersRecipe | null;
  /** A model loaded from a GGUF file: which file, its architecture and metadata, or null. */
  readonly gguf: GgufInfo | null;
  /** Tokenizes (needs tokenizer.json or spm.model / spiece.model). */
  encode(text: string | string[], options?: { textPair?: string | string[] }): {
    inputIds: number[][];
    attentionMask: number[][];
    tokens: string[][];
    /** With textPair: 0 for `[CLS] a [SEP]`, 1 for `b [SEP]`. */
    tokenTypeIds?: number[][];
  };
  /** Throws RangeError for ids outside the vocabulary, Error for text without a tokenizer. On a model with
   * info.device 'webgpu' it returns a Promise of the result instead (outputAttentions rejects there; logits and logitsAt work as on WASM). */
  forward<O extends ForwardOptions = {}>(inputs: ForwardInputs, options?: O): ForwardResult & ForwardOutputs<O>;
  /** forward() as a Promise, on either device. */
  forwardAsync<O extends ForwardOptions = {}>(inputs: ForwardInputs, options?: O): Promise<ForwardResult & ForwardOutputs<O>>;
  /** Frees the model's WebAssembly memory; the model is unusable afterwards. */
  dispose(): void;
  [Symbol.dispose](): void;
}

export type PipelineTask =
  | 'feature-extraction'
  | 'text-classification'
  | 'zero-shot-classification'
  | 'token-classification'
  | 'question-answering'
  | 'fill-mask';
/** Other task names, as in Hugging Face: 'ner' → 'token-classification', 'sentiment-analysis' → 'text-classification'. */
export type PipelineTaskAlias = 'ner' | 'sentiment-analysis';

/** Options every pipeline takes. */
export interface PipelineLengthOptions {
  /** Cut inputs to maxLength tokens (default true). Pairs: the longer side first ('longest_first'). */
  truncation?: boolean;
  /** Default: max_position_embeddings for absolute-position models (BERT, DistilBERT, RoFormer, MPT,
   * DeBERTa-v2 with position_biased_input); none for relative-position models (DeBERTa-v3, T5, …). */
  maxLength?: number;
  /** Inputs per forward pass (default 32); inputs are sorted by length inside the call, results come back in input order. */
  batchSize?: number;
}

/** A module of modules.json; kind null for modules relpos does not run (LayerNorm, custom …). */
export interface SentenceTransformersModule {
  readonly idx: number;
  readonly name: string;
  readonly path: string;
  readonly type: string;
  readonly kind: 'transformer' | 'pooling' | 'dense' | 'normalize' | 'dropout' | null;
}
/** A sentence-transformers Dense module ({path}/config.json + model.safetensors): y = activation(weight · x + bias). */
export interface SentenceTransformersDense {
  readonly inFeatures: number;
  readonly outFeatures: number;
  readonly bias: Float32Array | null;
  /** The torch.nn class, e.g. 'torch.nn.modules.linear.Identity' or 'torch.nn.modules.activation.Tanh'. */
  readonly activation: string;
  /** [outFeatures, inFeatures], row-major. */
  readonly weight: Float32Array;
}
/** What loadModel read from modules.json, the Pooling config, config_sentence_transformers.json and sentence_bert_config.json. */
/** Model.gguf: the GGUF file a model came from (docs/gguf.md). */
export interface GgufInfo {
  /** The file name ('model.gguf' for bytes). */
  readonly file: string;
  /** general.architecture: 'bert', 'nomic-bert', 'modern-bert', 'qwen3' or 'gemma-embedding'. */
  readonly architecture: string;
  /** Every metadata key with its value (numbers, strings, booleans; arrays of ≤ 64 entries — the vocabulary is left out). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** A reranker's answer labels (RANK pooling, classifier.output_labels: ['yes', 'no']): its logits are in this order. */
  readonly rankLabels: readonly string[] | null;
}

export interface SentenceTransformersRecipe {
  /** The files read, e.g. ['modules.json', '1_Pooling/config.json']. */
  readonly files: readonly string[];
  readonly modules: readonly SentenceTransformersModule[];
  /** The pipeline's pooling for the Pooling module's mode, or null when relpos cannot run the recipe (see unsupported). */
  readonly pooling: 'mean' | 'cls' | 'last_token' | null;
  /** sentence-transformers' modes: 'cls', 'max', 'mean', 'mean_sqrt_len_tokens', 'weightedmean', 'lasttoken'. */
  readonly poolingModes: readonly string[];
  readonly poolingFile: string | null;
  readonly poolingDimension: number | null;
  readonly includePrompt: boolean;
  /** A Normalize module follows the pooling. */
  readonly normalize: boolean;
  /** The Dense modules between Pooling and Normalize, in order (EmbeddingGemma: 768 → 3072 → 768); [] when none. */
  readonly dense: readonly SentenceTransformersDense[];
  /** Features of the sentence embedding: the last Dense module's outFeatures, else the Pooling dimension (null if unknown). */
  readonly embeddingDimension: number | null;
  readonly prompts: Readonly<Record<string, string>>;
  readonly defaultPromptName: string | null;
  readonly maxSeqLength: number | null;
  readonly doLowerCase: boolean;
  /** Why relpos cannot run these modules (max pooling, an unknown Dense activation, …), or null. */
  readonly unsupported: string | null;
}

export interface FeatureExtractionOptions extends PipelineLengthOptions {
  /** 'mean': mean over the attention mask; 'cls': first token; 'last_token': last token of the mask;
   * 'none': lastHiddenState. Default: the Pooling module's mode (1_Pooling/config.json), else 'mean'. */
  pooling?: 'mean' | 'cls' | 'last_token' | 'none';
  /** L2-normalise each pooled vector. Default: true when modules.json has a Normalize module, else false. */
  normalize?: boolean;
  /** Text put before each input (wins over promptName); '' for none. */
  prompt?: string;
  /** One of the model's prompts (config_sentence_transformers.json); null for none. Default: its default_prompt_name. */
  promptName?: string | null;
  /** Pool the prompt's tokens too. Default: the Pooling module's include_prompt (true without one). */
  includePrompt?: boolean;
  /** Run the recipe's Dense modules after its pooling (EmbeddingGemma). Default true; false gives the pooled vector. */
  dense?: boolean;
  /** Keep the first N values of each pooled vector (after the recipe's Dense modules; Matryoshka), then normalise if
   * normalize; 1 ≤ N ≤ the embedding width. */
  dimensions?: number;
}
/** What a feature-extraction pipeline does without options, and where each default came from. */
export interface FeatureExtractionDefaults {
  /** null when the model's recipe cannot be run: every call must then give pooling. */
  readonly pooling: 'mean' | 'cls' | 'last_token' | null;
  readonly normalize: boolean;
  readonly promptName: string | null;
  readonly prompt: string | null;
  readonly prompts: Readonly<Record<string, string>>;
  readonly includePrompt: boolean;
  readonly lowercase: boolean;
  readonly maxLength: number | null;
  /** The recipe's Dense modules, run after its own pooling. */
  readonly dense: readonly SentenceTransformersDense[];
  readonly unsupported: string | null;
  /** A file name ('1_Pooling/config.json', 'modules.json', 'config_sentence_transformers.json', 'sentence_bert_config.json', 'config.json') or 'relpos' (built in). */
  readonly from: Readonly<Record<'pooling' | 'normalize' | 'promptName' | 'includePrompt' | 'lowercase' | 'maxLength', string>>;
}
export interface LabelScore {
  label: string;
  score: number;
}
export interface ZeroShotResult {
  sequence: string;
  labels: string[];
  scores: number[];
}
export interface ZeroShotOptions extends PipelineLengthOptions {
  /** Default 'This example is {}.' */
  hypothesisTemplate?: string;
  /** Score each label alone (entailment vs contradiction) instead of a softmax across labels. */
  multiLabel?: boolean;
}

/** A text pair for text-classification (rerankers, NLI): [CLS] text [SEP] textPair [SEP]. */
export interface TextPair {
  text: string;
  textPair?: string;
}
export interface TextClassificationOptions extends PipelineLengthOptions {
  /** Default: 'sigmoid' for one label (or problem_type multi_label_classification), else 'softmax'. A reranker
   * (causal-LM head) takes only 'softmax'. */
  functionToApply?: 'sigmoid' | 'softmax' | 'none';
  /** Reranker (Qwen3-Reranker: a causal-LM head) only: the <Instruct> line of the prompt. Default 'Given a web search
   * query, retrieve relevant passages that answer the query'. */
  instruction?: string;
  /** Reranker only: the answer tokens whose logits are compared. Default 'yes' / 'no'. */
  yesToken?: string;
  noToken?: string;
}
export interface TextClassificationTopKOptions extends TextClassificationOptions {
  /** Labels per input, sorted by score; null: all of them. */
  topK: number | null;
}

export type AggregationStrategy = 'none' | 'simple' | 'first' | 'average' | 'max';
export interface TokenClassificationOptions extends PipelineLengthOptions {
  /** Default 'none' (one entry per token). */
  aggregationStrategy?: AggregationStrategy;
  /** Labels (entity or entity_group) left out; default ['O']. */
  ignoreLabels?: string[];
}
/** aggregationStrategy 'none': one per token. start/end: UTF-16 offsets into the input, end exclusive. */
export interface TokenEntity {
  entity: string;
  score: number;
  /** Position in the model input, [CLS] = 0. */
  index: number;
  /** The vocabulary token ('##ing', '▁Jo'); for an unknown token, the text it covers. */
  word: string;
  start: number;
  end: number;
}
/** Other strategies: consecutive tokens (or words) of one entity type. */
export interface EntityGroup {
  entity_group: string;
  score: number;
  word: string;
  start: number;
  end: number;
}

export interface QuestionContext {
  question: string;
  context: string;
}
export interface QuestionAnsweringOptions {
  /** Answers per question (default 1). */
  topK?: number;
  /** Longest answer in tokens (default 15). */
  maxAnswerLen?: number;
  /** Tokens per window, question included (default min(384, the model's limit)). */
  maxSeqLen?: number;
  /** Tokens shared by consecutive windows of a long context (default min(maxSeqLen / 2, 128)). */
  docStride?: number;
  /** Also offer the empty answer { score, start: 0, end: 0, answer: '' } (default false). */
  handleImpossibleAnswer?: boolean;
  /** Widen spans to whole words (default true, as Hugging Face). */
  alignToWords?: boolean;
  batchSize?: number;
}
/** answer === context.slice(start, end); start/end are UTF-16 offsets, end exclusive. */
export interface Answer {
  score: number;
  start: number;
  end: number;
  answer: string;
}

export interface FillMaskOptions extends PipelineLengthOptions {
  /** Predictions per mask (default 5; at most the number of targets). */
  topK?: number;
  /** Only score these tokens (a vocabulary entry, else the first piece of the word). */
  targets?: string | string[];
}
export interface FillMaskResult {
  score: number;
  token: number;
  token_str: string;
  sequence: string;
}

/** Every pipeline function also carries its task and model, and dispose() (frees a model the pipeline loaded itself). */
export interface PipelineExtras {
  readonly task: PipelineTask;
  readonly model: Model;
  dispose(): void;
}

export type FeatureExtractionPipeline = PipelineExtras & {
  /** [batch, hidden] pooled ([batch, dimensions] with dimensions; [batch, seq, hidden] with pooling 'none'). */
  (texts: string | string[], options?: FeatureExtractionOptions): Promise<FloatTensor>;
  readonly defaults: FeatureExtractionDefaults;
};
export type TextClassificationPipeline = PipelineExtras & {
  (text: string, options: TextClassificationTopKOptions): Promise<LabelScore[]>;
  (pair: TextPair, options: TextClassificationTopKOptions): Promise<LabelScore[]>;
  (inputs: Array<string | TextPair>, options: TextClassificationTopKOptions): Promise<LabelScore[][]>;
  /** Without topK, as Hugging Face: a text gives [best], a pair gives best, a list one best per input. */
  (text: string, options?: TextClassificationOptions): Promise<LabelScore[]>;
  (pair: TextPair, options?: TextClassificationOptions): Promise<LabelScore>;
  (inputs: Array<string | TextPair>, options?: TextClassificationOptions): Promise<LabelScore[]>;
};
export type ZeroShotClassificationPipeline = PipelineExtras & {
  (text: string, candidateLabels: string | string[], options?: ZeroShotOptions): Promise<ZeroShotResult>;
  (texts: string[], candidateLabels: string | string[], options?: ZeroShotOptions): Promise<ZeroShotResult[]>;
};
export type TokenClassificationPipeline = PipelineExtras & {
  (text: string, options?: TokenClassificationOptions & { aggregationStrategy?: 'none' }): Promise<TokenEntity[]>;
  (texts: string[], options?: TokenClassificationOptions & { aggregationStrategy?: 'none' }): Promise<TokenEntity[][]>;
  (text: string, options: TokenClassificationOptions & { aggregationStrategy: 'simple' | 'first' | 'average' | 'max' }): Promise<EntityGroup[]>;
  (texts: string[], options: TokenClassificationOptions & { aggregationStrategy: 'simple' | 'first' | 'average' | 'max' }): Promise<EntityGroup[][]>;
};
export type QuestionAnsweringPipeline = PipelineExtras & {
  /** topK 1 (the default): one answer, as an object. */
  (input: QuestionContext, options?: QuestionAnsweringOptions & { topK?: 1 }): Promise<Answer>;
  (question: string, context: string, options?: QuestionAnsweringOptions & { topK?: 1 }): Promise<Answer>;
  (inputs: QuestionContext[], options?: QuestionAnsweringOptions & { topK?: 1 }): Promise<Answer[]>;
  /** topK > 1: a list of the best answers, or one answer as an object when only one was found (as Hugging Face). */
  (input: QuestionContext, options?: QuestionAnsweringOptions): Promise<Answer | Answer[]>;
  (question: string, context: string, options?: QuestionAnsweringOptions): Promise<Answer | Answer[]>;
  (inputs: QuestionContext[], options?: QuestionAnsweringOptions): Promise<Array<Answer | Answer[]>>;
};
export type FillMaskPipeline = PipelineExtras & {
  /** One mask: a list of predictions; several masks: one list per mask. */
  (text: string, options?: FillMaskOptions): Promise<FillMaskResult[] | FillMaskResult[][]>;
  (texts: string[], options?: FillMaskOptions): Promise<Array<FillMaskResult[] | FillMaskResult[][]>>;
};

export interface PipelineTypes {
  'feature-extraction': FeatureExtractionPipeline;
  'text-classification': TextClassificationPipeline;
  'sentiment-analysis': TextClassificationPipeline;
  'zero-shot-classification': ZeroShotClassificationPipeline;
  'token-classification': TokenClassificationPipeline;
  ner: TokenClassificationPipeline;
  'question-answering': QuestionAnsweringPipeline;
  'fill-mask': FillMaskPipeline;
}

/**
 * loadModel options plus the runtime to load with: `runtime`, or init's options (threads, simd, wasmPaths) for the
 * runtime pipeline makes (one per distinct init options, shared by later pipelines; default init()). Not both.
 */
export interface PipelineLoadOptions extends LoadModelOptions, InitOptions {
  runtime?: Relpos;
}

/** A pipeline over a loaded model (synchronous). Error when the model lacks the task's head. */
export function pipeline<T extends keyof PipelineTypes>(task: T, model: Model): PipelineTypes[T];
/** Loads the model first (Hub id, URL, folder, files), like Transformers.js' pipeline(task, 'owner/name'). */
export function pipeline<T extends keyof PipelineTypes>(task: T, source: ModelSource, options?: PipelineLoadOptions): Promise<PipelineTypes[T]>;
export const PIPELINE_TASKS: readonly PipelineTask[];
export const TASK_ALIASES: Readonly<Record<PipelineTaskAlias, PipelineTask>>;
/** The pooling of the feature-extraction pipeline over any lastHiddenState and mask. */
export function pool(lastHiddenState: FloatTensor, attentionMask: IntTensor, options?: Pick<FeatureExtractionOptions, 'pooling' | 'normalize'>): FloatTensor;

export interface Relpos {
  /** True when the SIMD128 build was loaded. */
  readonly simd: boolean;
  /** Threads this runtime computes with. Results are bitwise identical for every count. */
  readonly threads: number;
  /** Why fewer threads run than `init({ threads })` asked for (e.g. 'not cross-origin isolated
   * (SharedArrayBuffer unavailable)', 'no SIMD (…)'), or null. */
  readonly threadsReason: string | null;
  /** The package version. */
  readonly version: string;
  /** Scheme types this build provides. */
  readonly schemes: readonly SchemeType[];
  readonly positions: Positions;
  /** Current WebAssembly heap size in bytes. */
  readonly heapBytes: number;
  /**
   * Throws TypeError / RangeError / Error on bad input, before touching WebAssembly memory. Without
   * returnProbs/returnTerms, q, k, v and output cross the heap a few heads (≤ 8 MiB) at a time.
   */
  attention(options: AttentionOptions & { returnProbs: true; returnTerms: true }): AttentionResult & { probs: Float32Array; terms: AttentionTerms };
  attention(options: AttentionOptions & { returnProbs: true }): AttentionResult & { probs: Float32Array };
  attention(options: AttentionOptions & { returnTerms: true }): AttentionResult & { terms: AttentionTerms };
  attention(options: AttentionOptions): AttentionResult;
  /** config.json model_type values loadModel accepts. */
  readonly modelTypes: readonly ModelType[];
  /** Loads a Hugging Face checkpoint; rejects with an Error naming the bad file (and tensor). */
  loadModel(source: ModelSource, options?: LoadModelOptions): Promise<Model>;
  /**
   * Loads BGE-M3 (a folder laid out like BAAI/bge-m3: XLM-RoBERTa weights + colbert_linear.pt + sparse_linear.pt);
   * same sources and options as loadModel. Rejects with an Error naming a missing or mis-shaped head file.
   */
  loadBgeM3(source: ModelSource, options?: LoadModelOptions): Promise<BgeM3>;
  /** Empties the browser cache of model files; resolves to the number of files removed (0 under Node). */
  clearCache(): Promise<number>;
  /** Frees the runtime's WebAssembly scratch memory; the runtime is unusable afterwards. */
  dispose(): void;
  [Symbol.dispose](): void;
}

/** Which of BGE-M3's outputs BgeM3.encode computes (all from one forward), and the tokenization limits. */
export interface BgeM3EncodeOptions {
  /** normalize(h[<s>]) (default true). */
  dense?: boolean;
  /** Lexical weights: token id → max relu(sparse_linear(h)) over the id's positions (default false). */
  sparse?: boolean;
  /** ColBERT vectors: normalize(colbert_linear(h)) of every token but <s> (default false). */
  colbert?: boolean;
  /** Tokens per text (default: the model's maxSequence); longer texts are truncated unless truncation is false. */
  maxLength?: number;
  truncation?: boolean;
  /** Texts per forward (default 32). */
  batchSize?: number;
}
export interface BgeM3Output {
  /** [texts, hidden], L2-normalised. */
  dense?: FloatTensor;
  /** Per text: token id (a string, as FlagEmbedding's keys) → weight, in order of first kept occurrence. */
  lexicalWeights?: Map<string, number>[];
  /** Per text: [tokens − 1, colbertDim], L2-normalised rows. */
  colbertVecs?: FloatTensor[];
  /** The tokens of each text. */
  tokens: string[][];
}
/** BgeM3Output with the fields `O` asks for made non-optional. */
export type BgeM3Result<O extends BgeM3EncodeOptions> = BgeM3Output &
  (O extends { dense: false } ? {} : { dense: FloatTensor }) &
  (O extends { sparse: true } ? { lexicalWeights: Map<string, number>[] } : {}) &
  (O extends { colbert: true } ? { colbertVecs: FloatTensor[] } : {});
export interface BgeM3ScoreOptions {
  /** [dense, sparse, colbert] weights of the two means (default [1, 1, 1]; the model card: [0.4, 0.2, 0.4]). */
  weights?: [number, number, number];
  /** Pairs per batch (default 256, as compute_score; ColBERT sees the batch's padding, see docs/multilingual.md). */
  batchSize?: number;
  maxQueryLength?: number;
  maxPassageLength?: number;
}
/** FlagEmbedding's compute_score result: one score per pair in each mode. */
export interface BgeM3Scores {
  dense: number[];
  sparse: number[];
  colbert: number[];
  'sparse+dense': number[];
  'colbert+sparse+dense': number[];
}
/** BGE-M3: dense, sparse and ColBERT outputs from one forward, and the authors' scores (docs/multilingual.md). */
export interface BgeM3 {
  /** The XLM-RoBERTa model underneath. */
  readonly model: Model;
  /** Width of the ColBERT vectors (colbert_linear.pt's out features). */
  readonly colbertDim: number;
  /** The fields the options ask for are present in the result's type (dense unless `dense: false`). */
  encode<O extends BgeM3EncodeOptions = {}>(texts: string | string[], options?: O): Promise<BgeM3Result<O>>;
  /** Lexical weights keyed by token text (FlagEmbedding's convert_id_to_token). */
  tokens(lexicalWeights: Map<string, number>): Map<string, number>;
  /** compute_lexical_matching_score: Σ over shared ids of w_q · w_p. */
  lexicalMatchingScore(query: Map<string, number> | Record<string, number>, passage: Map<string, number> | Record<string, number>): number;
  /** colbert_score: the mean over query vectors of their best dot product with a passage vector. */
  colbertScore(query: FloatTensor, passage: FloatTensor): number;
  /** compute_score over [query, passage] pairs. */
  computeScore(pairs: [string, string][], options?: BgeM3ScoreOptions): Promise<BgeM3Scores>;
  /** Frees the model. */
  dispose(): void;
}

export function init(options?: InitOptions): Promise<Relpos>;
/** True when this engine can run the SIMD build: it validates WebAssembly SIMD128 and exception-handling modules. */
export function simdSupported(): boolean;
export const SCHEME_TYPES: readonly SchemeType[];
export const version: string;
/** Empties the browser cache of model files; resolves to the number of files removed (0 under Node). */
export function clearCache(): Promise<number>;
/** Name of the Cache API cache holding downloaded model files. */
export const CACHE_NAME: string;

/** The length-generalisation lab: train a tiny transformer in a Worker, evaluate it at longer lengths (web/lab.d.ts). */
export { lab } from './lab.js';
export type { Lab, LabAttention, LabBuild, LabConfig, LabEvaluation, LabModelOptions, LabProgress, LabRun, LabScheme, LabTask, LabTrainOptions } from './lab.js';
import type { Lab } from './lab.js';

declare const relpos: {
  init: typeof init;
  simdSupported: typeof simdSupported;
  SCHEME_TYPES: typeof SCHEME_TYPES;
  version: string;
  pipeline: typeof pipeline;
  PIPELINE_TASKS: typeof PIPELINE_TASKS;
  TASK_ALIASES: typeof TASK_ALIASES;
  clearCache: typeof clearCache;
  lab: Lab;
};
export default relpos;
