// SentencePiece .model files (spm.model of DeBERTa-v2/v3, spiece.model of T5) → the tokenizer.json
// object @huggingface/tokenizers reads. One job: decode the ModelProto protobuf and describe the same
// tokenization in tokenizer.json terms (the way Hugging Face's convert_slow_tokenizer SpmConverter
// does), aiming at the ids of the SentencePiece library itself:
//   - normalizer: the charsmap rule (nmt_nfkc → Precompiled, nfkc → NFKC, identity → none), then
//     SentencePiece's whitespace handling (remove_extra_whitespaces: strip, collapse runs of ' ';
//     escape_whitespaces: ' ' → '▁'; add_dummy_prefix: a leading '▁' when there is text left);
//   - model: Unigram (pieces with scores; user-defined pieces scored like SentencePiece's lattice
//     does) or BPE (merges ordered by the score of the merged piece);
//   - no pre-tokenizer (SentencePiece segments the whole normalized string).
//
// The protobuf is read with a minimal wire-format reader (below): ModelProto needs varints,
// length-delimited fields and fixed32 floats only, and every read is bounds-checked, so malformed
// files end in an Error naming the file and the problem.

const WIRE = ['varint', 'fixed64', 'length-delimited', 'start-group', 'end-group', 'fixed32'];

/** Piece types of ModelProto.SentencePiece.Type. */
export const PIECE_TYPE = Object.freeze({ NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 });
const MODEL_TYPES = { 1: 'UNIGRAM', 2: 'BPE', 3: 'WORD', 4: 'CHAR' };
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bounds-checked protobuf wire-format reader over bytes[start, end). */
class Reader {
  constructor(bytes, start, end, fail) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    this.fail = fail;
  }

  done() {
    return this.pos >= this.end;
  }

  varint(what) {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; ++i) {
      if (this.pos >= this.end) this.fail(`truncated varint (${what}) at byte ${this.pos}`);
      const b = this.bytes[this.pos++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    this.fail(`varint longer than 10 bytes (${what}) at byte ${this.pos}`);
  }

  /** Next field: { field, wire } */
  tag() {
    const at = this.pos;
    const key = this.varint('field tag');
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) this.fail(`field number 0 at byte ${at}`);
    if (wire > 5) this.fail(`wrong wire type ${wire} for field ${field} at byte ${at}`);
    return { field, wire, at };
  }

  expect(t, wire, what) {
    if (t.wire !== wire) this.fail(`wrong wire type for ${what} at byte ${t.at}: expected ${WIRE[wire]}, got ${WIRE[t.wire]}`);
  }

  /** A length-delimited field's [start, end). */
  span(what) {
    const len = this.varint(`length of ${what}`);
    if (len > this.end - this.pos)
      this.fail(`truncated ${what} at byte ${this.pos}: length ${len}, only ${this.end - this.pos} bytes left`);
    const start = this.pos;
    this.pos += len;
    return [start, this.pos];
  }

  string(what) {
    const [s, e] = this.span(what);
    try {
      return utf8.decode(this.bytes.subarray(s, e));
    } catch {
      this.fail(`${what} at byte ${s} is not valid UTF-8`);
    }
  }

  float(what) {
    if (this.end - this.pos < 4) this.fail(`truncated float (${what}) at byte ${this.pos}`);
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 4).getFloat32(0, true);
    this.pos += 4;
    return v;
  }

  skip(t) {
    if (t.wire === 0) this.varint(`field ${t.field}`);
    else if (t.wire === 2) this.span(`field ${t.field}`);
    else if (t.wire === 1 || t.wire === 5) {
      const n = t.wire === 1 ? 8 : 4;
      if (this.end - this.pos < n) this.fail(`truncated ${WIRE[t.wire]} field ${t.field} at byte ${this.pos}`);
      this.pos += n;
    } else this.fail(`unsupported wire type ${WIRE[t.wire]} (groups) for field ${t.field} at byte ${t.at}`);
  }

  /** Reads a sub-message with handlers { [field]: (reader, tag) => void }. */
  message(handlers) {
    while (!this.done()) {
      const t = this.tag();
      const h = handlers[t.field];
      if (h) h(this, t);
      else this.skip(t);
    }
  }

  sub(what) {
    const [s, e] = this.span(what);
    return new Reader(this.bytes, s, e, this.fail);
  }
}

const varintField = (obj, key, what, set = (v) => (obj[key] = v)) => (r, t) => {
  r.expect(t, 0, what);
  set(r.varint(what));
};
const boolField = (obj, key, what) => (r, t) => {
  r.expect(t, 0, what);
  obj[key] = r.varint(what) !== 0;
};
const stringField = (obj, key, what, set = (v) => (obj[key] = v)) => (r, t) => {
  r.expect(t, 2, what);
  set(r.string(what));
};

/**
 * Decodes a SentencePiece ModelProto.
 * Returns { pieces: [{ piece, score, type }], modelType: 'UNIGRAM' | 'BPE', trainer: { byteFallback,
 * treatWhitespaceAsSuffix }, normalizer: { name, charsmap: Uint8Array,
 * addDummyPrefix, removeExtraWhitespaces, escapeWhitespaces } }.
 * Throws an Error naming `name` and the problem for malformed or unsupported files.
 */
export function parseSentencePieceModel(bytes, name = 'spm.model') {
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${name}: expected the file's bytes as a Uint8Array or ArrayBuffer`);
  const fail = (problem) => {
    throw new Error(`${name}: not a valid SentencePiece model: ${problem}`);
  };
  const pieces = [];
  const trainer = { modelType: 1, byteFallback: false, treatWhitespaceAsSuffix: false };
  const normalizer = { name: '', charsmap: new Uint8Array(0), addDummyPrefix: true, removeExtraWhitespaces: true, escapeWhitespaces: true };
  let p; // the piece being read (handlers are made once: a model has ~10^5 pieces)
  const pieceFields = {
    1: stringField(null, 'piece', 'piece text', (v) => (p.piece = v)),
    2: (r, t) => {
      r.expect(t, 5, 'piece score');
      p.score = r.float('piece score');
    },
    3: varintField(null, 'type', 'piece type', (v) => (p.type = v)),
  };
  new Reader(bytes, 0, bytes.length, fail).message({
    1: (r, t) => {
      r.expect(t, 2, 'pieces');
      p = { piece: null, score: 0, type: PIECE_TYPE.NORMAL };
      r.sub('piece').message(pieceFields);
      if (p.piece === null || p.piece === '') fail(`piece ${pieces.length} has no text`);
      if (!(p.type >= 1 && p.type <= 6)) fail(`piece ${pieces.length} ('${p.piece}') has unknown type ${p.type}`);
      pieces.push(p);
    },
    2: (r, t) => {
      r.expect(t, 2, 'trainer_spec');
      r.sub('trainer_spec').message({
        3: varintField(trainer, 'modelType', 'model_type'),
        24: boolField(trainer, 'treatWhitespaceAsSuffix', 'treat_whitespace_as_suffix'),
        35: boolField(trainer, 'byteFallback', 'byte_fallback'),
      });
    },
    3: (r, t) => {
      r.expect(t, 2, 'normalizer_spec');
      r.sub('normalizer_spec').message({
        1: stringField(normalizer, 'name', 'normalizer name'),
        2: (rr, tt) => {
          rr.expect(tt, 2, 'precompiled_charsmap');
          const [s, e] = rr.span('precompiled_charsmap');
          normalizer.charsmap = bytes.subarray(s, e);
        },
        3: boolField(normalizer, 'addDummyPrefix', 'add_dummy_prefix'),
        4: boolField(normalizer, 'removeExtraWhitespaces', 'remove_extra_whitespaces'),
        5: boolField(normalizer, 'escapeWhitespaces', 'escape_whitespaces'),
      });
    },
  });
  if (pieces.length === 0) fail('no pieces');
  const modelType = MODEL_TYPES[trainer.modelType];
  if (modelType !== 'UNIGRAM' && modelType !== 'BPE')
    fail(`unsupported model type ${modelType ?? trainer.modelType} (supported: UNIGRAM, BPE)`);
  const unks = pieces.flatMap((p, i) => (p.type === PIECE_TYPE.UNKNOWN ? [i] : []));
  if (unks.length !== 1) fail(`expected exactly one piece of type UNKNOWN, found ${unks.length}`);
  const seen = new Set();
  for (const p of pieces) {
    if (seen.has(p.piece)) fail(`piece '${p.piece}' appears twice`);
    seen.add(p.piece);
    if (!Number.isFinite(p.score)) fail(`piece '${p.piece}' has a non-finite score`);
  }
  if (trainer.treatWhitespaceAsSuffix) fail('treat_whitespace_as_suffix is not supported');
  return { pieces, modelType, unkId: unks[0], trainer, normalizer };
}

const b64 = (bytes) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};

const ZWJ_CARRIER = '\uDC00';

/** The charsmap rules whose effect the tokenizers library reproduces. */
function charsmapNormalizer(spec, name) {
  const rule = spec.name || (spec.charsmap.length ? 'nmt_nfkc' : 'identity');
  if (rule !== 'identity' && rule !== 'nmt_nfkc' && rule !== 'nfkc')
    throw new Error(`${name}: normalization rule '${rule}' is not supported (supported: nmt_nfkc, nfkc, identity)`);
  if (rule === 'identity' || spec.charsmap.length === 0) return []; // SentencePiece maps nothing without a charsmap
  if (rule === 'nfkc') return [{ type: 'NFKC' }];
  // The library's Precompiled applies NFKC and nmt_nfkc's control/space mapping, but turns the
  // zero-width joiner (kept by nmt_nfkc: emoji sequences) into a space; it is carried through as a
  // lone surrogate, which no UTF-8 text (all SentencePiece can take) contains.
  return [
    { type: 'Replace', pattern: { String: '\u200D' }, content: ZWJ_CARRIER },
    { type: 'Precompiled', precompiled_charsmap: b64(spec.charsmap) },
    { type: 'Replace', pattern: { String: ZWJ_CARRIER }, content: '\u200D' },
  ];
}

/** SentencePiece's whitespace handling after the charsmap (normalizer.cc semantics). */
function whitespaceNormalizers(spec) {
  const out = [];
  const space = spec.escapeWhitespaces ? '\u2581' : ' ';
  if (spec.removeExtraWhitespaces) {
    out.push({ type: 'Replace', pattern: { Regex: '\\A +' }, content: '' });
    out.push({ type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' });
  }
  if (spec.escapeWhitespaces) out.push({ type: 'Replace', pattern: { String: ' ' }, content: '\u2581' });
  if (spec.addDummyPrefix) {
    // With remove_extra_whitespaces an all-space text stays empty (no prefix); otherwise a
    // non-empty input always gets it, even when the charsmap removed everything.
    if (spec.removeExtraWhitespaces) out.push({ type: 'Replace', pattern: { Regex: '\\A(?=[\\s\\S])' }, content: space });
    else out.push({ type: 'Prepend', prepend: space });
  }
  // Trailing spaces go last, after escaping: a '▁' typed in the text counts as one (as in SentencePiece).
  if (spec.removeExtraWhitespaces) out.push({ type: 'Replace', pattern: { Regex: `${space}+\\z` }, content: '' });
  return out;
}

/** Pieces the segmentation may produce (SentencePiece keeps control, unknown, byte and unused ones out). */
export const isMatchable = (type) => type === PIECE_TYPE.NORMAL || type === PIECE_TYPE.USER_DEFINED;

function unigramModel(m) {
  // SentencePiece: max_score starts at FLT_MIN (the smallest positive float32) and takes the normal
  // pieces' scores; a user-defined piece scores (UTF-8 length)·max_score − 0.1 (a float32 product,
  // a float64 difference), about −0.1, so that it is always picked.
  let maxScore = 1.1754943508222875e-38;
  for (const p of m.pieces) if (p.type === PIECE_TYPE.NORMAL) maxScore = Math.max(maxScore, p.score);
  const utf8 = new TextEncoder();
  const vocab = m.pieces.map((p) => [p.piece, p.type === PIECE_TYPE.USER_DEFINED ? Math.fround(utf8.encode(p.piece).length * maxScore) - 0.1 : p.score]);
  return { type: 'Unigram', unk_id: m.unkId, vocab, byte_fallback: m.trainer.byteFallback };
}

function bpeModel(m) {
  const vocab = {};
  m.pieces.forEach((p, i) => {
    vocab[p.piece] = i;
  });
  // A merge joins two pieces into a third; SentencePiece applies the one whose result scores
  // highest first, so merges are ranked by the merged piece's score (ties: lower id first).
  const merges = [];
  m.pieces.forEach((p, id) => {
    if (p.type !== PIECE_TYPE.NORMAL && p.type !== PIECE_TYPE.USER_DEFINED) return;
    const chars = [...p.piece];
    for (let k = 1; k < chars.length; ++k) {
      const left = chars.slice(0, k).join('');
      const right = chars.slice(k).join('');
      const l = vocab[left];
      const r = vocab[right];
      if (l === undefined || r === undefined) continue;
      if (!isMatchable(m.pieces[l].type) || !isMatchable(m.pieces[r].type)) continue;
      merges.push({ pair: [left, right], score: p.score, id, l, r });
    }
  });
  merges.sort((a, b) => b.score - a.score || a.id - b.id || a.l - b.l || a.r - b.r);
  return {
    type: 'BPE',
    vocab,
    merges: merges.map((x) => x.pair),
    unk_token: m.pieces[m.unkId].piece,
    fuse_unk: true,
    byte_fallback: m.trainer.byteFallback,
    // A user-defined symbol arrives whole from bpeUserSymbols; BPE takes a word that is a piece as it is.
    ignore_merges: m.pieces.some((p) => p.type === PIECE_TYPE.USER_DEFINED),
  };
}

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\\/]/g, '\\$&');

/**
 * SentencePiece's BPE never splits a user-defined symbol nor merges across one: a Split
 * pre-tokenizer isolates them (longest first, like SentencePiece's prefix matcher), or null.
 */
function bpeUserSymbols(m) {
  const symbols = m.pieces.filter((p) => p.type === PIECE_TYPE.USER_DEFINED).map((p) => p.piece);
  if (symbols.length === 0) return null;
  symbols.sort((a, b) => b.length - a.length);
  return { type: 'Split', pattern: { Regex: symbols.map(escapeRegex).join('|') }, behavior: 'Isolated', invert: false };
}

/**
 * The tokenizer.json object for a parsed model. options: name (the file, for messages);
 * specialTokens [{ id, content, lstrip? }] (added tokens: recognised in the text, never normalized; lstrip: the
 * token takes the whitespace before it);
 * lowercase (a Lowercase normalizer first); template { single, pair } (TemplateProcessing items) or null.
 */
export function sentencePieceTokenizerJson(m, { name = 'spm.model', specialTokens = [], lowercase = false, template = null } = {}) {
  const normalizers = [...(lowercase ? [{ type: 'Lowercase' }] : []), ...charsmapNormalizer(m.normalizer, name), ...whitespaceNormalizers(m.normalizer)];
  const added = (t, special) => ({ id: t.id, content: t.content, single_word: false, lstrip: t.lstrip === true, rstrip: false, normalized: false, special });
  const addedTokens = specialTokens.map((t) => added(t, true));
  const specials = {};
  for (const t of specialTokens) specials[t.content] = { id: t.content, ids: [t.id], tokens: [t.content] };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: normalizers.length ? { type: 'Sequence', normalizers } : null,
    pre_tokenizer: m.modelType === 'BPE' ? bpeUserSymbols(m) : null,
    model: m.modelType === 'BPE' ? bpeModel(m) : unigramModel(m),
    post_processor: template ? { type: 'TemplateProcessing', single: template.single, pair: template.pair, special_tokens: specials } : null,
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '\u2581' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        ...(m.normalizer.addDummyPrefix ? [{ type: 'Strip', content: ' ', start: 1, stop: 0 }] : []),
      ],
    },
  };
}
