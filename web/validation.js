// Argument checks shared by the package. Every check runs before any WebAssembly memory is touched.
//   TypeError  — an argument of the wrong kind (e.g. a plain Array where a Float32Array is needed)
//   RangeError — a size that is negative, non-integer, zero, too large or inconsistent with lengths
//   Error      — anything else: unknown scheme, missing or mis-shaped table
// Messages name the argument, what it got and what was expected.

/** Largest heap the modules may grow to (-sMAXIMUM_MEMORY=2GB); requests beyond it fail early. */
export const MAX_HEAP_BYTES = 2 ** 31;

export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${value.length ?? value.byteLength})`;
  if (Array.isArray(value)) return `Array(${value.length})`;
  if (typeof value === 'function') return 'a function';
  return value.constructor && value.constructor !== Object ? `a ${value.constructor.name}` : 'an object';
}

/** A plain object (the options bag or a scheme). */
export function checkObject(value, name) {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value))
    throw new TypeError(`${name}: expected an object, got ${describe(value)}`);
  return value;
}

/** A positive (or, with min 0, non-negative) integer size. */
export function checkInt(value, name, { min = 1, max = 2 ** 31 - 1 } = {}) {
  if (typeof value !== 'number') throw new TypeError(`${name}: expected an integer number, got ${describe(value)}`);
  if (!Number.isInteger(value)) throw new RangeError(`${name}: expected an integer, got ${describe(value)}`);
  if (value < min)
    throw new RangeError(`${name}: expected an integer ≥ ${min}${min === 1 ? ' (a positive size)' : ''}, got ${value}`);
  if (value > max) throw new RangeError(`${name}: expected an integer ≤ ${max}, got ${value}`);
  return value;
}

/** An integer that may be negative (relative positions). */
export function checkSignedInt(value, name) {
  return checkInt(value, name, { min: -(2 ** 31), max: 2 ** 31 - 1 });
}

/** A finite number (optionally > 0). */
export function checkNumber(value, name, { positive = false } = {}) {
  if (typeof value !== 'number') throw new TypeError(`${name}: expected a number, got ${describe(value)}`);
  if (!Number.isFinite(value)) throw new RangeError(`${name}: expected a finite number, got ${value}`);
  if (positive && !(value > 0)) throw new RangeError(`${name}: expected a positive number, got ${value}`);
  return value;
}

export function checkBool(value, name) {
  if (typeof value !== 'boolean') throw new TypeError(`${name}: expected true or false, got ${describe(value)}`);
  return value;
}

/** One of a fixed set of strings. Unknown strings are plain Errors; non-strings TypeErrors. */
export function checkChoice(value, name, choices) {
  if (typeof value !== 'string')
    throw new TypeError(`${name}: expected one of ${choices.map((c) => `'${c}'`).join(', ')}, got ${describe(value)}`);
  if (!choices.includes(value))
    throw new Error(`${name}: expected one of ${choices.map((c) => `'${c}'`).join(', ')}, got ${describe(value)}`);
  return value;
}

/** A Float32Array (TypeError otherwise). */
export function checkFloat32(value, name) {
  if (!(value instanceof Float32Array))
    throw new TypeError(`${name}: expected a Float32Array, got ${describe(value)}`);
  return value;
}

/** A table: missing → Error, wrong type → TypeError, wrong length → Error naming the shape. */
export function checkTable(value, name, expectedLength, shape) {
  if (value === undefined || value === null)
    throw new Error(`${name}: table is required, expected a Float32Array of ${shape} = ${expectedLength} floats, got ${describe(value)}`);
  checkFloat32(value, name);
  if (value.length !== expectedLength)
    throw new Error(`${name}: expected ${shape} = ${expectedLength} floats, got Float32Array(${value.length})`);
  return value;
}

/** a·b·… as a safe integer, RangeError when it cannot be addressed in the 2 GB heap. */
export function product(name, ...factors) {
  let p = 1;
  for (const f of factors) p *= f;
  if (!Number.isSafeInteger(p) || p * 4 > MAX_HEAP_BYTES)
    throw new RangeError(
      `${name}: ${factors.join('·')} = ${p} floats (${bytesText(4 * p)} bytes) do not fit the 2 GB WebAssembly heap (limit ${MAX_HEAP_BYTES} bytes)`,
    );
  return p;
}

/** A byte count for messages: exact while it is a safe integer, else "≈ 1.2e+21". */
export function bytesText(bytes) {
  return Number.isSafeInteger(bytes) ? String(bytes) : `≈ ${bytes.toPrecision(3)}`;
}

/**
 * RangeError unless `parts` ({ label: bytes }) add up to a safe integer ≤ MAX_HEAP_BYTES. The
 * message gives the total, the limit and the parts, e.g.
 *   "attention: needs 4294967552 bytes of WebAssembly memory (…), more than the limit of 2147483648 bytes"
 */
export function checkMemory(name, parts) {
  const entries = Object.entries(parts).filter(([, b]) => b > 0);
  const total = entries.reduce((a, [, b]) => a + b, 0);
  if (Number.isSafeInteger(total) && total <= MAX_HEAP_BYTES) return total;
  const detail = entries.map(([label, b]) => `${label} ${bytesText(b)}`).join(', ');
  throw new RangeError(
    `${name}: needs ${bytesText(total)} bytes of WebAssembly memory (${detail}), more than the limit of ${MAX_HEAP_BYTES} bytes`,
  );
}

/** Edit distance of two short names, case-insensitive (for "did you mean"). */
function distance(a, b) {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; ++i) {
    const row = [i];
    for (let j = 1; j <= b.length; ++j) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** The known name closest to `name` (a typo, a prefix, another casing), or null when none is close. */
export function closestName(name, known) {
  let best = null;
  let bestScore = Infinity;
  for (const k of known) {
    const lower = name.toLowerCase(), kl = k.toLowerCase();
    const d = kl.startsWith(lower) || lower.startsWith(kl) ? Math.min(1, distance(name, k)) : distance(name, k);
    if (d < bestScore) [best, bestScore] = [k, d];
  }
  return best !== null && bestScore <= Math.max(2, Math.floor(Math.max(name.length, best.length) / 3)) ? best : null;
}

/**
 * An options object (checkObject) whose every name is one of `known`: an unknown name is a TypeError
 * naming it and the closest known one, e.g. "feature-extraction: options: unknown option 'pool' (did you
 * mean 'pooling'?); known options: …". Names whose value is undefined are let through (spread defaults).
 */
export function checkKnownOptions(value, name, known) {
  checkObject(value, name);
  for (const key of Object.keys(value)) {
    if (value[key] === undefined || known.includes(key)) continue;
    const close = closestName(key, known);
    throw new TypeError(`${name}: unknown option '${key}'${close ? ` (did you mean '${close}'?)` : ''}; known options: ${known.map((k) => `'${k}'`).join(', ')}`);
  }
  return value;
}

/**
 * A string, or (unless `single` is false) a non-empty array of strings; each element is checked by
 * itself, so the message names it: "input[1]: expected a string, got null". Returns { list, single }.
 */
export function checkStrings(value, name, { allowSingle = true, allowEmpty = false } = {}) {
  const single = allowSingle && typeof value === 'string';
  if (single) return { list: [value], single };
  const expected = allowSingle ? 'a string or a non-empty array of strings' : `a${allowEmpty ? 'n' : ' non-empty'} array of strings`;
  if (!Array.isArray(value) || (value.length === 0 && !allowEmpty)) throw new TypeError(`${name}: expected ${expected}, got ${describe(value)}`);
  value.forEach((t, i) => {
    if (typeof t !== 'string') throw new TypeError(`${name}[${i}]: expected a string, got ${describe(t)}`);
  });
  return { list: value, single };
}
