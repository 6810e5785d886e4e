// The encoder section's work, run in the worker (demo/worker.js 'encode'): one forward pass to show
// (tokens, attention per layer and head, hidden-state norms) and a timing of repeated passes
// (demo/lib/timing.js: median, min, max, runs).
//   path 'model': the scheme's Hugging Face family — a random-weight checkpoint from checkpoints.js,
//                 loaded with rp.loadModel(files) and run by model.forward (the C++ model layer);
//   path 'js':    schemes with no Hugging Face family — random-encoder.js, assembled in JavaScript
//                 from rp.attention and JS matrix products.
// Both tokenize with the checkpoints' tokenizer.json (@huggingface/tokenizers).
// dtype ('fp32' | 'q8', path 'model' only) is rp.loadModel's weight type; the runner keeps one model
// per dtype of the current family and layer count, so fp32 and q8 alternate without reloading.
import { measure } from '../lib/timing.js';
import { FAMILIES, DIMS, SEED, makeCheckpoint } from './checkpoints.js';
import { RandomEncoder } from './random-encoder.js';
import { makeTokenizerJson } from './tokenizer-json.js';

export const LONG_TOKENS = 256;
// Enough repeated runs for a stable median, bounded so both builds finish in a few seconds.
export const ENCODER_TIMING = Object.freeze({ warmup: 2, minRuns: 7, maxRuns: 40, minMs: 300, runMs: 3 });

export class EncoderRunner {
  constructor(rp, tokenizers) {
    if (!tokenizers?.Tokenizer) throw new Error('the @huggingface/tokenizers module did not load (served at /tokenizers/ by scripts/serve.mjs)');
    this.rp = rp;
    this.tokenizers = tokenizers;
    this.tokenizer = new tokenizers.Tokenizer(makeTokenizerJson(), {});
    this.loaded = new Map(); // dtype → { key, model } for one family/layers key
    this.js = null; // RandomEncoder
  }

  /** text, or for length 'long' the text's words repeated (then '.') to exactly LONG_TOKENS tokens. */
  inputText(text, length) {
    if (length !== 'long') return text;
    const pieces = (s) => this.tokenizer.encode(s).ids.length - 2; // without [CLS] and [SEP]
    const words = text.split(/\s+/).filter((w) => w && pieces(w) > 0);
    const out = [];
    let count = 0;
    for (let i = 0; words.length && i < 4 * LONG_TOKENS; i++) {
      const w = words[i % words.length], c = pieces(w);
      if (count + c > LONG_TOKENS - 2) break;
      out.push(w);
      count += c;
    }
    while (count < LONG_TOKENS - 2) out.push('.'), count++;
    return out.join(' ');
  }

  async model(family, layers, dtype = 'fp32') {
    const key = `${family}/${layers}`;
    for (const [d, m] of this.loaded) if (m.key !== key) m.model.dispose(), this.loaded.delete(d);
    const hit = this.loaded.get(dtype);
    if (hit) return hit.model;
    const model = await this.rp.loadModel(makeCheckpoint(family, { layers }), { tokenizers: this.tokenizers, dtype });
    this.loaded.set(dtype, { key, model });
    return model;
  }

  /** request: { text, scheme, family (null = the JS path), layers, length: 'text' | 'long', dtype?, timing? } */
  async run({ text, scheme, family, layers, length, dtype, timing }) {
    const input = this.inputText(text, length);
    const opts = { ...ENCODER_TIMING, ...timing };
    const base = { config: { layers, heads: DIMS.heads, hidden: DIMS.hidden, ffn: DIMS.ffn, seed: SEED } };
    if (family) {
      const f = FAMILIES[family];
      if (!f || f.scheme !== scheme) throw new Error(`model family ${family} does not implement the scheme ${scheme}`);
      const model = await this.model(family, layers, dtype ?? 'fp32');
      const out = model.forward({ text: input }, { outputAttentions: true, outputHiddenStates: true });
      const ids = Array.from(out.inputIds.data);
      const S = ids.length, D = out.lastHiddenState.dims[2];
      const t = measure(() => model.forward({ inputIds: [ids] }), opts);
      return {
        ...base,
        path: 'model', family, familyLabel: f.label, modelType: model.info.modelType, causal: model.info.causal,
        dtype: model.info.dtype ?? 'fp32', weightBytes: model.info.weightBytes ?? null,
        timed: 'model.forward({ inputIds })',
        tokens: out.tokens[0], shape: [S, D], hidden: out.lastHiddenState.data, attentionMask: out.attentionMask.data,
        layers: out.attentions.map((a, l) => ({ probs: a.data, norms: rowNorms(out.hiddenStates[l + 1].data, S, D) })),
        timing: { forward: strip(t) },
      };
    }
    if (!this.js || this.js.config.layers !== layers) this.js = new RandomEncoder(this.rp, { layers, dModel: DIMS.hidden, heads: DIMS.heads, ffn: DIMS.ffn, seed: SEED });
    const enc = this.tokenizer.encode(input);
    const t = measure(() => this.js.forward(enc.ids, scheme), { ...opts, parts: (r) => ({ attention: r.attentionMs }) });
    const r = t.last;
    return {
      ...base,
      path: 'js', family: null, causal: false, timed: 'the JavaScript encoder’s forward',
      tokens: enc.tokens, shape: r.shape, hidden: r.hidden, layers: r.layers,
      timing: { forward: strip(t), attention: t.parts.attention },
    };
  }
}

const strip = ({ median, min, max, runs, calls }) => ({ median, min, max, runs, calls });

function rowNorms(x, rows, width) {
  const out = [];
  for (let i = 0; i < rows; i++) {
    let s = 0;
    for (let j = 0; j < width; j++) s += x[i * width + j] ** 2;
    out.push(Math.sqrt(s));
  }
  return out;
}
