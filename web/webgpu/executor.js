// The WebGPU executor of a model's plan (cpp/src/plan/plan.h, docs/architecture.md): the C++ family
// runs once in record-only mode and yields ops over buffers; this file maps each op to a kernel of
// ./kernels and records a whole forward into ONE command encoder. Weights go to the GPU once (by the
// key the plan gives them, for the model's life); activations are one GPU buffer per plan buffer,
// kept per (batch, seq, hidden states); only the outputs are copied back.
//
//   const ex = new PlanExecutor(ctx, { plan: (b, l, hs) => plan, weightValues: (i) => Float32Array });
//   const { lastHiddenState, hiddenStates } = await ex.forward({ batch, seq, ids, mask, types, hiddenStates });
//
// Op → kernel: gemm → gemm (bias epilogue); norm → norm (an `add` into the norm's own in-place input
// is fused as its residual); activate → activate; multiply → gated (split layout, no activation);
// add → add; gather + add_rows on one buffer → one embedding gather of up to 3 summed tables (ids:
// input ids, token types or zeros, positions r % seq); attention (scheme 'none') → attention with
// strides reading q/k/v in place; output → a copy into a read-back buffer at that point.
// An output that aliases an input goes through a scratch buffer and a copy (WebGPU forbids a
// read and a read-write binding of one buffer in a dispatch).
import { gemm } from './kernels/gemm.js';
import { norm } from './kernels/norm.js';
import { activate, gated, add } from './kernels/elementwise.js';
import { embedding } from './kernels/embedding.js';
import { attention } from './kernels/attention.js';

/** Activation enum of cpp/src/models/layers/layers.h → kernel names. */
const ACT = ['relu', 'gelu', 'gelu_tanh', 'silu'];

export class PlanExecutor {
  /** source: { plan(batch, seq, hiddenStates) → plan object, weightValues(index) → Float32Array }. */
  constructor(ctx, source) {
    this.ctx = ctx;
    this.source = source;
    this.weights = new Map(); // key → GPUBuffer, for the model's life
    this.prepared = new Map(); // `${batch}x${seq}:${hs}` → prepared plan
  }

  /** Builds (or reuses) the plan for this shape, uploads the weights it names that are not on the GPU yet. */
  prepare(batch, seq, hiddenStates = false) {
    const key = `${batch}x${seq}:${hiddenStates}`;
    let p = this.prepared.get(key);
    if (p) return p;
    const plan = this.source.plan(batch, seq, hiddenStates);
    checkPlan(plan);
    const ctx = this.ctx;
    const weights = plan.weights.map((w, i) => {
      let buffer = this.weights.get(w.key);
      if (!buffer) {
        buffer = ctx.upload(this.source.weightValues(i), `weight ${i}`);
        this.weights.set(w.key, buffer);
      }
      return buffer;
    });
    let largest = 0;
    const buffers = plan.buffers.map((b, i) => {
      largest = Math.max(largest, b.elements);
      return ctx.empty(4 * b.elements, `${b.kind} ${i}`);
    });
    const rows = batch * seq;
    const positions = new Uint32Array(rows);
    for (let t = 0; t < rows; ++t) positions[t] = t % seq;
    p = {
      plan,
      weights,
      buffers,
      inputs: Object.fromEntries(plan.buffers.map((b, i) => [b.kind, i]).filter(([k]) => k !== 'activation')),
      positions: ctx.upload(positions, 'positions'),
      zeros: ctx.empty(4 * rows, 'zero ids'),
      scratch: ctx.empty(4 * largest, 'scratch'),
    };
    this.prepared.set(key, p);
    return p;
  }

  /**
   * Runs one forward. ids, mask, types: Int32Array [batch·seq] (mask and types may be null: all 1 /
   * all 0). Returns { lastHiddenState: Float32Array, hiddenStates: [Float32Array] | undefined }.
   */
  async forward({ batch, seq, ids, mask, types, hiddenStates = false }) {
    const p = this.prepare(batch, seq, hiddenStates);
    const ctx = this.ctx, queue = ctx.device.queue, rows = batch * seq;
    const write = (kind, data) => {
      if (p.inputs[kind] !== undefined) queue.writeBuffer(p.buffers[p.inputs[kind]], 0, data.buffer, data.byteOffset, data.byteLength);
    };
    write('ids', ids);
    write('mask', mask ?? new Int32Array(rows).fill(1));
    write('token_types', types ?? new Int32Array(rows));
    const encoder = ctx.device.createCommandEncoder({ label: 'relpos forward' });
    const outputs = this.#record(p, encoder);
    ctx.device.queue.submit([encoder.finish()]);
    const read = [];
    for (const o of outputs) read.push(o.staging.mapAsync(GPUMapMode.READ));
    await Promise.all(read);
    const result = { lastHiddenState: null, hiddenStates: hiddenStates ? [] : undefined };
    for (const o of outputs) {
      const data = new Float32Array(o.staging.getMappedRange().slice(0));
      o.staging.unmap();
      o.staging.destroy();
      if (o.kind === 1) result.lastHiddenState = data;
      else result.hiddenStates.push(data);
    }
    return result;
  }

  #record(p, encoder) {
    const ctx = this.ctx, ops = p.plan.ops, outputs = [];
    const buf = (op, key, floats) => view(ctx, p.buffers[op[key]], op[`${key}_off`], floats, op.op);
    const same = (a, ka, b, kb) => a[ka] === b[kb] && a[`${ka}_off`] === b[`${kb}_off`];
    // Writes `floats` from the scratch buffer to op[key] (after a dispatch that wrote the scratch).
    const copyBack = (op, key, floats) =>
      encoder.copyBufferToBuffer(p.scratch, 0, p.buffers[op[key]], 4 * op[`${key}_off`], 4 * floats);
    for (let i = 0; i < ops.length; ++i) {
      const op = ops[i];
      switch (op.op) {
        case 'gemm': {
          if (op.a === op.c) throw new Error('webgpu plan: a gemm whose output is its input buffer');
          gemm(ctx, encoder, {
            a: buf(op, 'a', op.M * op.K), c: buf(op, 'c', op.M * op.N), b: p.weights[op.w],
            bias: op.bias >= 0 ? p.weights[op.bias] : undefined, M: op.M, N: op.N, K: op.K,
          });
          break;
        }
        case 'add': {
          const next = ops[i + 1];
          const n = op.n;
          if (next && next.op === 'norm' && same(next, 'x', op, 'x') && same(next, 'y', op, 'x') && next.rows * next.dim === n) {
            // x += y; x = norm(x)  →  scratch = norm(x + y); x = scratch
            this.#norm(p, encoder, next, { x: buf(op, 'x', n), residual: buf(op, 'y', n), y: view(ctx, p.scratch, 0, n, 'norm') });
            copyBack(op, 'x', n);
            ++i;
          } else {
            add(ctx, encoder, { a: buf(op, 'x', n), b: buf(op, 'y', n), y: view(ctx, p.scratch, 0, n, 'add'), n });
            copyBack(op, 'x', n);
          }
          break;
        }
        case 'norm': {
          const n = op.rows * op.dim;
          if (same(op, 'x', op, 'y')) {
            this.#norm(p, encoder, op, { x: buf(op, 'x', n), y: view(ctx, p.scratch, 0, n, 'norm') });
            copyBack(op, 'y', n);
          } else {
            this.#norm(p, encoder, op, { x: buf(op, 'x', n), y: buf(op, 'y', n) });
          }
          break;
        }
        case 'activate':
          activate(ctx, encoder, { x: buf(op, 'x', op.n), n: op.n, activation: ACT[op.act] });
          break;
        case 'multiply': {
          const width = op.n;
          gated(ctx, encoder, { gate: buf(op, 'x', width), up: buf(op, 'y', width), y: view(ctx, p.scratch, 0, width, 'multiply'), rows: 1, width, activation: 'none' });
          copyBack(op, 'x', width);
          break;
        }
        case 'gather': {
          const tables = [{ table: p.weights[op.table], ids: p.buffers[p.inputs.ids], rows: op.vocab }];
          while (tables.length < 3 && ops[i + 1]?.op === 'add_rows' && same(ops[i + 1], 'out', op, 'out')) {
            const a = ops[++i];
            const ids = a.source === 1 ? p.positions : p.inputs.token_types !== undefined ? p.buffers[p.inputs.token_types] : p.zeros;
            tables.push({ table: p.weights[a.table], ids, rows: Math.floor(p.weights[a.table].size / 4 / a.dim) });
          }
          embedding(ctx, encoder, { out: buf(op, 'out', op.rows * op.dim), tokens: op.rows, dim: op.dim, tables });
          break;
        }
        case 'attention':
          this.#attention(p, encoder, op, buf);
          break;
        case 'output': {
          const floats = op.rows * op.width;
          const staging = ctx.device.createBuffer({ size: 4 * floats, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
          encoder.copyBufferToBuffer(p.buffers[op.x], 4 * op.x_off, staging, 0, 4 * floats);
          outputs.push({ kind: op.kind, staging });
          break;
        }
        default:
          throw new Error(`webgpu plan: op '${op.op}' has no WebGPU kernel (an add_rows without a gather before it, or a newer plan)`);
      }
    }
    return outputs;
  }

  #norm(p, encoder, op, bufs) {
    norm(this.ctx, encoder, {
      kind: op.kind === 1 ? 'rmsnorm' : 'layernorm', ...bufs, gamma: p.weights[op.gamma],
      beta: op.beta >= 0 ? p.weights[op.beta] : undefined, rows: op.rows, dim: op.dim, eps: op.eps,
    });
  }

  #attention(p, encoder, op, buf) {
    const { batch: B, seq: L, heads: H, head_dim: D } = op;
    if (op.kind !== 'none') throw new Error(`webgpu plan: attention scheme '${op.kind}' has no WebGPU kernel yet`);
    if (op.kv_heads !== H) throw new Error('webgpu plan: grouped-query attention (kv_heads < heads) has no WebGPU kernel yet');
    for (const s of ['k', 'v'])
      if (op[`${s}_row`] !== op.q_row || op[`${s}_head`] !== op.q_head)
        throw new Error('webgpu plan: attention with different q/k/v strides has no WebGPU kernel yet');
    const whole = (key) => p.buffers[op[key]];
    attention(this.ctx, encoder, {
      q: whole('q'), k: whole('k'), v: whole('v'), out: whole('ctx'),
      batch: B, heads: H, seqLen: L, headDim: D,
      mask: op.mask ? p.buffers[p.inputs.mask] : undefined,
      window: op.window, causal: !!op.causal, scale: op.scale, scheme: { type: 'none' },
      strides: {
        in: { b: L * op.q_row, h: op.q_head, l: op.q_row, off: { q: op.q_off, k: op.k_off, v: op.v_off } },
        out: { b: L * H * D, h: D, l: H * D, off: op.ctx_off },
      },
    });
  }

  /** Releases the GPU buffers (weights and activations); the context stays. */
  destroy() {
    for (const b of this.weights.values()) b.destroy();
    for (const p of this.prepared.values()) {
      for (const b of p.buffers) b.destroy();
      p.positions.destroy();
      p.zeros.destroy();
      p.scratch.destroy();
    }
    this.weights.clear();
    this.prepared.clear();
  }
}

/** A binding of `floats` floats at float offset `off` of `buffer` (the whole buffer at offset 0). */
function view(ctx, buffer, off, floats, what) {
  if (!off) return buffer;
  const align = ctx.limits.minStorageBufferOffsetAlignment ?? 256;
  if ((4 * off) % align)
    throw new Error(`webgpu plan: ${what}: a buffer offset of ${4 * off} bytes is not a multiple of the device's ${align}-byte storage offset alignment`);
  return { buffer, offset: 4 * off, size: 4 * floats };
}

/** Ops this executor knows; a plan with others is refused before anything is uploaded. */
const KNOWN = new Set(['gemm', 'norm', 'activate', 'multiply', 'add', 'gather', 'add_rows', 'attention', 'output']);

/** Throws an Error naming the first op this executor cannot run (checked before any upload). */
export function checkPlan(plan) {
  for (const op of plan.ops) {
    if (!KNOWN.has(op.op)) throw new Error(`webgpu plan: op '${op.op}' has no WebGPU kernel`);
    if (op.op === 'attention') {
      if (op.kind !== 'none') throw new Error(`webgpu plan: attention scheme '${op.kind}' has no WebGPU kernel yet`);
      if (op.kv_heads !== op.heads) throw new Error('webgpu plan: grouped-query attention (kv_heads < heads) has no WebGPU kernel yet');
      if (op.head_dim % 4) throw new Error(`webgpu plan: attention head_dim ${op.head_dim} is not a multiple of 4`);
    }
  }
}
