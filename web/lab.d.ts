// Types of the lab (web/lab.js): `import { lab } from 'relpos'` or `import lab from 'relpos/lab'`.

// Symbol.dispose, declared as the lib does (see index.d.ts): LabRun has [Symbol.dispose]() under any lib.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

export type LabTask = 'shift-k' | 'reverse' | 'count-so-far' | 'bracket-depth';
export type LabScheme = 'none' | 'sinusoidal' | 'learned' | 'alibi' | 't5' | 'rope' | 'shaw' | 'deberta';
export type LabBuild = 'simd' | 'scalar';

export interface LabModelOptions {
  /** Model width (default 64); divisible by heads; even for sinusoidal. */
  dim?: number;
  /** Encoder layers (default 2, at most 64). */
  layers?: number;
  /** Attention heads (default 4); dim / heads must be even for rope. */
  heads?: number;
}

export interface LabProgress {
  /** Training steps done so far. */
  step: number;
  steps: number;
  /** Loss of the last step done. */
  loss: number;
  /** Learning rate of the last step done (warm-up, then cosine decay). */
  learningRate: number;
  /** Wall seconds since training started. */
  seconds: number;
}

export interface LabTrainOptions {
  /** Default 'shift-k'. */
  task?: LabTask;
  /** Position scheme (required). */
  scheme: LabScheme;
  /** Training sequence length (default 16). */
  trainLength?: number;
  /** Training steps (default 300). */
  steps?: number;
  /** Sequences per step and per evaluation batch (default 32). */
  batch?: number;
  model?: LabModelOptions;
  /** Parameter init and batch seed (default 1). */
  seed?: number;
  /** Peak AdamW learning rate (default 3e-3). */
  lr?: number;
  /** shift-k's shift (default 3); trainLength must exceed it. */
  k?: number;
  /** Alphabet of shift-k and reverse (default 8). */
  symbols?: number;
  /** Longest evaluation length (default 4 × trainLength, at most 4096): the learned table's rows. */
  maxLength?: number;
  /** Default 'simd' when the engine supports it, else 'scalar'. */
  build?: LabBuild;
  /** Steps between onProgress calls (default 10); onProgress is always called after the last step. */
  progressEvery?: number;
  onProgress?: (progress: LabProgress) => void;
  /** Aborting rejects lab.train with a DOMException named 'AbortError' and terminates the worker. */
  signal?: AbortSignal;
}

export interface LabConfig {
  task: LabTask;
  scheme: LabScheme;
  trainLength: number;
  steps: number;
  batch: number;
  model: { dim: number; layers: number; heads: number };
  seed: number;
  lr: number;
  k: number;
  symbols: number;
  maxLength: number;
  build: LabBuild;
  progressEvery: number;
  /** True for tasks solvable under a causal mask (all but 'reverse'): attention maps are 0 above the diagonal. */
  causal: boolean;
}

export interface LabEvaluation {
  length: number;
  /** Accuracy over labelled positions (mean over the evaluation batches). */
  accuracy: number;
  /** Fraction of sequences whose every labelled position is right. */
  perSequence: number;
  /** [length] accuracy at each position, NaN where no position is labelled (shift-k: positions < k). */
  perPosition: Float64Array;
  /** Sequences evaluated (batches × batch). */
  sequences: number;
}

export interface LabAttention {
  length: number;
  tokens: Int32Array;
  /** −1 where the position has no label. */
  labels: Int32Array;
  predictions: Int32Array;
  layers: number;
  heads: number;
  /** layers · heads maps (index layer · heads + head), each length · length: row = query i, column = key j. */
  maps: Float32Array[];
}

export interface LabRun {
  readonly config: LabConfig;
  /** The loss of every training step. */
  readonly losses: Float32Array;
  /** Wall seconds of training. */
  readonly seconds: number;
  /** 3 × forward multiply–add FLOPs × steps. */
  readonly flops: number;
  /** Accuracy on fresh batches at each length (≤ config.maxLength); batches default 8. */
  evaluate(lengths: number[] | number, options?: { batches?: number }): Promise<LabEvaluation[]>;
  /** One sample sequence (seed default 1, length default trainLength) and every head's attention map. */
  attention(options?: { length?: number; seed?: number }): Promise<LabAttention>;
  /** Terminates the worker; later calls reject with an Error saying the run was disposed. */
  dispose(): void;
  [Symbol.dispose](): void;
}

export interface Lab {
  readonly TASKS: readonly LabTask[];
  readonly SCHEMES: readonly LabScheme[];
  readonly DEFAULTS: {
    readonly task: 'shift-k';
    readonly k: number;
    readonly symbols: number;
    readonly trainLength: number;
    readonly steps: number;
    readonly batch: number;
    readonly model: { readonly dim: number; readonly layers: number; readonly heads: number };
    readonly lr: number;
    readonly seed: number;
  };
  /**
   * Trains in a Worker (the lab WebAssembly module loads on the first call). Rejects with TypeError /
   * RangeError / Error for bad options, before any Worker starts.
   */
  train(options: LabTrainOptions): Promise<LabRun>;
}

export const TASKS: readonly LabTask[];
export const SCHEMES: readonly LabScheme[];
export const DEFAULTS: Lab['DEFAULTS'];
export function train(options: LabTrainOptions): Promise<LabRun>;
export const lab: Lab;
export default lab;
