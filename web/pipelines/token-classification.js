// pipeline('token-classification' | 'ner', model): one label per token, optionally grouped into
// entities, as Hugging Face's TokenClassificationPipeline does (4.34: gather_pre_entities,
// aggregate, aggregate_words, group_entities), with character offsets from web/pipelines/encoding.js.
import { checkKnownOptions, checkStrings, describe } from '../validation.js';
import { batchSizeOption, checkLength, forwardBatched, LENGTH_OPTIONS, lengthOptions, rows3, softmax } from './batching.js';
import { requireTokenizer, textList } from './common.js';
import { byteLevelText, encodeInput, tokenBytes, tokenizerKind } from './encoding.js';

export const AGGREGATION_STRATEGIES = Object.freeze(['none', 'simple', 'first', 'average', 'max']);

const argmax = (a) => a.reduce((best, x, i) => (x > a[best] ? i : best), 0);
const codePoints = (s) => [...s].length;

/**
 * convert_tokens_to_string of the Hugging Face tokenizers (WordPiece: ' ##' joins; SentencePiece:
 * '▁' is a space; byte-level: the bytes decoded as UTF-8), without the spaces around.
 */
export function tokensToString(tokens, kind) {
  if (kind.type === 'wordpiece') return tokens.join(' ').replaceAll(` ${kind.prefix}`, '').trim();
  if (kind.type === 'sentencepiece') return tokens.join('').replaceAll('\u2581', ' ').trim();
  if (kind.type === 'bytelevel') return byteLevelText(tokens).trim();
  return tokens.join(' ').trim();
}

/** Label name → [B|I, tag] as HF's get_tag: 'B-PER' → ['B', 'PER'], 'O' → ['I', 'O']. */
function tag(name) {
  if (name.startsWith('B-')) return ['B', name.slice(2)];
  if (name.startsWith('I-')) return ['I', name.slice(2)];
  return ['I', name];
}

// The tokens an entity was made of, kept out of the output: grouping joins them (SentencePiece
// words keep their '▁', so 'John' + 'Smith' groups as 'John Smith' — HF joins its already decoded
// words and gets 'JohnSmith').
const PIECES = Symbol('pieces');
const withPieces = (entity, pieces) => Object.defineProperty(entity, PIECES, { value: pieces });

/**
 * [start, end) of entities in order: from the first to the last that covers characters (whitespace
 * tokens — a lone 'Ġ', '▁' — have empty spans at the next word and would stretch an entity over
 * the whitespace after it); the first and last when none does.
 */
function spanOf(entities) {
  const solid = entities.filter((e) => e.end > e.start);
  const edge = solid.length ? solid : entities;
  return { start: edge[0].start, end: edge[edge.length - 1].end };
}

function groupSubEntities(entities, kind) {
  const name = entities[0].entity;
  const dash = name.indexOf('-');
  return {
    entity_group: dash < 0 ? name : name.slice(dash + 1),
    score: entities.reduce((s, e) => s + e.score, 0) / entities.length,
    word: tokensToString(entities.flatMap((e) => e[PIECES]), kind),
    ...spanOf(entities),
  };
}

/** Consecutive entities with the same tag, none of them after the first starting with B-. */
function groupEntities(entities, kind) {
  const groups = [];
  let current = [];
  for (const e of entities) {
    if (current.length === 0) {
      current.push(e);
      continue;
    }
    const [bi, t] = tag(e.entity);
    const [, lastTag] = tag(current[current.length - 1].entity);
    if (t === lastTag && bi !== 'B') current.push(e);
    else {
      groups.push(groupSubEntities(current, kind));
      current = [e];
    }
  }
  if (current.length) groups.push(groupSubEntities(current, kind));
  return groups;
}

function aggregateWord(entities, strategy, labels, kind) {
  let scores;
  if (strategy === 'first') scores = entities[0].scores;
  else if (strategy === 'max') {
    let best = entities[0];
    for (const e of entities) if (Math.max(...e.scores) > Math.max(...best.scores)) best = e;
    scores = best.scores;
  } else {
    scores = entities[0].scores.map((_, k) => entities.reduce((s, e) => s + e.scores[k], 0) / entities.length);
  }
  const idx = argmax(scores);
  const pieces = entities.map((e) => e.word);
  return withPieces(
    { entity: labels[idx], score: scores[idx], word: tokensToString(pieces, kind), ...spanOf(entities) },
    pieces,
  );
}

/**
 * The pipeline's output for one text from its encoding (encodeInput) and the head's logits per
 * token ([tokens][labels]). labels: id2label in id order; kind: tokenizerKind(); unkId: the
 * tokenizer's unknown-token id.
 */
export function entitiesOf({ text, enc, logits, labels, strategy = 'none', ignoreLabels = ['O'], kind, unkId }) {
  const pre = [];
  let prevEnd = -1;
  enc.ids.forEach((id, idx) => {
    if (enc.sequenceIds[idx] === null) return; // special token
    const [start, end] = enc.offsets[idx];
    const ref = text.slice(start, end);
    let word = enc.tokens[idx];
    let isSubword;
    if (kind.type === 'wordpiece') isSubword = codePoints(word) !== codePoints(ref);
    // HF's heuristic for tokenizers without a subword prefix: no space just before the token. Byte-level
    // offsets leave the space out (the token starts after it) and any whitespace counts; a token that
    // starts inside a character (a UTF-8 continuation byte, or a span starting before the previous
    // token's end) continues it; a whitespace-only token (empty span) is a word of its own.
    else if (kind.type === 'bytelevel') {
      const first = tokenBytes(word)?.[0];
      const inside = (first !== undefined && (first & 0xc0) === 0x80) || start < prevEnd;
      isSubword = inside || (start > 0 && end > start && !/\s/u.test(text[start - 1]));
    }
    else isSubword = start > 0 && !text.slice(start - 1, start + 1).includes(' ');
    prevEnd = end;
    if (id === unkId) {
      word = ref;
      isSubword = false;
    }
    pre.push({ word, scores: softmax(logits[idx]), start, end, index: idx, isSubword });
  });
  let entities;
  if (strategy === 'none' || strategy === 'simple') {
    entities = pre.map((p) => {
      const k = argmax(p.scores);
      return withPieces({ entity: labels[k], score: p.scores[k], index: p.index, word: p.word, start: p.start, end: p.end }, [p.word]);
    });
  } else {
    entities = [];
    let group = null;
    for (const p of pre) {
      if (group === null) group = [p];
      else if (p.isSubword) group.push(p);
      else {
        entities.push(aggregateWord(group, strategy, labels, kind));
        group = [p];
      }
    }
    if (group) entities.push(aggregateWord(group, strategy, labels, kind));
  }
  if (strategy !== 'none') entities = groupEntities(entities, kind);
  return entities.filter((e) => !ignoreLabels.includes(e.entity) && !ignoreLabels.includes(e.entity_group));
}

function checkOptions(options, task) {
  checkKnownOptions(options, `${task}: options`, ['aggregationStrategy', 'ignoreLabels', ...LENGTH_OPTIONS]);
  const strategy = options.aggregationStrategy ?? 'none';
  if (typeof strategy !== 'string') throw new TypeError(`${task}: aggregationStrategy: expected one of ${AGGREGATION_STRATEGIES.map((s) => `'${s}'`).join(', ')}, got ${describe(strategy)}`);
  if (!AGGREGATION_STRATEGIES.includes(strategy))
    throw new Error(`${task}: aggregationStrategy: expected one of ${AGGREGATION_STRATEGIES.map((s) => `'${s}'`).join(', ')}, got ${describe(strategy)}`);
  const ignoreLabels = checkStrings(options.ignoreLabels ?? ['O'], `${task}: ignoreLabels`, { allowSingle: false, allowEmpty: true }).list;
  return { strategy, ignoreLabels };
}

export function tokenClassification(model, task = 'token-classification') {
  return async function classifyTokens(input, options = {}) {
    const { strategy, ignoreLabels } = checkOptions(options, task);
    requireTokenizer(model, task);
    const { truncation, maxLength, limit, limitSource } = lengthOptions(model, options, task);
    const batchSize = batchSizeOption(options, task);
    const { list, single } = textList(input, task);
    const labels = model.head?.labels ?? model.labels;
    const tokenizer = model.tokenizer;
    const kind = tokenizerKind(tokenizer);
    const unkId = tokenizer.model?.unk_token_id;
    const encodings = list.map((text, i) => {
      const enc = encodeInput(tokenizer, text, null, { maxLength, truncation });
      if (!truncation) checkLength(enc, limit, task, single ? 'the input' : `input[${i}]`, limitSource);
      return enc;
    });
    const results = new Array(list.length);
    await forwardBatched(model, encodings, batchSize, { logits: true }, (r, row, i) => {
      const t = r.logits;
      if (!t || t.dims.length !== 3 || t.dims[2] !== labels.length)
        throw new Error(`${task}: the model's head did not return token logits [batch, seq, ${labels.length}] (got ${t ? `[${t.dims.join(', ')}]` : 'none'})`);
      const logits = rows3(t, row, encodings[i].ids.length);
      results[i] = entitiesOf({ text: list[i], enc: encodings[i], logits, labels, strategy, ignoreLabels, kind, unkId });
    });
    return single ? results[0] : results;
  };
}
