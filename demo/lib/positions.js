// The demo's only contact with rp.positions.* (web/positions.js): one adapter per table, so a change
// of names or arguments in the package is a change to this one file.
// Results are normalised to { data, rows, cols } (typed arrays, row-major).

function fn(rp, name) {
  const f = rp.positions?.[name];
  if (typeof f !== 'function') throw new Error(`rp.positions.${name}() is not available in this build of relpos`);
  return f;
}

export function sinusoidTable(rp, length, dim, layout = 'interleaved', base = 10000) {
  return { data: Float32Array.from(fn(rp, 'sinusoidTable')(length, dim, { layout, base })), rows: length, cols: dim };
}

export function shawIndexTable(rp, seq, k) {
  return { data: Int32Array.from(fn(rp, 'shawIndexTable')(seq, k)), rows: seq, cols: seq };
}

export function bertRelativeIndexTable(rp, seq, maxPositions) {
  return { data: Int32Array.from(fn(rp, 'bertRelativeIndexTable')(seq, maxPositions)), rows: seq, cols: seq };
}

export function t5BucketTable(rp, seq, bidirectional, numBuckets, maxDistance) {
  return {
    data: Int32Array.from(fn(rp, 't5BucketTable')(seq, { bidirectional, numBuckets, maxDistance })),
    rows: seq,
    cols: seq,
  };
}

export function debertaRelativeTable(rp, seq, buckets, maxRelative) {
  return { data: Int32Array.from(fn(rp, 'debertaRelativeTable')(seq, { buckets, maxRelative })), rows: seq, cols: seq };
}

export function debertaSpan(rp, buckets, maxRelative) {
  const f = rp.positions?.debertaSpan;
  return typeof f === 'function' ? f({ buckets, maxRelative }) : buckets > 0 ? buckets : maxRelative;
}

export function alibiSlopes(rp, heads, rule = 'bloom') {
  return Float32Array.from(fn(rp, 'alibiSlopes')(heads, rule));
}

// [heads] of [seq, seq] bias maps from rp.positions.alibiBias: m_h·(j − i), or −m_h·|i − j| when symmetric.
export function alibiBiases(rp, seq, heads, rule = 'bloom', symmetric = false) {
  const slopes = alibiSlopes(rp, heads, rule);
  const all = fn(rp, 'alibiBias')(seq, slopes, { symmetric });
  const maps = [];
  for (let h = 0; h < heads; h++) maps.push({ data: Float32Array.from(all.subarray(h * seq * seq, (h + 1) * seq * seq)), rows: seq, cols: seq });
  return { slopes, maps };
}

export function ropeTables(rp, length, rotaryDim, layout = 'half', theta = 10000) {
  const t = fn(rp, 'ropeTables')(length, rotaryDim, { layout, theta });
  return { cos: Float32Array.from(t.cos), sin: Float32Array.from(t.sin), rows: length, cols: rotaryDim };
}
