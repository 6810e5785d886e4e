// The `//=>` notation of the docs' code examples (DEVELOPERS.md, "Docs and their code examples"):
//
//   expr;                 //=> value        the expression's value must match `value`
//   console.log(expr);    //=> value        the same for expr (printed as well)
//   const x = expr;       //=> value        the same for x
//   expr;                 //=> throws RangeError: 'maxLength: …'   expr must throw that class (message optional)
//
// `value` is a JavaScript literal compared structurally:
//   numbers   384 is exact; 0.99 means within half a unit of its last digit (0.985 ≤ x ≤ 0.995);
//             0.99… means x begins with those digits (0.99 ≤ x < 1.00); 4.9e-6 the same on the mantissa
//   strings   'text' exact; 'text…' a prefix
//   arrays    [a, b] exactly those elements; [a, b, …] begins with them (typed arrays compare as arrays)
//   objects   { a, b } exactly those keys; { a, … } at least them
//   …         as a value (`{ score: … }`, `[…, 2]`, or the whole result) any value but undefined
//   Float32Array(384)   an instance of that typed array with that length (any typed array or Array name)
// A result that does not fit on one line continues on the next comment lines until its brackets close.
// Any other comment is prose: `// → x` or `// => x` is refused, so that every stated result is checked.

const REST = Symbol('…');
const ANY = { kind: 'any' };
const num = (text) => {
  const prefix = text.endsWith('…');
  const t = prefix ? text.slice(0, -1) : text;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(t);
  if (!m) throw new Error(`//=>: not a number: ${text}`);
  const decimals = m[3]?.length ?? 0, exp = Number(m[4] ?? 0);
  const exact = !prefix && m[3] === undefined && m[4] === undefined;
  return { kind: 'num', text, value: Number(t), unit: 10 ** (exp - decimals), prefix, exact };
};
const str = (value) => (value.endsWith('…') ? { kind: 'str', value: value.slice(0, -1), prefix: true } : { kind: 'str', value, prefix: false });
const TYPED = ['Float32Array', 'Float64Array', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'Array'];
const typed = (ctor) => (length) => ({ kind: 'typed', ctor, length: length?.kind === 'num' ? length.value : length });

/** The expected text → a pattern (throws a SyntaxError-like Error naming the text when it does not parse). */
export function parseExpected(text) {
  let src = '';
  const stack = [];
  let i = 0;
  const prevSignificant = () => src.replace(/\s+$/, '').slice(-1);
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"') {
      let j = i + 1, value = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\') { value += JSON.parse(`"${text.slice(j, j + 2)}"`); j += 2; } else value += text[j++];
      }
      if (j >= text.length) throw new Error(`//=>: unterminated string in ${text}`);
      src += `__s(${JSON.stringify(value)})`;
      i = j + 1;
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(text[i + 1] ?? '') && /^$|[[{(,:]/.test(prevSignificant()))) {
      const m = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?…?/i.exec(text.slice(i));
      src += `__n(${JSON.stringify(m[0])})`;
      i += m[0].length;
    } else if (c === '…') {
      const top = stack.at(-1);
      const next = text.slice(i + 1).trimStart()[0];
      if (prevSignificant() === ':' || (top === '[' && next !== ']') || !top) src += '__ANY';
      else if (top === '[') src += '__REST';
      else if (top === '{') src += '[__RESTKEY]: true';
      else throw new Error(`//=>: '…' cannot stand here in ${text}`);
      ++i;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(i));
      src += m[0];
      i += m[0].length;
    } else {
      if ('[{('.includes(c)) stack.push(c);
      if (']})'.includes(c)) stack.pop();
      src += c;
      ++i;
    }
  }
  const RESTKEY = '__rest__';
  let value;
  try {
    value = new Function('__n', '__s', '__REST', '__RESTKEY', '__ANY', ...TYPED, `return (${src});`)(num, str, REST, RESTKEY, ANY, ...TYPED.map(typed));
  } catch (e) {
    throw new Error(`//=>: cannot read the expected value ${text}: ${e.message}`);
  }
  return value;
}

/** Whether the brackets and quotes of an expected text are closed (else it continues on the next comment line). */
export function balanced(text) {
  let depth = 0, quote = null;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quote) { if (c === '\\') ++i; else if (c === quote) quote = null; continue; }
    if (c === "'" || c === '"') quote = c;
    else if ('[{('.includes(c)) ++depth;
    else if (']})'.includes(c)) --depth;
  }
  return depth <= 0 && !quote;
}

const show = (x) => {
  if (typeof x === 'string') return JSON.stringify(x.length > 80 ? x.slice(0, 80) + '…' : x);
  if (ArrayBuffer.isView(x)) return `${x.constructor.name}(${x.length})`;
  try { const s = JSON.stringify(x); return s && s.length > 120 ? s.slice(0, 120) + '…' : String(s); } catch { return String(x); }
};

/** null when `actual` matches `pattern`, else where and how it differs. */
export function mismatch(actual, pattern, path = 'value') {
  if (pattern === null || pattern === undefined || typeof pattern === 'boolean') {
    return actual === pattern ? null : `${path}: expected ${pattern}, got ${show(actual)}`;
  }
  if (typeof pattern === 'number') {  // NaN, Infinity
    return Object.is(actual, pattern) ? null : `${path}: expected ${pattern}, got ${show(actual)}`;
  }
  if (pattern === ANY) return actual === undefined ? `${path}: expected a value, got undefined` : null;
  if (pattern.kind === 'num') {
    if (typeof actual !== 'number') return `${path}: expected a number (${pattern.text}), got ${show(actual)}`;
    const { value, unit } = pattern;
    const ok = pattern.exact ? actual === value
      : pattern.prefix ? (value >= 0 ? actual >= value && actual < value + unit : actual <= value && actual > value - unit)
        : Math.abs(actual - value) <= unit / 2 + 1e-12 * Math.abs(value);
    return ok ? null : `${path}: expected ${pattern.text}, got ${actual}`;
  }
  if (pattern.kind === 'str') {
    if (typeof actual !== 'string') return `${path}: expected a string, got ${show(actual)}`;
    const ok = pattern.prefix ? actual.startsWith(pattern.value) : actual === pattern.value;
    return ok ? null : `${path}: expected ${show(pattern.value)}${pattern.prefix ? '…' : ''}, got ${show(actual)}`;
  }
  if (pattern.kind === 'typed') {
    const ctor = globalThis[pattern.ctor];
    if (!(actual instanceof ctor)) return `${path}: expected a ${pattern.ctor}, got ${show(actual)}`;
    if (pattern.length !== undefined && actual.length !== pattern.length) return `${path}: expected ${pattern.ctor}(${pattern.length}), got length ${actual.length}`;
    return null;
  }
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual) && !ArrayBuffer.isView(actual)) return `${path}: expected an array, got ${show(actual)}`;
    const rest = pattern.at(-1) === REST;
    const items = rest ? pattern.slice(0, -1) : pattern;
    if (rest ? actual.length < items.length : actual.length !== items.length) {
      return `${path}: expected ${rest ? 'at least ' : ''}${items.length} elements, got ${actual.length}: ${show(Array.from(actual))}`;
    }
    for (let k = 0; k < items.length; ++k) {
      const d = mismatch(actual[k], items[k], `${path}[${k}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof pattern === 'object') {
    if (actual === null || typeof actual !== 'object') return `${path}: expected an object, got ${show(actual)}`;
    const rest = pattern.__rest__ === true;
    const keys = Object.keys(pattern).filter((k) => k !== '__rest__');
    for (const k of keys) {
      if (!(k in actual)) return `${path}: no key ${k} (keys: ${Object.keys(actual).join(', ')})`;
      const d = mismatch(actual[k], pattern[k], `${path}.${k}`);
      if (d) return d;
    }
    if (!rest) {
      const extra = Object.keys(actual).filter((k) => !keys.includes(k));
      if (extra.length) return `${path}: unexpected keys ${extra.join(', ')} (write … to allow more)`;
    }
    return null;
  }
  return `${path}: cannot compare with ${show(pattern)}`;
}

/**
 * A block's code with every `//=>` line turned into a check: `__check(value, expected, where)` /
 * `await __throws(async () => { … }, name, message, where)`. `where(line index)` names the doc line.
 * Returns { code, checks } (checks: how many), or throws an Error naming the doc line for a malformed one.
 */
export function instrument(code, where) {
  const lines = code.split('\n');
  let checks = 0;
  for (let i = 0; i < lines.length; ++i) {
    const line = lines[i];
    const at = line.indexOf('//=>');
    if (at < 0) {
      if (/\/\/\s*(→|=>)/.test(line)) throw new Error(`${where(i)}: a result written as a comment must be '//=>' (checked by the test), not: ${line.trim()}`);
      continue;
    }
    let left = line.slice(0, at).trimEnd();
    let expected = line.slice(at + 4).trim();
    let j = i;
    while (!balanced(expected)) {
      const next = lines[++j];
      if (next === undefined || !/^\s*\/\//.test(next)) throw new Error(`${where(i)}: the result after //=> does not close its brackets`);
      expected += ' ' + next.replace(/^\s*\/\//, '').trim();
      lines[j] = '';
    }
    const indent = /^\s*/.exec(line)[0];
    left = left.trim().replace(/;$/, '');
    if (!left) throw new Error(`${where(i)}: '//=>' needs an expression on its own line`);
    const loc = JSON.stringify(where(i));
    const throwsMatch = /^throws\s+([A-Za-z]+)(?::\s*(.*))?$/.exec(expected);
    if (throwsMatch) {
      lines[i] = `${indent}await __throws(async () => { ${left}; }, ${JSON.stringify(throwsMatch[1])}, ${JSON.stringify(throwsMatch[2] ?? null)}, ${loc});`;
    } else {
      parseExpected(expected);  // fails here, with the doc line, when the expected text is malformed
      const log = /^console\.log\(([\s\S]+)\)$/.exec(left);
      const decl = /^(const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*([\s\S]+)$/.exec(left);
      if (!decl && /^(const|let|var)\s/.test(left)) throw new Error(`${where(i)}: '//=>' after a declaration needs a single name (const x = …), not a pattern`);
      lines[i] = log ? `${indent}console.log(__check((${log[1]}), ${JSON.stringify(expected)}, ${loc}));`
        : decl ? `${indent}${decl[1]} ${decl[2]} = ${decl[3]}; __check(${decl[2]}, ${JSON.stringify(expected)}, ${loc});`
          : `${indent}__check((${left}), ${JSON.stringify(expected)}, ${loc});`;
    }
    ++checks;
    i = j;
  }
  return { code: lines.join('\n'), checks };
}

export function installChecks(target = globalThis) {
  target.__check = (actual, expected, where) => {
    const d = mismatch(actual, parseExpected(expected));
    if (d) throw new Error(`${where}: //=> ${expected}\n  ${d}`);
    return actual;
  };
  target.__throws = async (fn, name, message, where) => {
    try {
      await fn();
    } catch (e) {
      if (e?.name !== name) throw new Error(`${where}: expected a ${name}, got ${e?.name}: ${e?.message}`);
      if (message !== null) {
        const d = mismatch(e.message, parseExpected(message), 'message');
        if (d) throw new Error(`${where}: //=> throws ${name}: ${message}\n  ${d}`);
      }
      return;
    }
    throw new Error(`${where}: expected a ${name}, nothing was thrown`);
  };
}
