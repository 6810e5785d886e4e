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
// with the order rotated each round. Each run is timed here twice: process CPU time
// (process.cpuUsage, user + system, all threads) and wall time. On a shared machine CPU time is
// the stable measure (wall time includes the time other processes hold the core), so `median` is
// the CPU-time median and `wall_median` the wall-clock one. Returns { name: { median, wall_median,
// runs, wall_runs } }; a contestant that throws is reported with its error. gapMs: an untimed pause
// before each run (lets another engine's thread pool stop spinning before the next contestant starts).
export async function interleave(contestants, { reps, warm = 2, warmMs = 0, gapMs = 0 }) {
  const names = Object.keys(contestants);
  const res = Object.fromEntries(names.map((n) => [n, { runs: [], wall_runs: [] }]));
  const once = async (n) => {
    if (res[n].error) return;
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
    try {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = contestants[n]();
      if (r && typeof r.then === 'function') await r;
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      return [(c.user + c.system) / 1000, wall];
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
      const t = await once(n);
      if (t) {
        res[n].runs.push(t[0]);
        res[n].wall_runs.push(t[1]);
      }
    }
  }
  for (const n of names) {
    res[n].median = res[n].runs.length ? median(res[n].runs) : null;
    res[n].wall_median = res[n].wall_runs.length ? median(res[n].wall_runs) : null;
  }
  return res;
}
