// rp.positions: the tables and index maps of relpos/positions.h (bound in cpp/bindings/positions.cpp)
// plus alibiBias, the dense [heads, seqLen, seqLen] ALiBi bias. Every result is a fresh typed array
// owned by the caller; arguments are checked here before the module is called.
import { checkBool, checkChoice, checkInt, checkNumber, checkObject, checkSignedInt, describe, product } from './validation.js';

const opt = (value, fallback) => (value === undefined ? fallback : value);

function options(value, name) {
  return value === undefined ? {} : checkObject(value, name);
}

/** Throws a JS Error returned by a binding (see cpp/bindings/common.h), else passes the value on. */
export function unwrap(result) {
  if (result instanceof Error) throw result;
  return result;
}

function bound(mod, fn) {
  if (typeof mod[fn] !== 'function') throw new Error(`positions.${fn}: not available in this build of relpos`);
  return mod[fn];
}

export function createPositions(mod) {
  const api = {
    sinusoidTable(length, dim, opts) {
      checkInt(length, 'sinusoidTable: length', { min: 0 });
      checkInt(dim, 'sinusoidTable: dim');
      if (dim % 2 !== 0) throw new RangeError(`sinusoidTable: dim: expected a positive even integer, got ${dim}`);
      product('sinusoidTable: length·dim', length, dim);
      const o = options(opts, 'sinusoidTable: options');
      const layout = checkChoice(opt(o.layout, 'interleaved'), 'sinusoidTable: layout', ['interleaved', 'concatenated']);
      const base = checkNumber(opt(o.base, 10000), 'sinusoidTable: base', { positive: true });
      const first = checkNumber(opt(o.firstPosition, 0), 'sinusoidTable: firstPosition');
      const l = layout === 'interleaved' ? mod.SinusoidLayout.Interleaved : mod.SinusoidLayout.Concatenated;
      return unwrap(bound(mod, 'sinusoidTable')(length, dim, l, base, first));
    },

    sinusoidRow(position, dim, opts) {
      checkNumber(position, 'sinusoidRow: position');
      checkInt(dim, 'sinusoidRow: dim');
      if (dim % 2 !== 0) throw new RangeError(`sinusoidRow: dim: expected a positive even integer, got ${dim}`);
      const o = options(opts, 'sinusoidRow: options');
      const layout = checkChoice(opt(o.layout, 'interleaved'), 'sinusoidRow: layout', ['interleaved', 'concatenated']);
      const base = checkNumber(opt(o.base, 10000), 'sinusoidRow: base', { positive: true });
      const l = layout === 'interleaved' ? mod.SinusoidLayout.Interleaved : mod.SinusoidLayout.Concatenated;
      return unwrap(bound(mod, 'sinusoidRow')(position, dim, l, base));
    },

    shawIndexTable(seqLen, maxDistance) {
      checkInt(seqLen, 'shawIndexTable: seqLen');
      checkInt(maxDistance, 'shawIndexTable: maxDistance');
      product('shawIndexTable: seqLen·seqLen', seqLen, seqLen);
      return unwrap(bound(mod, 'shawIndexTable')(seqLen, maxDistance));
    },

    bertRelativeIndexTable(seqLen, maxPositions) {
      checkInt(seqLen, 'bertRelativeIndexTable: seqLen');
      checkInt(maxPositions, 'bertRelativeIndexTable: maxPositions');
      product('bertRelativeIndexTable: seqLen·seqLen', seqLen, seqLen);
      return unwrap(bound(mod, 'bertRelativeIndexTable')(seqLen, maxPositions));
    },

    t5RelativeBucket(relativePosition, opts) {
      checkSignedInt(relativePosition, 't5RelativeBucket: relativePosition');
      const [bidirectional, numBuckets, maxDistance] = t5Options(opts, 't5RelativeBucket');
      return unwrap(bound(mod, 't5RelativeBucket')(relativePosition, bidirectional, numBuckets, maxDistance));
    },

    t5BucketTable(seqLen, opts) {
      checkInt(seqLen, 't5BucketTable: seqLen');
      product('t5BucketTable: seqLen·seqLen', seqLen, seqLen);
      const [bidirectional, numBuckets, maxDistance] = t5Options(opts, 't5BucketTable');
      return unwrap(bound(mod, 't5BucketTable')(seqLen, bidirectional, numBuckets, maxDistance));
    },

    debertaRelativePosition(relativePosition, opts) {
      checkSignedInt(relativePosition, 'debertaRelativePosition: relativePosition');
      const [buckets, maxRelative] = debertaOptions(opts, 'debertaRelativePosition');
      return unwrap(bound(mod, 'debertaRelativePosition')(relativePosition, buckets, maxRelative));
    },

    debertaRelativeTable(seqLen, opts) {
      checkInt(seqLen, 'debertaRelativeTable: seqLen');
      product('debertaRelativeTable: seqLen·seqLen', seqLen, seqLen);
      const [buckets, maxRelative] = debertaOptions(opts, 'debertaRelativeTable');
      return unwrap(bound(mod, 'debertaRelativeTable')(seqLen, buckets, maxRelative));
    },

    debertaSpan(opts) {
      const [buckets, maxRelative] = debertaOptions(opts, 'debertaSpan');
      return unwrap(bound(mod, 'debertaSpan')(buckets, maxRelative));
    },

    alibiSlopes(heads, rule = 'bloom', opts) {
      checkInt(heads, 'alibiSlopes: heads');
      checkChoice(rule, 'alibiSlopes: rule', ['bloom', 'mpt']);
      const o = options(opts, 'alibiSlopes: options');
      const biasMax = checkNumber(opt(o.biasMax, 8), 'alibiSlopes: biasMax', { positive: true });
      const r = rule === 'bloom' ? mod.AlibiSlopes.Bloom : mod.AlibiSlopes.Mpt;
      return unwrap(bound(mod, 'alibiSlopes')(heads, r, biasMax));
    },

    /** [heads, seqLen, seqLen]: slope_h · (j − i), or −slope_h · |i − j| when symmetric. */
    alibiBias(seqLen, slopes, opts) {
      checkInt(seqLen, 'alibiBias: seqLen');
      if (!(slopes instanceof Float32Array))
        throw new TypeError(`alibiBias: slopes: expected a Float32Array (e.g. from alibiSlopes), got ${describe(slopes)}`);
      if (slopes.length === 0) throw new RangeError('alibiBias: slopes: expected at least one head, got Float32Array(0)');
      const o = options(opts, 'alibiBias: options');
      const symmetric = checkBool(opt(o.symmetric, false), 'alibiBias: symmetric');
      const out = new Float32Array(product('alibiBias: heads·seqLen·seqLen', slopes.length, seqLen, seqLen));
      for (let h = 0, p = 0; h < slopes.length; ++h)
        for (let i = 0; i < seqLen; ++i)
          for (let j = 0; j < seqLen; ++j, ++p) out[p] = symmetric ? -slopes[h] * Math.abs(i - j) : slopes[h] * (j - i);
      return out;
    },

    ropeTables(length, rotaryDim, opts) {
      checkInt(length, 'ropeTables: length', { min: 0 });
      checkInt(rotaryDim, 'ropeTables: rotaryDim');
      if (rotaryDim % 2 !== 0) throw new RangeError(`ropeTables: rotaryDim: expected a positive even integer, got ${rotaryDim}`);
      product('ropeTables: length·rotaryDim', length, rotaryDim);
      const o = options(opts, 'ropeTables: options');
      const layout = checkChoice(opt(o.layout, 'half'), 'ropeTables: layout', ['interleaved', 'half']);
      const theta = checkNumber(opt(o.theta, 10000), 'ropeTables: theta', { positive: true });
      const l = layout === 'half' ? mod.RopeLayout.Half : mod.RopeLayout.Interleaved;
      return unwrap(bound(mod, 'ropeTables')(length, rotaryDim, l, theta));
    },
  };
  return Object.freeze(api);
}

function t5Options(opts, fn) {
  const o = options(opts, `${fn}: options`);
  const bidirectional = checkBool(opt(o.bidirectional, true), `${fn}: bidirectional`);
  const numBuckets = checkInt(opt(o.numBuckets, 32), `${fn}: numBuckets`);
  const maxDistance = checkInt(opt(o.maxDistance, 128), `${fn}: maxDistance`);
  return [bidirectional, numBuckets, maxDistance];
}

function debertaOptions(opts, fn) {
  const o = options(opts, `${fn}: options`);
  const buckets = checkInt(opt(o.buckets, 256), `${fn}: buckets`, { min: -(2 ** 31) });
  const maxRelative = checkInt(opt(o.maxRelative, 512), `${fn}: maxRelative`);
  return [buckets, maxRelative];
}

