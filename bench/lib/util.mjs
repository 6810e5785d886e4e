// Small helpers: seeded random data, statistics, interleaved timing rounds.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Float32Array of n values uniform in [−scale, scale).
export function randomArray(n, seed, scale = 1) {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = (2 * r() - 1) * scale;
  return out;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

// Runs every contestant `warm` times (and at least warmMs in total), then `reps` interleaved rounds
// with the order rotated each round. fn() returns ms (sync or async) or undefined (timed here).
// Returns { name: { median, runs: [...] } }; a contestant that throws is reported with its error.
export async function interleave(contestants, { reps, warm = 2, warmMs = 0 }) {
  const names = Object.keys(contestants);
  const res = Object.fromEntries(names.map((n) => [n, { runs: [] }]));
  const once = async (n) => {
    if (res[n].error) return;
    try {
      const t0 = performance.now();
      let ms = await contestants[n]();
      if (typeof ms !== 'number' || ms < 0) ms = performance.now() - t0;
      return ms;
    } catch (e) {
      res[n].error = String(e && e.message ? e.message : e);
    }
  };
  const warmStart = performance.now();
  for (let w = 0; w < warm || performance.now() - warmStart < warmMs; ++w) {
    for (const n of names) await once(n);
    if (w > 50) break;
  }
  for (let r = 0; r < reps; ++r) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const n of order) {
      const ms = await once(n);
      if (ms !== undefined) res[n].runs.push(ms);
    }
  }
  for (const n of names) res[n].median = res[n].runs.length ? median(res[n].runs) : null;
  return res;
}
