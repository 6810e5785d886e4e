// The bench-only relpos harness (bench/src/harness.cpp, built by run.sh into build/g-wasm/bench).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const BUILD = path.resolve(new URL('../../build/g-wasm/bench', import.meta.url).pathname);

// Buffer order of harness.cpp's enum Buf.
export const BUF = ['Q', 'K', 'V', 'OUT', 'ABS_TABLE', 'MLP_W1', 'MLP_B1', 'MLP_W2', 'MLP_B2', 'SHAW_K', 'SHAW_V',
  'BERT_TABLE', 'HUANG_TABLE', 'TXL_U', 'TXL_V', 'TXL_W', 'T5_BIAS', 'TUPE_POS', 'TUPE_UQ', 'TUPE_UK', 'DEB_POSK', 'DEB_POSQ'];

export async function loadHarness(variant) {
  const create = require(path.join(BUILD, `harness_${variant}.cjs`));
  const mod = await create({ wasmBinary: fs.readFileSync(path.join(BUILD, `harness_${variant}.wasm`)) });
  return mod;
}

// One problem size inside one harness instance. fill(name, length) → Float32Array supplies data.
export class HarnessCase {
  constructor(mod, { seq, heads, d }, fill) {
    this.mod = mod;
    this.ctx = mod._setup(seq, heads, d);
    this.arrays = {};
    BUF.forEach((name, i) => {
      const len = mod._buf_len(this.ctx, i);
      const data = fill(name, len);
      if (data) mod.HEAPF32.set(data, mod._buf(this.ctx, i) >> 2);
    });
    const n = mod._make_schemes(this.ctx);
    this.schemes = [];
    for (let i = 0; i < n; ++i) {
      this.schemes.push({
        index: i,
        name: mod.UTF8ToString(mod._scheme_name(this.ctx, i)),
        error: mod.UTF8ToString(mod._scheme_error(this.ctx, i)) || null,
      });
    }
  }
  run(i) {
    const ms = this.mod._run(this.ctx, i);
    if (ms < 0) throw new Error(this.mod.UTF8ToString(this.mod._scheme_error(this.ctx, i)));
    return ms;
  }
  output() {
    const i = BUF.indexOf('OUT');
    const p = this.mod._buf(this.ctx, i) >> 2;
    return this.mod.HEAPF32.slice(p, p + this.mod._buf_len(this.ctx, i));
  }
  scratchBytes(i) {
    return this.mod._scratch_bytes(this.ctx, i);
  }
  heapBytes() {
    return this.mod.HEAP8.buffer.byteLength;
  }
  dispose() {
    this.mod._teardown(this.ctx);
  }
}
