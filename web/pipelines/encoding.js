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
// Byte-level BPE tokenizers (GPT-2 / RoBERTa / ModernBERT: ByteLevel pre-tokenizer or decoder)
// spell each UTF-8 byte as a printable character ('Ġ' is the space, 'Ã©' is 'é'): their tokens are
// turned back into bytes and decoded, and each decoded character is matched against the normalized
// text; a character whose bytes are split over several tokens (an accented letter, an emoji, CJK)
// belongs to each of them, and whitespace bytes to none (RoBERTa's trim_offsets; Hugging Face's
// ModernBERT offsets keep the space before a token, as its post-processor does not trim).
import { describe } from '../validation.js';

const SPACE = /\s/u;
const SPIECE = '\u2581';
// BERT's punctuation: ASCII symbol ranges and Unicode P*.
const PUNCT = /^[\p{P}!-/:-@[-`{-~]$/u;
const CLUSTER = /\P{M}\p{M}*|\p{M}+/gsu;

/** What kind of word-piece markers the tokenizer's tokens carry ('bytelevel': one character per UTF-8 byte). */
export function tokenizerKind(tokenizer) {
  const json = tokenizer.tokenizer ?? {};
  if (json.model?.type === 'WordPiece') return { type: 'wordpiece', prefix: json.model.continuing_subword_prefix ?? '##' };
  if (/"type":"ByteLevel"/.test(JSON.stringify(json.pre_tokenizer ?? null) + JSON.stringify(json.decoder ?? null))) return { type: 'bytelevel' };
  const decoder = JSON.stringify(json.decoder ?? null) + JSON.stringify(json.pre_tokenizer ?? null) + JSON.stringify(json.normalizer ?? null);
  if (decoder.includes(SPIECE) || decoder.includes('\\u2581') || decoder.includes('Metaspace')) return { type: 'sentencepiece' };
  return { type: 'other' };
}

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the other 68 (controls, space,
// 0x7F–0xA0, 0xAD) for U+0100 onwards in byte order. BYTE_OF maps such a character to its byte.
const BYTE_OF = (() => {
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const map = new Map();
  let next = 0x100;
  for (let b = 0; b < 256; ++b) map.set(String.fromCharCode(printable(b) ? b : next++), b);
  return map;
})();

/** The bytes a byte-level token spells, or null when one of its characters is not a byte character. */
export function tokenBytes(token) {
  const out = [];
  for (const ch of token) {
    const b = BYTE_OF.get(ch);
    if (b === undefined) return null;
    out.push(b);
  }
  return out;
}

/** Byte-level tokens as text: their bytes decoded as UTF-8 (invalid bytes become U+FFFD, as Hugging Face's decoder does). */
export function byteLevelText(tokens) {
  const bytes = tokens.flatMap((t) => tokenBytes(t) ?? Array.from(new TextEncoder().encode(t)));
  return new TextDecoder().decode(Uint8Array.from(bytes));
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
  if (added) return token.replace(/\s+/gu, '');
  let t = token;
  if (kind.type === 'wordpiece' && t.startsWith(kind.prefix)) t = t.slice(kind.prefix.length);
  return t.replaceAll(SPIECE, '').replace(/\s+/gu, '');
}

/**
 * Byte-level offsets: the tokens' bytes decoded back into characters, in order, each matched
 * against the normalized text and given to every token that holds one of its bytes. Added tokens
 * match without their whitespace; a token that spells no bytes (the unknown token) covers one character.
 */
function alignBytes(tokenizer, tokens, view, unk) {
  const { flat, from, to } = view;
  const n = flat.length;
  const spans = tokens.map(() => null); // [first, last] index into flat
  const here = [];
  let p = 0;
  const cover = (i, len) => {
    if (len <= 0) return;
    spans[i] = spans[i] ? [spans[i][0], p + len - 1] : [p, p + len - 1];
  };
  const take = (ch, owners) => {
    if (SPACE.test(ch) || p >= n) return;
    const len = flat.startsWith(ch, p) ? ch.length : Math.min(ch.length, n - p); // a normalization not reproduced: same length
    for (const i of owners) cover(i, len);
    p += len;
  };
  // UTF-8 decoding across token boundaries: the character being read, its bytes still missing, and its tokens.
  let cp = 0;
  let need = 0;
  let owners = [];
  const broken = () => {
    if (owners.length) take('\uFFFD', owners);
    need = 0;
    owners = [];
  };
  for (let i = 0; i < tokens.length; ++i) {
    const t = tokens[i];
    here.push(p < n ? from[p] : view.length);
    const added = isAdded(tokenizer, t);
    const bytes = added || t === unk ? null : tokenBytes(t);
    if (bytes === null) {
      broken();
      if (p >= n) continue;
      // an added token matches without its whitespace (GPT-NeoX's runs of spaces are added tokens)
      const s = t.replace(/\s+/gu, '');
      const len = added ? (flat.startsWith(s, p) ? s.length : Math.min(s.length, n - p)) : String.fromCodePoint(flat.codePointAt(p)).length;
      cover(i, len);
      p += len;
      continue;
    }
    for (const b of bytes) {
      if (need > 0 && (b & 0xc0) === 0x80) {
        cp = cp * 64 + (b & 0x3f);
        if (owners[owners.length - 1] !== i) owners.push(i);
        if (--need === 0) {
          const o = owners;
          owners = [];
          take(cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD', o);
        }
        continue;
      }
      broken();
      if (b < 0x80) take(String.fromCharCode(b), [i]);
      else if (b >= 0xc2 && b <= 0xf4) {
        need = b >= 0xf0 ? 3 : b >= 0xe0 ? 2 : 1;
        cp = b & (0x3f >> need);
        owners = [i];
      } else take('\uFFFD', [i]);
    }
  }
  broken();
  return spans.map((sp, i) => (sp ? [from[sp[0]], to[sp[1]]] : [here[i], here[i]]));
}

/**
 * Byte-level word ids as Hugging Face's fast tokenizers give them: the pieces of the pre-tokenizer
 * (' world', ',', '  '), found by pre-tokenizing the decoded text of each run of tokens between
 * added tokens again. Null when that does not tile the tokens' bytes.
 */
function byteLevelWords(tokenizer, tokens, unk) {
  if (!tokenizer.pre_tokenizer) return null;
  const words = [];
  let word = -1;
  let run = [];
  const endRun = () => {
    if (run.length === 0) return true;
    const bytes = run.map((i) => tokenBytes(tokens[i]));
    const all = bytes.flat();
    let pieces;
    try {
      pieces = tokenizer.pre_tokenizer(new TextDecoder().decode(Uint8Array.from(all)));
    } catch {
      return false;
    }
    const starts = new Set();
    let at = 0;
    for (const piece of pieces) {
      starts.add(at);
      at += piece.length; // one character per byte
    }
    if (at !== all.length) return false;
    at = 0;
    run.forEach((i, k) => {
      if (starts.has(at)) ++word;
      words[i] = word;
      at += bytes[k].length;
    });
    run = [];
    return true;
  };
  for (let i = 0; i < tokens.length; ++i) {
    const t = tokens[i];
    if (isAdded(tokenizer, t) || t === unk || tokenBytes(t) === null) {
      if (!endRun()) return null;
      words[i] = ++word;
    } else run.push(i);
  }
  return endRun() ? words : null;
}

/**
 * Offsets [start, end) into `text` for `tokens` (no special tokens added), and word ids.
 * tokens: the token strings tokenizer.encode gave; unkToken: the model's unknown token.
 */
export function alignTokens(tokenizer, text, tokens) {
  const kind = tokenizerKind(tokenizer);
  const unk = tokenizer.model?.unk_token;
  const view = normalizedView(tokenizer, text);
  if (kind.type === 'bytelevel') {
    const offsets = alignBytes(tokenizer, tokens, view, unk);
    return { offsets, words: byteLevelWords(tokenizer, tokens, unk) ?? spaceWords(tokenizer, text, tokens, offsets) };
  }
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
  return { offsets, words: spaceWords(tokenizer, text, tokens, offsets, kind) };
}

/**
 * Words: WordPiece — a token without the '##' prefix starts one; SentencePiece — a token starting
 * with '▁'; otherwise whitespace between two tokens. Added tokens are words of their own.
 */
function spaceWords(tokenizer, text, tokens, offsets, kind = { type: 'other' }) {
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
  return words;
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
