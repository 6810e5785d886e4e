// The demo's pooled-cosine helper (demo/lib/pooled-cosine.js), which the encoder section uses to
// compare q8 with fp32: a masked mean over real tokens only (padding never counts), one cosine per
// sequence, and clear errors for mismatched shapes; and the threads wording (demo/lib/threads.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cosine, maskedMeanPool, pooledCosine } from '../../demo/lib/pooled-cosine.js';
import { describeThreads, noThreadComparison } from '../../demo/lib/threads.js';

test('cosine: 1 for parallel, -1 for opposite, 0 for orthogonal or zero vectors; over a slice', () => {
  assert.equal(cosine([1, 2, 3], [2, 4, 6]), 1);
  assert.equal(cosine([1, 0], [-3, 0]), -1);
  assert.equal(cosine([1, 0], [0, 5]), 0);
  assert.equal(cosine([0, 0], [1, 1]), 0);
  assert.equal(cosine([9, 1, 0, 7], [5, 0, 1, 7], 1, 2), 0);
});

test('the masked mean counts only tokens whose mask is 1, per sequence', () => {
  // batch 2, seq 3, dim 2; sequence 1's last token is padding with a huge value
  const hidden = Float32Array.from([1, 2, 3, 4, 5, 6, /**/ 2, 0, 4, 0, 1e6, -1e6]);
  const mask = [1, 1, 1, /**/ 1, 1, 0];
  assert.deepEqual(Array.from(maskedMeanPool(hidden, [2, 3, 2], mask)), [3, 4, 3, 0]);
  assert.deepEqual(Array.from(maskedMeanPool(hidden.subarray(0, 6), [3, 2])), [3, 4]);
});

test('padding does not change the pooled cosine; pooling over it (the wrong way) does', () => {
  // two "models" agree on the real tokens and disagree wildly on the padded one
  const a = Float32Array.from([1, 2, 0.5, -1, /**/ 7, -7]);
  const b = Float32Array.from([1.01, 1.98, 0.49, -1.02, /**/ -30, 40]);
  const mask = [1, 1, 0];
  const [masked] = pooledCosine(a, b, { dims: [1, 3, 2], mask });
  const [unmasked] = pooledCosine(a, b, { dims: [1, 3, 2] });
  assert.ok(masked > 0.999, `masked ${masked}`);
  assert.ok(unmasked < 0.5, `pooling padding too gives ${unmasked}`);
  // one value per sequence
  assert.equal(pooledCosine(new Float32Array(12).fill(1), new Float32Array(12).fill(1), { dims: [3, 2, 2] }).length, 3);
});

test('mismatched shapes and all-padding sequences are RangeErrors naming the problem', () => {
  assert.throws(() => pooledCosine([1, 2, 3], [1, 2, 3], { dims: [2, 2] }), { name: 'RangeError', message: /hidden: expected 4 values/ });
  assert.throws(() => pooledCosine([1, 2], [1, 2], { dims: [1, 2], mask: [1, 1, 1] }), { name: 'RangeError', message: /mask: expected 1 entries/ });
  assert.throws(() => pooledCosine([1, 2, 3, 4], [1, 2, 3, 4], { dims: [2, 2], mask: [0, 0] }), { name: 'RangeError', message: /sequence 0 has no real token/ });
  assert.throws(() => pooledCosine([1], [1], { dims: [1, 1, 1, 1] }), { name: 'RangeError', message: /dims/ });
});

test('threads wording: a count above 1 is compared; one thread says why in plain words', () => {
  assert.equal(noThreadComparison({ threads: 4, threadsReason: null }), null);
  assert.match(describeThreads({ threads: 4, threadsReason: null }), /computes with 4 threads/);
  const isolated = { threads: 1, threadsReason: 'not cross-origin isolated (SharedArrayBuffer unavailable)' };
  assert.match(describeThreads(isolated), /1 thread, fewer than asked: this page is not cross-origin isolated.*Cross-Origin-Opener-Policy: same-origin.*relpos said: not cross-origin isolated/);
  assert.match(noThreadComparison(isolated), /^the worker runs 1 thread: this page is not cross-origin isolated/);
  assert.match(noThreadComparison({ threads: 1, threadsReason: 'no SIMD (the threads build is a SIMD build; the scalar build runs one thread)' }), /this build is scalar/);
  assert.match(describeThreads({ threads: 1, threadsReason: null }), /1 thread: this browser reports a single core/);
});
