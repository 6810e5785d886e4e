// Tokenizers without tokenizer.json: SentencePiece models (web/sentencepiece.js → @huggingface/tokenizers,
// chosen by web/tokenizer.js) give the ids of the SentencePiece library itself. The models and the
// reference ids are made at test time by scripts/make-spm-models.py (spm_train + Debian's
// python3-sentencepiece, into build/spm/); scripts/test.sh runs it before the JS suites, and this file
// runs it when build/spm/reference.json is missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { Tokenizer } from '@huggingface/tokenizers';
import { init, pipeline } from '../../web/index.js';
import { parseSentencePieceModel, PIECE_TYPE } from '../../web/sentencepiece.js';
import { sentencePieceTokenizer } from '../../web/tokenizer.js';
import { ROOT } from './helpers.mjs';
import { bytesField, f32, field, goodPieces, piece, proto, str } from './spm-proto.mjs';
import { FIXTURES, haveFixtures } from './safetensors.mjs';

const SPM = join(ROOT, 'build', 'spm');
if (!existsSync(join(SPM, 'reference.json'))) execFileSync('/usr/bin/python3', [join(ROOT, 'scripts', 'make-spm-models.py'), SPM], { stdio: 'inherit' });
const ref = JSON.parse(readFileSync(join(SPM, 'reference.json'), 'utf8'));
const modelBytes = (name) => new Uint8Array(readFileSync(join(SPM, ref.models[name].file)));
const plain = (name) => sentencePieceTokenizer(Tokenizer, modelBytes(name), { file: ref.models[name].file, modelType: null });
const skipFixtures = haveFixtures ? false : 'no HF fixtures';

test('the reference covers Unigram and BPE, nmt_nfkc and identity, byte fallback, whitespace options and user-defined/control pieces', () => {
  const parsed = Object.fromEntries(Object.keys(ref.models).map((n) => [n, parseSentencePieceModel(modelBytes(n), n)]));
  const some = (f) => Object.values(parsed).some(f);
  for (const type of ['UNIGRAM', 'BPE']) {
    assert.ok(some((m) => m.modelType === type && m.normalizer.name === 'nmt_nfkc'), `${type} nmt_nfkc`);
    assert.ok(some((m) => m.modelType === type && m.normalizer.name === 'identity'), `${type} identity`);
    assert.ok(some((m) => m.modelType === type && m.trainer.byteFallback), `${type} byte_fallback`);
    assert.ok(some((m) => m.modelType === type && !m.normalizer.removeExtraWhitespaces), `${type} keep whitespace`);
    assert.ok(some((m) => m.modelType === type && !m.normalizer.addDummyPrefix), `${type} no dummy prefix`);
    assert.ok(some((m) => m.modelType === type && m.pieces.some((p) => p.type === PIECE_TYPE.USER_DEFINED)), `${type} user-defined`);
    assert.ok(some((m) => m.modelType === type && m.pieces.filter((p) => p.type === PIECE_TYPE.CONTROL).length > 2), `${type} control`);
  }
  assert.ok(ref.texts.includes('') && ref.texts.some((t) => /\t/.test(t)) && ref.texts.some((t) => /😀/.test(t)));
});

for (const name of Object.keys(ref.models)) {
  test(`${name}: ids and pieces equal the SentencePiece library's for every text`, () => {
    const tok = plain(name);
    const m = parseSentencePieceModel(modelBytes(name), name);
    ref.texts.forEach((text, i) => {
      const enc = tok.encode(text, { add_special_tokens: false });
      const want = ref.ids[name][i];
      assert.deepEqual(enc.ids, want, `ids of ${JSON.stringify(text)}`);
      // Pieces too; an unknown piece is its text in SentencePiece, '<unk>' in the library's BPE.
      const pieces = ref.pieces[name][i].map((p, k) => (m.modelType === 'BPE' && want[k] === m.unkId ? m.pieces[m.unkId].piece : p));
      assert.deepEqual(enc.tokens, pieces, `pieces of ${JSON.stringify(text)}`);
    });
  });
}

test('nmt_nfkc: every code point of the BMP and plane 1 gets SentencePiece\'s ids, but for NFKC mappings newer than its tables', () => {
  const { model, points, ids, kept } = ref.sweep;
  const tok = plain(model);
  const keptRaw = new Set(kept);
  const differ = [];
  points.forEach((c, i) => {
    const got = tok.encode(`a${String.fromCodePoint(c)}b`, { add_special_tokens: false }).ids;
    if (JSON.stringify(got) !== JSON.stringify(ids[i])) differ.push(c);
  });
  // Allowed: U+0344 (SentencePiece maps it to U+0308 U+0301 without composing with the letter before)
  // and characters SentencePiece leaves as they are while this JavaScript engine's Unicode NFKC maps
  // them (assigned after SentencePiece's tables, e.g. Unicode 16's U+A7F1–A7F3, U+1CCD6–1CCF9).
  const unexplained = differ.filter((c) => c !== 0x344 && !(keptRaw.has(c) && String.fromCodePoint(c).normalize('NFKC') !== String.fromCodePoint(c)));
  assert.deepEqual(unexplained.map((c) => c.toString(16)), []);
  assert.ok(points.length > 129000 && differ.length < 40, `${differ.length} of ${points.length} differ`);
});

test('DeBERTa-v2 layout: [CLS] a [SEP] and [CLS] a [SEP] b [SEP], token types 0 then 1, ids from the model', () => {
  const ids = ref.models.deberta.piece_ids;
  assert.deepEqual([ids['[PAD]'], ids['[CLS]'], ids['[SEP]'], ids['[UNK]']], [0, 1, 2, 3]);
  const tok = sentencePieceTokenizer(Tokenizer, modelBytes('deberta'), { file: 'spm.model', modelType: 'deberta-v2' });
  const [a, b] = [1, 2];
  const single = tok.encode(ref.texts[a], { return_token_type_ids: true });
  assert.deepEqual(single.ids, [1, ...ref.ids.deberta[a], 2]);
  assert.deepEqual(single.token_type_ids, single.ids.map(() => 0));
  const pair = tok.encode(ref.texts[a], { text_pair: ref.texts[b], return_token_type_ids: true });
  assert.deepEqual(pair.ids, [1, ...ref.ids.deberta[a], 2, ...ref.ids.deberta[b], 2]);
  const na = ref.ids.deberta[a].length + 2;
  assert.deepEqual(pair.token_type_ids, pair.ids.map((_, k) => (k < na ? 0 : 1)));
  // special tokens in the text are recognised, as the slow tokenizer does
  assert.deepEqual(tok.encode('[MASK]', { add_special_tokens: false }).ids, [ids['[MASK]']]);
});

test('DeBERTa-v2: do_lower_case lowercases before SentencePiece; a [MASK] missing from the model gets the next id', () => {
  const lower = sentencePieceTokenizer(Tokenizer, modelBytes('deberta'), { modelType: 'deberta-v2', config: { do_lower_case: true } });
  const base = sentencePieceTokenizer(Tokenizer, modelBytes('deberta'), { modelType: 'deberta-v2' });
  assert.deepEqual(lower.encode('Hello WORLD Café').ids, base.encode('hello world café').ids);
  assert.notDeepEqual(base.encode('Hello WORLD Café').ids, base.encode('hello world café').ids);
  const t5model = modelBytes('t5'); // has no [MASK] piece: appended after the 96 pieces
  const tok = sentencePieceTokenizer(Tokenizer, t5model, {
    modelType: 'deberta-v2',
    config: { cls_token: { content: '</s>' }, sep_token: '</s>', unk_token: '<unk>', pad_token: '<pad>', mask_token: '[MASK]' },
  });
  assert.deepEqual(tok.encode('[MASK]').ids, [1, 96, 1]);
});

test('T5 layout: a </s> and a </s> b </s> (token types 0); <pad>=0 </s>=1 <unk>=2; <extra_id_N> after the pieces', () => {
  assert.deepEqual(ref.models.t5.piece_ids, { '</s>': 1, '<pad>': 0, '<unk>': 2 });
  const tok = sentencePieceTokenizer(Tokenizer, modelBytes('t5'), { file: 'spiece.model', modelType: 't5', config: { extra_ids: 3 } });
  const [a, b] = [2, 0];
  assert.deepEqual(tok.encode(ref.texts[a]).ids, [...ref.ids.t5[a], 1]);
  const pair = tok.encode(ref.texts[a], { text_pair: ref.texts[b], return_token_type_ids: true });
  assert.deepEqual(pair.ids, [...ref.ids.t5[a], 1, ...ref.ids.t5[b], 1]);
  assert.ok(pair.token_type_ids.every((t) => t === 0));
  assert.deepEqual(tok.encode('<extra_id_0> <extra_id_2>', { add_special_tokens: false }).ids, [98, 96]);
  const def = sentencePieceTokenizer(Tokenizer, modelBytes('t5'), { modelType: 't5' }); // T5Tokenizer's default: 100 extra ids
  assert.deepEqual(def.encode('<extra_id_0>', { add_special_tokens: false }).ids, [195]);
});

test('a model type without a known special-token layout, or split_by_punct, is a clear Error', () => {
  assert.throws(() => sentencePieceTokenizer(Tokenizer, modelBytes('t5'), { file: 'spiece.model', modelType: 'bert' }), /spiece\.model: no special-token layout is known for model_type 'bert'/);
  assert.throws(
    () => sentencePieceTokenizer(Tokenizer, modelBytes('deberta'), { modelType: 'deberta-v2', config: { split_by_punct: true } }),
    /split_by_punct is not supported/,
  );
  assert.throws(() => sentencePieceTokenizer(Tokenizer, modelBytes('deberta'), { modelType: 'deberta-v2', config: { cls_token: 5 } }), /cls_token: expected a string/);
  assert.throws(() => sentencePieceTokenizer(Tokenizer, modelBytes('t5'), { modelType: 't5', config: { extra_ids: 1e12 } }), /extra_ids: expected an integer in \[0, 100000\], got 1000000000000/);
});

// ---- loadModel with a SentencePiece model in place of tokenizer.json --------------------------------

const work = mkdtempSync(join(tmpdir(), 'relpos-spm-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A fixture folder (config.json + model.safetensors) with `spmName` from build/spm/<model>.model. */
function folder(fixture, model, spmName, extra = {}) {
  const dir = join(work, `${fixture}-${spmName}`);
  execFileSync('mkdir', ['-p', dir]);
  for (const f of ['config.json', 'model.safetensors']) copyFileSync(join(FIXTURES, fixture, f), join(dir, f));
  copyFileSync(join(SPM, ref.models[model].file), join(dir, spmName));
  for (const [name, value] of Object.entries(extra)) writeFileSync(join(dir, name), JSON.stringify(value));
  return dir;
}

for (const [fixture, model, spmName, layout, pairLayout] of [
  ['deberta-v2-b-v3like', 'deberta', 'spm.model', (ids) => [1, ...ids, 2], (a, b) => [1, ...a, 2, ...b, 2]],
  ['t5-a-classic', 't5', 'spiece.model', (ids) => [...ids, 1], (a, b) => [...a, 1, ...b, 1]],
]) {
  test(`loadModel(${fixture} folder with ${spmName}): forward({ text }), text pairs and feature-extraction use SentencePiece ids`, { skip: skipFixtures }, async () => {
    const rp = await init({ simd: true });
    const vocab = JSON.parse(readFileSync(join(FIXTURES, fixture, 'config.json'), 'utf8')).vocab_size;
    assert.ok(ref.models[model].vocab_size <= vocab);
    const events = [];
    const m = await rp.loadModel(folder(fixture, model, spmName, { 'special_tokens_map.json': {} }), { onProgress: (e) => events.push(e.file) });
    assert.ok(events.includes(spmName));
    const texts = [ref.texts[0], ref.texts[2]];
    const out = m.forward({ text: texts });
    const want = texts.map((t) => layout(ref.ids[model][ref.texts.indexOf(t)]));
    const seq = Math.max(...want.map((r) => r.length));
    assert.deepEqual(out.inputIds.dims, [2, seq]);
    want.forEach((row, b) => assert.deepEqual(Array.from(out.inputIds.data.subarray(b * seq, b * seq + row.length)), row));
    const pair = m.forward({ text: texts[0], textPair: texts[1] });
    assert.deepEqual(Array.from(pair.inputIds.data), pairLayout(ref.ids[model][0], ref.ids[model][2]));
    const byIds = m.forward({ inputIds: want });
    assert.deepEqual(out.lastHiddenState.data, byIds.lastHiddenState.data);
    const extract = pipeline('feature-extraction', m);
    const pooled = await extract(texts[0]);
    const one = m.forward({ inputIds: [want[0]] });
    const H = one.lastHiddenState.dims[2];
    for (let h = 0; h < H; h += 7) {
      let s = 0;
      for (let l = 0; l < want[0].length; ++l) s += one.lastHiddenState.data[l * H + h];
      assert.ok(Math.abs(pooled.data[h] - s / want[0].length) < 1e-5);
    }
    m.dispose();
    rp.dispose();
  });
}

test('a folder with tokenizer.json uses it, not spm.model; a malformed spm.model fails loadModel with the file named', { skip: skipFixtures }, async () => {
  const rp = await init({ simd: true });
  const dir = folder('deberta-v2-b-v3like', 'deberta', 'spm.model');
  writeFileSync(join(dir, 'spm.model'), modelBytes('deberta').subarray(0, 1000));
  await assert.rejects(rp.loadModel(dir), /spm\.model: not a valid SentencePiece model: truncated/);
  const tok = JSON.parse(JSON.stringify(sentencePieceTokenizer(Tokenizer, modelBytes('t5'), { modelType: 't5' }).tokenizer));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tok)); // a T5 tokenizer.json wins over the (broken) spm.model
  const m = await rp.loadModel(dir);
  assert.equal(m.encode('x').inputIds[0].at(-1), 1);
  m.dispose();
  rp.dispose();
});

// ---- malformed .model files ---------------------------------------------------------------------------

test('malformed .model files are clear Errors naming the file and the problem', () => {
  const cases = [
    [proto(...goodPieces, [0x0a]), /truncated varint \(length of piece\) at byte 44/],
    [proto([0x0a, 0x80]), /truncated varint/],
    [proto([0x0a, 0x05, 0x41]), /truncated piece at byte 2: length 5, only 1 bytes left/],
    [proto(field(1, 0, [1])), /wrong wire type for pieces at byte 0: expected length-delimited, got varint/],
    [proto(field(7, 3, [])), /unsupported wire type start-group \(groups\) for field 7/],
    [proto([0x0f]), /wrong wire type 7 for field 1/],
    [proto([0x02]), /field number 0/],
    [proto(Array(11).fill(0xff)), /varint longer than 10 bytes/],
    [proto(bytesField(3, bytesField(1, str('nmt_nfkc')))), /no pieces/],
    [proto(...goodPieces, bytesField(2, field(3, 0, [3]))), /unsupported model type WORD \(supported: UNIGRAM, BPE\)/],
    [proto(...goodPieces, bytesField(2, field(3, 0, [4]))), /unsupported model type CHAR/],
    [proto(...goodPieces, bytesField(2, field(3, 0, [9]))), /unsupported model type 9/],
    [proto(piece('\u2581a', -1, 1)), /exactly one piece of type UNKNOWN, found 0/],
    [proto(...goodPieces, piece('a', -3, 1)), /piece 'a' appears twice/],
    [proto(...goodPieces, piece('b', NaN, 1)), /non-finite score/],
    [proto(piece('x', 0, 9)), /unknown type 9/],
    [proto(bytesField(1, field(2, 5, f32(0)))), /piece 0 has no text/],
    [proto(...goodPieces, piece('', -1, 1)), /piece 3 has no text/],
    [proto(bytesField(1, bytesField(1, [0xff, 0xfe]))), /piece text at byte 4 is not valid UTF-8/],
    [proto(bytesField(1, [...bytesField(1, str('x')), 0x15, 0x00])), /truncated float \(piece score\)/],
    [proto(...goodPieces, bytesField(3, bytesField(1, str('nfkc_cf')))), null],
    [proto(...goodPieces, bytesField(2, field(24, 0, [1]))), /treat_whitespace_as_suffix is not supported/],
  ];
  for (const [bytes, message] of cases) {
    if (message === null) {
      // parses; the unsupported normalization rule is reported when the tokenizer is built
      assert.throws(() => sentencePieceTokenizer(Tokenizer, bytes, { file: 'x.model', modelType: null }), /x\.model: normalization rule 'nfkc_cf' is not supported/);
      continue;
    }
    assert.throws(
      () => parseSentencePieceModel(bytes, 'x.model'),
      (e) => {
        assert.equal(e.constructor, Error);
        assert.match(e.message, /^x\.model: not a valid SentencePiece model: /);
        assert.match(e.message, message);
        return true;
      },
      String(message),
    );
  }
  assert.throws(() => parseSentencePieceModel('not bytes', 'x.model'), TypeError);
  // a minimal valid model works end to end
  const tok = sentencePieceTokenizer(Tokenizer, proto(...goodPieces), { modelType: null });
  assert.deepEqual(tok.encode('a a b', { add_special_tokens: false }).ids, [1, 1, 0]);
});

test('fuzz: 4000 mutated or truncated models each parse or throw an Error, never anything else', () => {
  const seeds = ['unigram-nfkc', 'bpe-bytefallback', 'deberta', 't5'].map(modelBytes).concat([proto(...goodPieces)]);
  let state = 12345;
  const rnd = (n) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state % n;
  };
  const outcomes = { parsed: 0, built: 0, error: 0 };
  for (let i = 0; i < 4000; ++i) {
    const seed = seeds[i % seeds.length];
    let b;
    const kind = rnd(4);
    if (kind === 0) b = seed.slice(0, rnd(seed.length + 1));
    else {
      b = seed.slice();
      const flips = 1 + rnd(kind === 3 ? 40 : 4);
      for (let k = 0; k < flips; ++k) {
        // bias mutations towards the start, where the tags and lengths of the first pieces are
        const at = rnd(2) ? rnd(Math.min(64, b.length)) : rnd(b.length);
        b[at] = kind === 1 ? b[at] ^ (1 << rnd(8)) : rnd(256);
      }
    }
    try {
      const m = parseSentencePieceModel(b, 'fuzz.model');
      ++outcomes.parsed;
      if (i % 10 === 0) {
        const tok = sentencePieceTokenizer(Tokenizer, b, { file: 'fuzz.model', modelType: null });
        assert.ok(Array.isArray(tok.encode('Hello wörld 123', { add_special_tokens: false }).ids));
        ++outcomes.built;
      }
      assert.ok(m.pieces.length > 0);
    } catch (e) {
      if (!(e instanceof Error) || e instanceof assert.AssertionError) throw e;
      assert.ok(e.constructor === Error, `${e.constructor.name}: ${e.message}`);
      assert.match(e.message, /^fuzz\.model: /);
      ++outcomes.error;
    }
  }
  assert.ok(outcomes.parsed > 100 && outcomes.error > 700, JSON.stringify(outcomes));
});
