// Argument checks and small helpers shared by the task pipelines.
import { checkStrings, describe } from '../validation.js';

export function requireTokenizer(model, task) {
  if (!model.tokenizer) throw new Error(`${task}: the model was loaded without tokenizer.json (or spm.model / spiece.model), so it cannot take text`);
}

/** A string or a non-empty array of strings → { list, single }. */
export function textList(input, task, what = 'input') {
  return checkStrings(input, `${task}: ${what}`);
}

/** topK: a positive integer, or null when `allowNull` (all). */
export function checkTopK(value, task, { allowNull = false } = {}) {
  if (value === null && allowNull) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    const expected = allowNull ? 'a positive integer or null (all)' : 'a positive integer';
    if (typeof value !== 'number') throw new TypeError(`${task}: topK: expected ${expected}, got ${describe(value)}`);
    throw new RangeError(`${task}: topK: expected ${expected}, got ${describe(value)}`);
  }
  return value;
}

/** The content of a special token named in tokenizer_config.json (string or { content }), or null. */
export function specialToken(tokenizer, key) {
  const v = tokenizer.config?.[key];
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof v.content === 'string') return v.content;
  return null;
}

/** Indices of the k largest values, largest first (ties: lower index first). */
export function topIndices(values, k) {
  const n = values.length;
  k = Math.min(k, n);
  if (k * 8 >= n) {
    return Array.from({ length: n }, (_, i) => i)
      .sort((a, b) => values[b] - values[a] || a - b)
      .slice(0, k);
  }
  const best = [];
  for (let i = 0; i < n; ++i) {
    const v = values[i];
    if (best.length === k && !(v > values[best[k - 1]])) continue;
    let at = best.length === k ? k - 1 : best.length;
    if (best.length < k) best.push(i);
    while (at > 0 && v > values[best[at - 1]]) {
      best[at] = best[at - 1];
      --at;
    }
    best[at] = i;
  }
  return best;
}
