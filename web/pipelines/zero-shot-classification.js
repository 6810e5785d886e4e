// pipeline('zero-shot-classification', model): an NLI head scores (text, hypothesis) pairs; the
// entailment logits are softmaxed across the candidate labels (or, with multiLabel, entailment vs
// contradiction per label). Pairs are truncated on the text's side ('only_first', as HF).
import { checkBool, checkKnownOptions, checkStrings, describe } from '../validation.js';
import { batchSizeOption, checkLength, forwardBatched, LENGTH_OPTIONS, lengthOptions, row2, softmax } from './batching.js';
import { requireTokenizer, textList } from './common.js';
import { encodeInput } from './encoding.js';
import { requireClassifier } from './text-classification.js';

const labelIndex = (labels, prefix) => labels.findIndex((l) => l.toLowerCase().startsWith(prefix));

export function zeroShotClassification(model, task = 'zero-shot-classification') {
  return async function zeroShot(input, candidateLabels, options = {}) {
    checkKnownOptions(options, `${task}: options`, ['hypothesisTemplate', 'multiLabel', ...LENGTH_OPTIONS]);
    requireTokenizer(model, task);
    const labels = requireClassifier(model, task);
    const candidates = checkStrings(candidateLabels, `${task}: candidateLabels`).list;
    const template = options.hypothesisTemplate ?? 'This example is {}.';
    if (typeof template !== 'string' || !template.includes('{}'))
      throw new Error(`${task}: hypothesisTemplate: expected a string containing '{}', got ${describe(template)}`);
    const multiLabel = checkBool(options.multiLabel ?? false, `${task}: multiLabel`);
    const entail = labelIndex(labels, 'entail');
    const contra = labelIndex(labels, 'contra');
    if (entail < 0 || (multiLabel && contra < 0))
      throw new Error(
        `${task}: the classification head's labels (${labels.join(', ')}) have no 'entailment'${multiLabel ? " and 'contradiction'" : ''} label: an NLI checkpoint is needed`,
      );
    const { truncation, maxLength, limit, limitSource } = lengthOptions(model, options, task);
    const batchSize = batchSizeOption(options, task);
    const { list, single } = textList(input, task);
    const hypotheses = candidates.map((l) => template.replace('{}', l));
    const pairs = list.flatMap((sequence, s) => hypotheses.map((h, c) => ({ sequence, h, s, c })));
    const encodings = pairs.map((p) => {
      const enc = encodeInput(model.tokenizer, p.sequence, p.h, { maxLength, truncation, strategy: 'only_first' });
      if (!truncation) checkLength(enc, limit, task, `input[${p.s}] with the hypothesis of '${candidates[p.c]}'`, limitSource);
      return enc;
    });
    const logits = new Array(pairs.length);
    await forwardBatched(model, encodings, batchSize, { logits: true }, (r, row, i) => {
      logits[i] = row2(r.logits, row);
    });
    const results = list.map((sequence, s) => {
      const rows = candidates.map((_, c) => logits[s * candidates.length + c]);
      const scores = multiLabel ? rows.map((r) => softmax([r[contra], r[entail]])[1]) : softmax(rows.map((r) => r[entail]));
      const order = candidates.map((_, i) => i).sort((a, b) => scores[b] - scores[a]);
      return { sequence, labels: order.map((i) => candidates[i]), scores: order.map((i) => scores[i]) };
    });
    return single ? results[0] : results;
  };
}
