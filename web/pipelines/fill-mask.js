// pipeline('fill-mask', model): the most likely tokens at each mask token, as Hugging Face's
// FillMaskPipeline (4.34: get_target_ids, postprocess): softmax over the whole vocabulary at the
// mask, topK (default 5), targets looked up in the vocabulary (else their first piece),
// token_str = decode([id]), sequence = decode with the mask replaced (padding and, for one mask,
// special tokens removed; clean_up_tokenization_spaces).
import { checkKnownOptions, checkStrings, describe } from '../validation.js';
import { batchSizeOption, checkLength, forwardBatched, LENGTH_OPTIONS, lengthOptions, softmax } from './batching.js';
import { checkTopK, requireTokenizer, specialToken, textList, topIndices } from './common.js';
import { encodeInput } from './encoding.js';

/** The mask token of the tokenizer and its id. */
export function maskToken(tokenizer, task = 'fill-mask') {
  const candidates = [specialToken(tokenizer, 'mask_token'), '[MASK]', '<mask>'].filter((t) => t !== null);
  for (const token of candidates) {
    const id = tokenizer.token_to_id(token);
    if (id !== undefined) return { token, id };
  }
  throw new Error(`${task}: the tokenizer has no mask token (mask_token in tokenizer_config.json, or [MASK] / <mask> in the vocabulary)`);
}

/** Target strings → distinct ids (HF get_target_ids): the vocabulary entry, else the first piece. */
export function targetIds(tokenizer, targets, task = 'fill-mask') {
  const { list } = checkStrings(targets, `${task}: targets`);
  const ids = [];
  for (const target of list) {
    let id = tokenizer.token_to_id(target);
    if (id === undefined) {
      const enc = tokenizer.encode(target, { add_special_tokens: false });
      if (enc.ids.length === 0) continue; // nothing meaningful to replace it with (HF ignores it too)
      id = enc.ids[0];
    }
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length === 0) throw new Error(`${task}: targets: none of ${describe(targets)} gives a token of the vocabulary`);
  return ids;
}

/**
 * The result for one mask from its logits over the vocabulary: [{ score, token, token_str, sequence }].
 * ids: the input ids; at: the mask's position; single: the input has one mask.
 */
export function fillOne(tokenizer, { ids, at, logits, topK, targets, padId, single }) {
  const probs = softmax(Array.from(logits));
  const candidates = targets ?? null;
  const values = candidates ? candidates.map((id) => probs[id]) : probs;
  const k = candidates ? Math.min(topK, candidates.length) : topK;
  return topIndices(values, k).map((j) => {
    const token = candidates ? candidates[j] : j;
    const filled = ids.slice();
    filled[at] = token;
    const kept = filled.filter((id) => id !== padId);
    return {
      score: values[j],
      token,
      token_str: tokenizer.decode([token]),
      sequence: tokenizer.decode(kept, { skip_special_tokens: single }),
    };
  });
}

export function fillMask(model, task = 'fill-mask') {
  return async function fill(input, options = {}) {
    checkKnownOptions(options, `${task}: options`, ['topK', 'targets', ...LENGTH_OPTIONS]);
    requireTokenizer(model, task);
    const topK = checkTopK(options.topK ?? 5, task);
    const { truncation, maxLength, limit, limitSource } = lengthOptions(model, options, task);
    const batchSize = batchSizeOption(options, task);
    const { list, single } = textList(input, task);
    const tokenizer = model.tokenizer;
    const mask = maskToken(tokenizer, task);
    const targets = options.targets === undefined || options.targets === null ? null : targetIds(tokenizer, options.targets, task);
    const padId = Number.isInteger(model.config?.pad_token_id) ? model.config.pad_token_id : tokenizer.token_to_id(specialToken(tokenizer, 'pad_token') ?? '[PAD]');
    const encodings = list.map((text, i) => {
      const enc = encodeInput(tokenizer, text, null, { maxLength, truncation });
      if (!truncation) checkLength(enc, limit, task, single ? 'the input' : `input[${i}]`, limitSource);
      enc.masks = enc.ids.flatMap((id, l) => (id === mask.id ? [l] : []));
      if (enc.masks.length === 0)
        throw new Error(
          `${task}: ${single ? 'the input' : `input[${i}]`} ${describe(text)} has no mask token: expected ${mask.token} where the word to predict goes${enc.truncated ? ' (it may have been cut off by truncation)' : ''}`,
        );
      return enc;
    });
    const results = new Array(list.length);
    await forwardBatched(
      model,
      encodings,
      batchSize,
      (idx) => ({ logits: true, logitsAt: idx.flatMap((i, b) => encodings[i].masks.map((l) => [b, l])) }),
      (() => {
        let batchResult = null;
        let next = 0;
        return (r, row, i) => {
          if (r !== batchResult) {
            batchResult = r;
            next = 0;
          }
          if (!r.logits || r.logits.dims.length !== 2) throw new Error(`${task}: the model's head did not return vocabulary logits (it needs a masked-LM head)`);
          const V = r.logits.dims[1];
          const enc = encodings[i];
          const one = enc.masks.length === 1;
          const perMask = enc.masks.map((at) => {
            const logits = r.logits.data.subarray(next * V, (next + 1) * V);
            ++next;
            return fillOne(tokenizer, { ids: enc.ids, at, logits, topK, targets, padId, single: one });
          });
          results[i] = one ? perMask[0] : perMask;
        };
      })(),
    );
    return single ? results[0] : results;
  };
}
