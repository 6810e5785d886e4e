// Every class of bad input throws the documented JS error class with a message naming the
// argument, what it got and what was expected — before WebAssembly memory is touched (the heap
// does not change) — and the runtime keeps working: each bad call is followed by a good one.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { init } from '../../web/index.js';
import { randomArray } from './helpers.mjs';

const dims = { batch: 1, heads: 2, seqLen: 5, headDim: 4 };
const n = 1 * 2 * 5 * 4;
const good = () => ({ q: randomArray(n, 1), k: randomArray(n, 2), v: randomArray(n, 3), ...dims, scheme: { type: 'none' } });
let rp;
let reference;
before(async () => {
  rp = await init({ simd: 'auto' });
  reference = rp.attention(good()).output;
});

function expectThrow(label, options, ErrorClass, pattern) {
  test(`${label} → ${ErrorClass.name}, then a correct call still works`, () => {
    const heap = rp.heapBytes;
    assert.throws(
      () => rp.attention(options),
      (e) => {
        assert.equal(e.constructor, ErrorClass, `got ${e.constructor.name}: ${e.message}`);
        assert.match(e.message, pattern);
        return true;
      },
    );
    assert.equal(rp.heapBytes, heap);
    assert.deepEqual(rp.attention(good()).output, reference);
  });
}

const has = (type) => rp.schemes.includes(type);

// TypeError: wrong array / value type
expectThrow('q as a plain Array', { ...good(), q: Array.from(randomArray(n)) }, TypeError, /q: expected a Float32Array, got Array\(40\)/);
expectThrow('k as a Float64Array', { ...good(), k: new Float64Array(n) }, TypeError, /k: expected a Float32Array, got Float64Array\(40\)/);
expectThrow('v missing', { ...good(), v: undefined }, TypeError, /v: expected a Float32Array, got undefined/);
expectThrow('mask as an Int32Array', { ...good(), mask: new Int32Array(5) }, TypeError, /mask: expected a Uint8Array.*got Int32Array\(5\)/);
expectThrow('heads as a string', { ...good(), heads: '2' }, TypeError, /heads: expected an integer number, got "2"/);
expectThrow('causal as a number', { ...good(), causal: 1 }, TypeError, /causal: expected true or false, got 1/);
expectThrow('options not an object', 42, TypeError, /options: expected an object, got 42/);
expectThrow('a T5 bias table as a plain Array', { ...good(), scheme: { type: 't5', numBuckets: 4, biasTable: [1, 2, 3, 4, 5, 6, 7, 8] } }, TypeError, /biasTable: expected a Float32Array, got Array\(8\)/);

// RangeError: sizes negative, non-integer, zero or inconsistent
expectThrow('negative batch', { ...good(), batch: -1 }, RangeError, /batch: expected an integer ≥ 1.*got -1/);
expectThrow('non-integer seqLen', { ...good(), seqLen: 2.5 }, RangeError, /seqLen: expected an integer, got 2.5/);
expectThrow('zero headDim', { ...good(), headDim: 0 }, RangeError, /headDim: expected an integer ≥ 1.*got 0/);
expectThrow('NaN heads', { ...good(), heads: NaN }, RangeError, /heads: expected an integer, got NaN/);
expectThrow('q shorter than the sizes', { ...good(), q: randomArray(n - 1) }, RangeError, /q: expected batch·heads·seqLen·headDim = 1·2·5·4 = 40 floats, got Float32Array\(39\)/);
expectThrow('sizes larger than the arrays', { ...good(), seqLen: 6 }, RangeError, /q: expected .* = 48 floats, got Float32Array\(40\)/);
expectThrow('mask of the wrong length', { ...good(), mask: new Uint8Array(4) }, RangeError, /mask: expected batch·seqLen = 1·5 = 5 bytes, got Uint8Array\(4\)/);
expectThrow('sizes beyond the 2 GB heap', { ...good(), batch: 100000, heads: 100000 }, RangeError, /do not fit the 2 GB WebAssembly heap/);
expectThrow('a RoPE rotaryDim larger than headDim', { ...good(), scheme: { type: 'rope', rotaryDim: 8 } }, RangeError, /rotaryDim: expected ≤ headDim 4, got 8/);
expectThrow('a negative Shaw maxDistance', { ...good(), scheme: { type: 'shaw', maxDistance: -2, keyTable: new Float32Array(4) } }, RangeError, /maxDistance: expected an integer ≥ 1.*got -2/);

// Error: unknown scheme, missing or mis-shaped table
expectThrow('an unknown scheme', { ...good(), scheme: { type: 'xpos' } }, Error, /scheme.type: unknown scheme "xpos", expected one of none, sinusoidal/);
expectThrow('no scheme', { ...good(), scheme: undefined }, Error, /scheme: expected a scheme object/);
expectThrow('a missing T5 bias table', { ...good(), scheme: { type: 't5', numBuckets: 4 } }, Error, /biasTable: table is required, expected a Float32Array of \[numBuckets 4, heads 2\] = 8 floats, got undefined/);
expectThrow('a mis-shaped T5 bias table', { ...good(), scheme: { type: 't5', numBuckets: 4, biasTable: new Float32Array(9) } }, Error, /biasTable: expected \[numBuckets 4, heads 2\] = 8 floats, got Float32Array\(9\)/);
expectThrow('a mis-shaped Shaw key table', { ...good(), scheme: { type: 'shaw', maxDistance: 2, keyTable: new Float32Array(5 * 3) } }, Error, /keyTable: expected \[2·maxDistance\+1 = 5, headDim 4\] = 20 floats, got Float32Array\(15\)/);
expectThrow('a DeBERTa posKey for the wrong span', { ...good(), scheme: { type: 'deberta', buckets: 4, maxRelative: 8, terms: ['c2p'], posKey: new Float32Array(2 * 4 * 4) } }, Error, /posKey: expected \[heads 2, 2·span 8, headDim 4\] = 64 floats/);
expectThrow('an unknown DeBERTa term', { ...good(), scheme: { type: 'deberta', terms: ['c2c'] } }, Error, /terms\[0\]: expected one of 'c2p', 'p2c', got "c2c"/);
expectThrow('a learned table with too few rows', { ...good(), scheme: { type: 'learned-absolute', table: new Float32Array(4 * 4) } }, Error, /table: has 4 rows of headDim 4, expected at least seqLen = 5 rows/);
expectThrow('ALiBi custom slopes for the wrong head count', { ...good(), scheme: { type: 'alibi', slopes: new Float32Array(3) } }, Error, /slopes: expected \[heads 2\] = 2 floats, got Float32Array\(3\)/);

test('a relpos::Error raised inside the C++ library arrives as a RangeError with its message (1000 times), and the runtime keeps working', (t) => {
  if (!has('t5')) return t.skip('t5 not in this build');
  // Passes the JS checks; the library rejects it (T5 needs ≥ 4 buckets when bidirectional).
  const scheme = { type: 't5', numBuckets: 3, maxDistance: 2, bidirectional: true, biasTable: new Float32Array(6) };
  rp.attention(good());
  const heap = rp.heapBytes;
  for (let i = 0; i < 1000; ++i) {
    assert.throws(
      () => rp.attention({ ...good(), scheme }),
      (e) => e instanceof RangeError && /num_buckets/.test(e.message),
    );
  }
  assert.equal(rp.heapBytes, heap);
  assert.deepEqual(rp.attention(good()).output, reference);
});

test('positions helpers validate their arguments the same way and stay usable', () => {
  assert.throws(() => rp.positions.t5BucketTable(0), RangeError);
  assert.throws(() => rp.positions.t5BucketTable('4'), TypeError);
  assert.throws(() => rp.positions.alibiSlopes(4, 'gpt'), /alibiSlopes: rule: expected one of 'bloom', 'mpt', got "gpt"/);
  assert.throws(() => rp.positions.ropeTables(4, 3), /rotaryDim: expected a positive even integer, got 3/);
  assert.throws(() => rp.positions.alibiBias(4, [0.5]), TypeError);
  assert.equal(rp.positions.t5BucketTable(4).length, 16);
});

test('a relpos::Error from a positions helper becomes a RangeError, not an abort', () => {
  assert.throws(() => rp.positions.t5RelativeBucket(5, { numBuckets: 1, maxDistance: 1 }), (e) => e instanceof RangeError && /num_buckets/.test(e.message));
  assert.equal(rp.positions.t5BucketTable(3).length, 9);
});

test('a disposed runtime refuses calls with a plain Error', async () => {
  const other = await init({ simd: false });
  other.dispose();
  assert.throws(() => other.attention(good()), /disposed/);
  other.dispose(); // idempotent
});

test('node --jitless (no WebAssembly): init and lab.train reject with an Error saying WebAssembly is unavailable, every time, nothing else printed, the process stays up', async () => {
  const { spawnSync } = await import('node:child_process');
  const script = `
    const { init, lab, pipeline } = await import(${JSON.stringify(new URL('../../web/index.js', import.meta.url).href)});
    const seen = [];
    for (const call of [() => init(), () => init({ threads: 2 }), () => init(), () => pipeline('feature-extraction', './nowhere/'), () => lab.train({ scheme: 'rope' })]) {
      try { await call(); seen.push('resolved'); } catch (e) { seen.push(e.constructor.name + ': ' + e.message); }
    }
    console.log(JSON.stringify({ seen, alive: true }));`;
  const child = spawnSync(process.execPath, ['--jitless', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  // V8 itself warns "disabling flag --expose_wasm due to conflicting flags"; relpos adds nothing (no abort text, no glue)
  assert.deepEqual(child.stderr.split('\n').filter((l) => l && !/disabling flag --expose_wasm/.test(l)), []);
  const out = JSON.parse(child.stdout);
  assert.equal(out.alive, true);
  assert.equal(out.seen.length, 5);
  for (const s of out.seen)
    assert.match(s, /^Error: (init|lab\.train): WebAssembly is unavailable in this JavaScript engine \(Node started with --jitless/, s);
});

test("device 'auto' on Linux with no Vulkan driver stays on WebAssembly with the reason, and Dawn's loader prints nothing (no 'vkCreateInstance: Found no drivers!')", async (t) => {
  const { spawnSync } = await import('node:child_process');
  const { existsSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const fixture = new URL('../../../shared/fixtures/hf/bert-absolute/', import.meta.url);
  if (process.platform !== 'linux') return t.skip('the Vulkan loader check is Linux-only');
  if (!existsSync(fixture) || !existsSync(new URL('../../node_modules/webgpu/package.json', import.meta.url))) return t.skip('needs ../shared/fixtures and the webgpu package');
  // a process whose loader finds no driver: no VK_* variables, the XDG folders empty; the system folders must hold none
  const empty = mkdtempSync(join(tmpdir(), 'relpos-novk-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^VK_|^XDG_/.test(k)));
  Object.assign(env, { XDG_CONFIG_DIRS: empty, XDG_DATA_DIRS: empty, XDG_DATA_HOME: empty });
  if (['/etc/vulkan/icd.d', '/usr/local/etc/vulkan/icd.d'].some((d) => existsSync(d) && spawnSync('sh', ['-c', `ls ${d}/*.json`]).status === 0))
    return t.skip('this machine has a Vulkan driver installed');
  const script = `
    const { init } = await import(${JSON.stringify(new URL('../../web/index.js', import.meta.url).href)});
    const rp = await init();
    const model = await rp.loadModel(${JSON.stringify(fixture.pathname)}, { device: 'auto' });
    console.log(JSON.stringify({ device: model.info.device, reason: model.info.deviceReason }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stderr, '');
  const out = JSON.parse(child.stdout);
  assert.equal(out.device, 'wasm');
  assert.match(out.reason, /^webgpu: no GPU adapter: no Vulkan driver is installed \(no ICD manifest in .*\); Dawn needs a GPU driver, or VK_ICD_FILENAMES=/);
});
