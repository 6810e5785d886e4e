// Scheme objects → the C++ parameter structs of relpos/schemes.h.
//
// normalizeScheme(spec) checks everything that does not depend on the attention sizes and returns
//   { type, factory, params, tables, check(dims) }
// where `params` holds the scalar fields (enums as names), `tables` maps a struct field to the
// Float32Array that must be copied into the heap (its address is then written into `params`), and
// check(dims) verifies every table's length against the shapes of the param struct. Both throw
// TypeError / RangeError / Error (see validation.js) before any WebAssembly memory is used.
import {
  checkBool,
  checkChoice,
  checkFloat32,
  checkInt,
  checkNumber,
  checkObject,
  checkTable,
  describe,
} from './validation.js';

export const SCHEME_TYPES = Object.freeze([
  'none',
  'sinusoidal',
  'learned-absolute',
  'mlp',
  'shaw',
  'bert-relative',
  'huang',
  'transformer-xl',
  't5',
  'tupe',
  'deberta',
  'rope',
  'alibi',
]);

const opt = (value, fallback) => (value === undefined ? fallback : value);

function rowsOf(array, rowLength, name, shape) {
  if (array.length === 0 || array.length % rowLength !== 0)
    throw new Error(`${name}: expected ${shape} floats (a positive multiple of ${rowLength}), got Float32Array(${array.length})`);
  return array.length / rowLength;
}

const builders = {
  none(s, n) {
    return { factory: 'makeNoneScheme', params: null, tables: {}, check() {} };
  },

  sinusoidal(s, n) {
    const layout = checkChoice(opt(s.layout, 'interleaved'), `${n}.layout`, ['interleaved', 'concatenated']);
    const base = checkNumber(opt(s.base, 10000), `${n}.base`, { positive: true });
    return {
      factory: 'makeSinusoidalAbsoluteScheme',
      params: { layout: { enum: 'SinusoidLayout', value: layout === 'interleaved' ? 'Interleaved' : 'Concatenated' }, base },
      tables: {},
      check(d) {
        if (d.headDim % 2 !== 0)
          throw new RangeError(`${n}: sinusoidal positions need an even headDim (sin/cos pairs), got headDim ${d.headDim}`);
      },
    };
  },

  'learned-absolute'(s, n) {
    const table = s.table;
    if (table === undefined || table === null)
      throw new Error(`${n}.table: table is required, expected a Float32Array of [rows ≥ seqLen, headDim] floats, got ${describe(table)}`);
    checkFloat32(table, `${n}.table`);
    return {
      factory: 'makeLearnedAbsoluteScheme',
      params: { tableRows: 0 },
      tables: { table },
      check(d, params) {
        const rows = rowsOf(table, d.headDim, `${n}.table`, `[rows, headDim ${d.headDim}]`);
        if (rows < d.seqLen)
          throw new Error(`${n}.table: has ${rows} rows of headDim ${d.headDim}, expected at least seqLen = ${d.seqLen} rows`);
        params.tableRows = rows;
      },
    };
  },

  mlp(s, n) {
    const featureDim = checkInt(opt(s.featureDim, 1), `${n}.featureDim`);
    if (featureDim !== 1 && featureDim % 2 !== 0)
      throw new RangeError(`${n}.featureDim: expected 1 or a positive even integer, got ${featureDim}`);
    const hidden = checkInt(s.hidden, `${n}.hidden`);
    for (const k of ['w1', 'b1', 'w2', 'b2'])
      if (s[k] !== undefined && s[k] !== null) checkFloat32(s[k], `${n}.${k}`);
    return {
      factory: 'makeMlpPositionScheme',
      params: { featureDim, hidden },
      tables: { w1: s.w1, b1: s.b1, w2: s.w2, b2: s.b2 },
      check(d) {
        checkTable(s.w1, `${n}.w1`, hidden * featureDim, `[hidden ${hidden}, featureDim ${featureDim}]`);
        checkTable(s.b1, `${n}.b1`, hidden, `[hidden ${hidden}]`);
        checkTable(s.w2, `${n}.w2`, d.headDim * hidden, `[headDim ${d.headDim}, hidden ${hidden}]`);
        checkTable(s.b2, `${n}.b2`, d.headDim, `[headDim ${d.headDim}]`);
      },
    };
  },

  shaw(s, n) {
    const maxDistance = checkInt(s.maxDistance, `${n}.maxDistance`);
    if (s.keyTable !== undefined && s.keyTable !== null) checkFloat32(s.keyTable, `${n}.keyTable`);
    const hasValue = s.valueTable !== undefined && s.valueTable !== null;
    if (hasValue) checkFloat32(s.valueTable, `${n}.valueTable`);
    const rows = 2 * maxDistance + 1;
    return {
      factory: 'makeShawScheme',
      params: { maxDistance },
      tables: { keyTable: s.keyTable, valueTable: hasValue ? s.valueTable : null },
      check(d) {
        const shape = `[2·maxDistance+1 = ${rows}, headDim ${d.headDim}]`;
        checkTable(s.keyTable, `${n}.keyTable`, rows * d.headDim, shape);
        if (hasValue) checkTable(s.valueTable, `${n}.valueTable`, rows * d.headDim, shape);
      },
    };
  },

  'bert-relative'(s, n) {
    const maxPositions = checkInt(s.maxPositions, `${n}.maxPositions`);
    const keyQuery = checkBool(opt(s.keyQuery, false), `${n}.keyQuery`);
    if (s.table !== undefined && s.table !== null) checkFloat32(s.table, `${n}.table`);
    return {
      factory: 'makeBertRelativeScheme',
      params: { maxPositions, keyQuery },
      tables: { table: s.table },
      check(d) {
        if (d.seqLen > maxPositions)
          throw new RangeError(`${n}.maxPositions: seqLen ${d.seqLen} exceeds maxPositions ${maxPositions}`);
        checkTable(s.table, `${n}.table`, (2 * maxPositions - 1) * d.headDim,
          `[2·maxPositions−1 = ${2 * maxPositions - 1}, headDim ${d.headDim}]`);
      },
    };
  },

  huang(s, n) {
    const hasTable = s.table !== undefined && s.table !== null;
    const maxDistance = hasTable ? checkInt(s.maxDistance, `${n}.maxDistance`) : checkInt(opt(s.maxDistance, 0), `${n}.maxDistance`, { min: 0 });
    if (hasTable) checkFloat32(s.table, `${n}.table`);
    return {
      factory: 'makeHuangRelativeScheme',
      params: { maxDistance },
      tables: { table: hasTable ? s.table : null },
      check(d) {
        if (hasTable)
          checkTable(s.table, `${n}.table`, (2 * maxDistance + 1) * d.headDim,
            `[2·maxDistance+1 = ${2 * maxDistance + 1}, headDim ${d.headDim}]`);
        else if (d.headDim % 2 !== 0)
          throw new RangeError(`${n}: without a table the sinusoid needs an even headDim, got headDim ${d.headDim}`);
      },
    };
  },

  'transformer-xl'(s, n) {
    const dModel = checkInt(s.dModel, `${n}.dModel`);
    if (dModel % 2 !== 0) throw new RangeError(`${n}.dModel: expected a positive even integer (sinusoid pairs), got ${dModel}`);
    const clampLen = checkInt(opt(s.clampLen, 0), `${n}.clampLen`, { min: -(2 ** 31) });
    for (const k of ['u', 'v', 'wKR']) if (s[k] !== undefined && s[k] !== null) checkFloat32(s[k], `${n}.${k}`);
    return {
      factory: 'makeTransformerXLScheme',
      params: { dModel, clampLen },
      tables: { u: s.u, v: s.v, wKR: s.wKR },
      check(d) {
        const hd = d.heads * d.headDim;
        checkTable(s.u, `${n}.u`, hd, `[heads ${d.heads}, headDim ${d.headDim}]`);
        checkTable(s.v, `${n}.v`, hd, `[heads ${d.heads}, headDim ${d.headDim}]`);
        checkTable(s.wKR, `${n}.wKR`, hd * dModel, `[heads·headDim ${hd}, dModel ${dModel}]`);
      },
    };
  },

  t5(s, n) {
    const numBuckets = checkInt(opt(s.numBuckets, 32), `${n}.numBuckets`);
    const maxDistance = checkInt(opt(s.maxDistance, 128), `${n}.maxDistance`);
    const bidirectional = checkBool(opt(s.bidirectional, true), `${n}.bidirectional`);
    if (bidirectional && numBuckets < 2)
      throw new RangeError(`${n}.numBuckets: a bidirectional T5 bias needs ≥ 2 buckets, got ${numBuckets}`);
    if (s.biasTable !== undefined && s.biasTable !== null) checkFloat32(s.biasTable, `${n}.biasTable`);
    return {
      factory: 'makeT5Scheme',
      params: { numBuckets, maxDistance, bidirectional },
      tables: { biasTable: s.biasTable },
      check(d) {
        checkTable(s.biasTable, `${n}.biasTable`, numBuckets * d.heads, `[numBuckets ${numBuckets}, heads ${d.heads}]`);
      },
    };
  },

  tupe(s, n) {
    const posDim = checkInt(s.posDim, `${n}.posDim`);
    for (const k of ['positions', 'uQ', 'uK']) if (s[k] !== undefined && s[k] !== null) checkFloat32(s[k], `${n}.${k}`);
    if (s.positions === undefined || s.positions === null)
      throw new Error(`${n}.positions: table is required, expected a Float32Array of [rows ≥ seqLen, posDim ${posDim}] floats, got ${describe(s.positions)}`);
    return {
      factory: 'makeTupeScheme',
      params: { tableRows: 0, posDim },
      tables: { positions: s.positions, uQ: s.uQ, uK: s.uK },
      check(d, params) {
        const rows = rowsOf(s.positions, posDim, `${n}.positions`, `[rows, posDim ${posDim}]`);
        if (rows < d.seqLen)
          throw new Error(`${n}.positions: has ${rows} rows of posDim ${posDim}, expected at least seqLen = ${d.seqLen} rows`);
        params.tableRows = rows;
        const hd = d.heads * d.headDim;
        checkTable(s.uQ, `${n}.uQ`, hd * posDim, `[heads·headDim ${hd}, posDim ${posDim}]`);
        checkTable(s.uK, `${n}.uK`, hd * posDim, `[heads·headDim ${hd}, posDim ${posDim}]`);
      },
    };
  },

  deberta(s, n) {
    const buckets = checkInt(opt(s.buckets, 256), `${n}.buckets`, { min: -(2 ** 31) });
    const maxRelative = checkInt(opt(s.maxRelative, 512), `${n}.maxRelative`);
    const terms = opt(s.terms, ['c2p', 'p2c']);
    if (!Array.isArray(terms)) throw new TypeError(`${n}.terms: expected an array of 'c2p' / 'p2c', got ${describe(terms)}`);
    terms.forEach((t, i) => checkChoice(t, `${n}.terms[${i}]`, ['c2p', 'p2c']));
    const c2p = terms.includes('c2p');
    const p2c = terms.includes('p2c');
    for (const k of ['posKey', 'posQuery']) if (s[k] !== undefined && s[k] !== null) checkFloat32(s[k], `${n}.${k}`);
    const span = buckets > 0 ? buckets : maxRelative;
    return {
      factory: 'makeDebertaScheme',
      params: { c2p, p2c, positionBuckets: buckets, maxRelativePositions: maxRelative },
      tables: { posKey: c2p ? s.posKey : null, posQuery: p2c ? s.posQuery : null },
      check(d) {
        const len = d.heads * 2 * span * d.headDim;
        const shape = `[heads ${d.heads}, 2·span ${2 * span}, headDim ${d.headDim}]`;
        if (c2p) checkTable(s.posKey, `${n}.posKey`, len, shape);
        if (p2c) checkTable(s.posQuery, `${n}.posQuery`, len, shape);
      },
    };
  },

  rope(s, n) {
    const layout = checkChoice(opt(s.layout, 'half'), `${n}.layout`, ['interleaved', 'half']);
    const theta = checkNumber(opt(s.theta, 10000), `${n}.theta`, { positive: true });
    const rotaryDim = checkInt(opt(s.rotaryDim, 0), `${n}.rotaryDim`, { min: 0 });
    return {
      factory: 'makeRopeScheme',
      params: { layout: { enum: 'RopeLayout', value: layout === 'half' ? 'Half' : 'Interleaved' }, theta, rotaryDim },
      tables: {},
      check(d) {
        const r = rotaryDim || d.headDim;
        if (r > d.headDim) throw new RangeError(`${n}.rotaryDim: expected ≤ headDim ${d.headDim}, got ${rotaryDim}`);
        if (r % 2 !== 0)
          throw new RangeError(`${n}.rotaryDim: expected an even rotary dimension, got ${rotaryDim ? rotaryDim : `headDim ${d.headDim}`}`);
      },
    };
  },

  alibi(s, n) {
    const slopes = opt(s.slopes, 'bloom');
    const custom = slopes instanceof Float32Array;
    if (!custom) {
      if (typeof slopes !== 'string')
        throw new TypeError(`${n}.slopes: expected 'bloom', 'mpt' or a Float32Array of per-head slopes, got ${describe(slopes)}`);
      checkChoice(slopes, `${n}.slopes`, ['bloom', 'mpt']);
    }
    const biasMax = checkNumber(opt(s.biasMax, 8), `${n}.biasMax`, { positive: true });
    const symmetric = checkBool(opt(s.symmetric, false), `${n}.symmetric`);
    return {
      factory: 'makeAlibiScheme',
      params: {
        slopes: { enum: 'AlibiSlopes', value: custom ? 'Custom' : slopes === 'bloom' ? 'Bloom' : 'Mpt' },
        mptBiasMax: biasMax,
        symmetric,
      },
      tables: { custom: custom ? slopes : null },
      check(d) {
        if (custom) checkTable(slopes, `${n}.slopes`, d.heads, `[heads ${d.heads}]`);
      },
    };
  },
};

/** Validates a scheme object (see index.d.ts) and returns its normalized description. */
export function normalizeScheme(spec, name = 'scheme') {
  checkObject(spec, name);
  const type = spec.type;
  if (typeof type !== 'string')
    throw new TypeError(`${name}.type: expected a scheme name string (${SCHEME_TYPES.join(', ')}), got ${describe(type)}`);
  const build = Object.prototype.hasOwnProperty.call(builders, type) ? builders[type] : undefined;
  if (!build) throw new Error(`${name}.type: unknown scheme ${describe(type)}, expected one of ${SCHEME_TYPES.join(', ')}`);
  return { type, ...build(spec, name) };
}
