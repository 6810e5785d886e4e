// Deterministic pseudo-random numbers (mulberry32 + Box–Muller), so every table, embedding and
// weight the demo makes is the same on every load and in every worker.

export function rng(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => {
    const u = 1 - uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
  return {
    uniform,
    normal,
    // Float32Array of n normals with standard deviation std
    normals(n, std = 1) {
      const x = new Float32Array(n);
      for (let i = 0; i < n; i++) x[i] = normal() * std;
      return x;
    },
  };
}

// FNV-1a hash of a string: a seed per word, so "I" always gets the same embedding.
export function hashString(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}
