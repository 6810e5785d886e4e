// Tokenization for the task pipelines: ids with character offsets into the original JS string,
// word ids, special-token layout of one text or a pair, and truncation.
//
// @huggingface/tokenizers (npm) returns ids and token strings but no offsets, so offsets are found
// by aligning the tokens with the text: the text is cut into clusters (a code point and the
// combining marks after it), each cluster is passed through the tokenizer's own normalizer
// (lowercasing, accent stripping, NFKC, …) and remembers which UTF-16 range of the original it
// came from; the tokens, with their word-piece markers removed ('##', '▁'), are then matched in
// order against the normalized characters. Whitespace never belongs to a token: a SentencePiece
// piece '▁word' covers 'word' only (Hugging Face's fast SentencePiece tokenizers also count the
// space before it; BERT-style and RoBERTa's trimmed offsets do not). Unknown tokens cover the
// characters up to where the next token matches (WordPiece: the whole word, as [UNK] stands for one).
import { describe } from '../validation.js';

const SPACE = /\s/u;
const SPIECE = '\u2581';
// BERT's punctuation: ASCII symbol ranges and Unicode P*.
const PUNCT = /^[\p{P}!-/:-@[-`{-~]$/u;
const CLUSTER = /\P{M}\p{M}*|\p{M}+/gsu;

/** What kind of word-piece markers the tokenizer's tokens carry. */
export function tokenizerKind(tokenizer) {
  const json = tokenizer.tokenizer ?? {};
  if (json.model?.type === 'WordPiece') return { type: 'wordpiece', prefix: json.model.continuing_subword_prefix ?? '##' };
  const decoder = JSON.stringify(json.decoder ?? null) + JSON.stringify(json.pre_tokenizer ?? null) + JSON.stringify(json.normalizer ?? null);
  if (decoder.includes(SPIECE) || decoder.includes('\\u2581') || decoder.includes('Metaspace')) return { type: 'sentencepiece' };
  return { type: 'other' };
}

function isAdded(tokenizer, token) {
  return Boolean(tokenizer.added_tokens_map?.has(token));
}

/** The normalized text without whitespace, and for each of its UTF-16 units the original range. */
function normalizedView(tokenizer, text) {
  const sections = tokenizer.splitter_unnormalized ? tokenizer.splitter_unnormalized.split(text) : [text];
  let flat = '';
  const from = [];
  const to = [];
  const gap = [];
  let pendingGap = false;
  const push = (str, s, e) => {
    for (let k = 0; k < str.length; ++k) {
      from.push(s);
      to.push(e);
      gap.push(pendingGap);
      pendingGap = false;
    }
    flat += str;
  };
  let at = 0;
  for (const section of sections) {
    if (isAdded(tokenizer, section)) {
      pendingGap = true;
      for (let k = 0; k < section.length; ++k) push(section[k], at + k, at + k + 1);
      pendingGap = true;
      at += section.length;
      continue;
    }
    for (const m of section.matchAll(CLUSTER)) {
      const c = m[0];
      const s = at + m.index;
      if (SPACE.test(c)) {
        pendingGap = true;
        continue;
      }
      const n = tokenizer.normalizer ? tokenizer.normalizer(c) : c;
      for (const ch of n) {
        if (ch === SPIECE) continue; // a dummy prefix the normalizer adds to every piece of text
        if (SPACE.test(ch)) pendingGap = true; // e.g. BERT's spaces around CJK characters
        else push(ch, s, s + c.length);
      }
    }
    at += section.length;
  }
  return { flat, from, to, gap, length: text.length };
}

function surfaceOf(token, kind, added) {
  if (added) return token;
  let t = token;
  if (kind.type === 'wordpiece' && t.startsWith(kind.prefix)) t = t.slice(kind.prefix.length);
  return t.replaceAll(SPIECE, '').replace(/\s+/gu, '');
}

/**
 * Offsets [start, end) into `text` for `tokens` (no special tokens added), and word ids.
 * tokens: the token strings tokenizer.encode gave; unkToken: the model's unknown token.
 */
export function alignTokens(tokenizer, text, tokens) {
  const kind = tokenizerKind(tokenizer);
  const unk = tokenizer.model?.unk_token;
  const view = normalizedView(tokenizer, text);
  const { flat, from, to, gap } = view;
  const n = flat.length;
  const nextGap = (p) => {
    let q = p + 1;
    while (q < n && !gap[q]) ++q;
    return q;
  };
  const surfaces = tokens.map((t) => surfaceOf(t, kind, isAdded(tokenizer, t)));
  const offsets = [];
  let p = 0;
  for (let i = 0; i < tokens.length; ++i) {
    const s = surfaces[i];
    const here = p < n ? from[p] : view.length;
    if (s === '') {
      offsets.push([here, here]);
      continue;
    }
    if (p >= n) {
      offsets.push([view.length, view.length]);
      continue;
    }
    let len;
    if (tokens[i] !== unk && flat.startsWith(s, p)) {
      len = s.length;
    } else if (tokens[i] !== unk) {
      len = Math.min(s.length, n - p); // a normalization this alignment does not reproduce: same length
    } else if (kind.type === 'wordpiece') {
      // [UNK] replaces one pre-tokenized word: a punctuation character or a run up to the next break
      if (PUNCT.test(flat[p])) len = 1;
      else {
        let q = p + 1;
        while (q < n && !gap[q] && !PUNCT.test(flat[q])) ++q;
        len = q - p;
      }
    } else {
      const limit = nextGap(p);
      let next = i + 1;
      while (next < tokens.length && (surfaces[next] === '' || tokens[next] === unk)) ++next;
      let q = limit;
      if (next < tokens.length) {
        for (let c = p + 1; c < limit; ++c)
          if (flat.startsWith(surfaces[next], c)) {
            q = c;
            break;
          }
      }
      len = q - p;
    }
    offsets.push([from[p], to[p + len - 1]]);
    p += len;
  }
  // Words: WordPiece — a token without the '##' prefix starts one; SentencePiece — a token starting
  // with '▁'; otherwise whitespace between two tokens. Added tokens are words of their own.
  const words = [];
  let word = -1;
  for (let i = 0; i < tokens.length; ++i) {
    const t = tokens[i];
    const added = isAdded(tokenizer, t);
    let starts;
    if (i === 0 || added || isAdded(tokenizer, tokens[i - 1])) starts = true;
    else if (kind.type === 'wordpiece') starts = !t.startsWith(kind.prefix);
    else if (kind.type === 'sentencepiece') starts = t.startsWith(SPIECE);
    else starts = offsets[i][0] > offsets[i - 1][1] && SPACE.test(text.slice(offsets[i - 1][1], offsets[i][0]));
    if (starts) ++word;
    words.push(word);
  }
  return { offsets, words };
}

/** One text tokenized without special tokens: { ids, tokens, offsets, words }. */
export function encodeSegment(tokenizer, text) {
  const enc = tokenizer.encode(text, { add_special_tokens: false });
  const { offsets, words } = alignTokens(tokenizer, text, enc.tokens);
  return { ids: enc.ids, tokens: enc.tokens, offsets, words };
}

const sentinel = (side, i) => `\u0000${side}${i}`;

/**
 * Where special tokens go around segments of nA and nB tokens (nB null: one text), as the
 * tokenizer's post-processor lays them out: [{ seq: 0 | 1, index } | { special: token }] and types.
 */
function layout(tokenizer, nA, nB) {
  const A = Array.from({ length: nA }, (_, i) => sentinel('A', i));
  const B = nB === null ? null : Array.from({ length: nB }, (_, i) => sentinel('B', i));
  const r = tokenizer.post_processor ? tokenizer.post_processor(A, B, true) : { tokens: [...A, ...(B ?? [])] };
  const types = r.token_type_ids ?? r.tokens.map(() => 0);
  return r.tokens.map((t, i) => {
    const m = /^\u0000([AB])(\d+)$/.exec(t);
    return m ? { seq: m[1] === 'A' ? 0 : 1, index: Number(m[2]), type: types[i] } : { special: t, type: types[i] };
  });
}

/** Number of special tokens the tokenizer adds to one text (pair false) or a pair. */
export function specialCount(tokenizer, pair) {
  return layout(tokenizer, 0, pair ? 0 : null).length;
}

/**
 * Segments (from encodeSegment, already cut) joined with the special tokens: { ids, typeIds,
 * tokens, offsets (null for special tokens), words (null for special), sequenceIds (null for special) }.
 */
export function assemble(tokenizer, a, b = null) {
  const items = layout(tokenizer, a.ids.length, b ? b.ids.length : null);
  const out = { ids: [], typeIds: [], tokens: [], offsets: [], words: [], sequenceIds: [] };
  for (const it of items) {
    if (it.special !== undefined) {
      const id = tokenizer.token_to_id(it.special);
      if (id === undefined) throw new Error(`tokenizer: the special token ${describe(it.special)} of its post-processor is not in the vocabulary`);
      out.ids.push(id);
      out.tokens.push(it.special);
      out.offsets.push(null);
      out.words.push(null);
      out.sequenceIds.push(null);
    } else {
      const seg = it.seq === 0 ? a : b;
      out.ids.push(seg.ids[it.index]);
      out.tokens.push(seg.tokens[it.index]);
      out.offsets.push(seg.offsets[it.index]);
      out.words.push(seg.words[it.index]);
      out.sequenceIds.push(it.seq);
    }
    out.typeIds.push(it.type);
  }
  return out;
}

/** The first n tokens of a segment. */
export function cut(seg, n) {
  if (n >= seg.ids.length) return seg;
  return { ids: seg.ids.slice(0, n), tokens: seg.tokens.slice(0, n), offsets: seg.offsets.slice(0, n), words: seg.words.slice(0, n) };
}

/**
 * Lengths after truncating a pair to `budget` tokens (special tokens excluded). 'longest_first' is
 * the Hugging Face tokenizers (Rust) rule: the shorter side keeps its length when the longer can take
 * the rest, otherwise each gets half (the longer one the odd token); 'only_first' / 'only_second'
 * cut one side only.
 */
export function truncatedLengths(nA, nB, budget, strategy = 'longest_first') {
  if (nA + nB <= budget) return [nA, nB];
  if (strategy === 'only_first') return [Math.max(0, budget - nB), nB];
  if (strategy === 'only_second') return [nA, Math.max(0, budget - nA)];
  const swap = nA > nB;
  let short = swap ? nB : nA;
  let long;
  if (short > budget) long = short;
  else long = Math.max(short, budget - short);
  if (short + long > budget) {
    short = Math.floor(budget / 2);
    long = short + (budget % 2);
  }
  const [a, b] = swap ? [long, short] : [short, long];
  return [Math.min(a, nA), Math.min(b, nB)];
}

/**
 * Encodes one text or a pair with special tokens; with maxLength (a number) and truncation, cuts
 * the segments so that the whole fits (strategy as truncatedLengths). Returns assemble()'s fields
 * plus `truncated` (tokens dropped).
 */
export function encodeInput(tokenizer, text, textPair = null, { maxLength = null, truncation = true, strategy = 'longest_first' } = {}) {
  let a = encodeSegment(tokenizer, text);
  let b = textPair === null || textPair === undefined ? null : encodeSegment(tokenizer, textPair);
  let truncated = 0;
  if (maxLength !== null && truncation) {
    const budget = maxLength - specialCount(tokenizer, b !== null);
    if (budget < 0) throw new RangeError(`maxLength: ${maxLength} is less than the ${maxLength - budget} special tokens the tokenizer adds`);
    const [ka, kb] = b ? truncatedLengths(a.ids.length, b.ids.length, budget, strategy) : [Math.min(a.ids.length, budget), 0];
    if (b && strategy === 'only_first' && b.ids.length > budget)
      throw new RangeError(`maxLength: the second text alone has ${b.ids.length} tokens, more than the ${budget} that fit in maxLength ${maxLength}`);
    if (b && strategy === 'only_second' && a.ids.length > budget)
      throw new RangeError(`maxLength: the first text alone has ${a.ids.length} tokens, more than the ${budget} that fit in maxLength ${maxLength}`);
    truncated = a.ids.length - ka + (b ? b.ids.length - kb : 0);
    a = cut(a, ka);
    if (b) b = cut(b, kb);
  }
  return { ...assemble(tokenizer, a, b), truncated };
}
