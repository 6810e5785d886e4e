// The WebGPU executor of a model's plan (cpp/src/plan/plan.h, docs/architecture.md): the C++ family
// runs once in record-only mode and yields ops over buffers; this file maps each op to a kernel of
// ./kernels and records a whole forward, submitted in command buffers of growing size as it is encoded
// (PlanExecutor.firstSubmit; device.js ChunkedEncoder), so the GPU starts on the first layers while the rest is
// encoded. Nothing is copied inside a forward but its read-backs: ops that update a buffer (residual adds, norms,
// gated products) run in place on it, RoPE rotates into its own buffers. Weights go to the GPU once (by the
// key the plan gives them, for the model's life); activations are GPU buffers of an arena (one per plan buffer
// and part, grown to the largest shape seen, reused by every smaller (batch, seq)); only the outputs are copied
// back, into pooled read-back buffers. Uniform buffers and bind groups are kept per plan structure (device.js
// DispatchCache with rewrite: a new shape writes its sizes into the same uniform buffers), so after one forward at
// the largest shape, forwards at any smaller shape create no GPU object (views at shape-dependent offsets, e.g. a
// gated FFN's halves, still make a bind group per new shape). Recorded plans: PlanExecutor.KEEP most recent shapes.
// A shape's later forwards replay the commands its first one encoded (device.js DispatchTape: no kernel JavaScript
// per call), until what they bound changes (the arena or the split-K partials grow, a uniform buffer is replaced).
//
//   const ex = new PlanExecutor(ctx, { plan: (b, l, hs) => plan, weightValues: (i) => Float32Array });
//   const { lastHiddenState, hiddenStates, poolerOutput } = await ex.forward({ batch, seq, ids, mask, types, hiddenStates });
//   const { logits } = await ex.forward({ …, logits: true, positions });  // the task head too (positions: masked LM rows)
//
// Fused (fusion.js; PlanExecutor.fuse): consecutive GEMMs over one input (q / k / v, gate / up) → one gemm with parts
// over their weights concatenated once; q / k RMSNorms in place before a RoPE attention → one normRope dispatch;
// Gemma3's post-norm in place, residual add and next (or final) norm → one norm dispatch (residualNorm); a gated product
// (multiply, or glu of a pair layout) that only feeds the next GEMM → that GEMM's gated A loads (never written);
// RoPE of q and of k → one dispatch.
// Op → kernel: gemm → gemm (bias epilogue; an activate of exactly its output becomes its activation
// epilogue); norm → norm (an `add` into the norm's own in-place input
// is fused as its residual; in place when its input and output are one; a pre-LN `add` then norm of the sum is one
// dispatch writing both); activate → activate; multiply → gated (split layout, no activation, in place); add → add (in place); gather + add_rows on one buffer → one embedding gather of up to 3 summed tables (ids:
// input ids, token types or zeros, positions r % seq); attention → attention with strides reading
// q/k/v in place, scheme none / alibi (slopes from the plan) / bucket (T5 buckets and bias table from
// the plan) / rope (q and k rotated into their own buffers by the plan's cos/sin tables, then plain attention) /
// relative_vectors (rows by distance from the plan, its table and table2 weights: DeBERTa, BERT
// relative_key(_query)); mask_rows → maskRows (x[r, :] = 0 where the mask is 0, DeBERTa's embeddings);
// add_rows of source 2 (positions that follow the padding, MPNet) → paddedPositions computes them from the
// ids on the GPU, then the gather reads them; first_rows (BERT's pooler input) → pooling 'cls';
// select_rows (a masked-LM head at the asked rows) → the
// embedding gather over the activation with the "positions" input as ids; mean_rows → pooling 'mean';
// output → a copy into a read-back buffer at that point (kind 3: the task head's logits; a masked-LM
// head's only at the asked rows, so only those come back).
// Element type (options.dtype): 'f32', or 'f16' (ctx.shaderF16): activation buffers and float weights held
// as f16 (float32 weights narrowed on the GPU at upload), every kernel generated for f16 storage with f32
// arithmetic (kernels/dtype.js), outputs widened to float32 on the GPU before their copy out (kernels/convert.js:
// nothing converted per element in JavaScript); inputs (ids, mask, types, positions) and the plan's constants stay 32-bit.
// A derived weight (kind 'derived': DeBERTa's projected relative embeddings on a WebGPU load, plan.h Recorder::derive)
// is computed on the GPU from earlier weights of the plan the first time a plan names it, then kept as the others.
// q8 weights (a plan weight of kind 'q8': an nn.Linear or embedding table loaded with dtype 'q8') stay int8
// on the GPU, in the q8 words of kernels/gemm.js and kernels/embedding.js (cpp/src/plan/plan.h Q8Values):
// ~1 byte per weight.
// Buffers: a plan buffer that ops address at several offsets (an MLP in row blocks) is split into one GPU
// buffer per offset; one that attention reads whole or that an op reads across parts (a gated FFN's two halves)
// is one GPU buffer bound through views, which needs every offset to meet the device's storage offset alignment
// (else refused). An output whose GPU buffer is also
// an input of the dispatch goes through a scratch buffer and a copy (WebGPU forbids a read and a
// read-write binding of one buffer in a dispatch); so does an in-place op whose two inputs are views of one buffer.
import { ChunkedEncoder, DispatchCache, DispatchTape, endSharedPass, sharePasses, stopSharing } from './device.js';
import { gemm, q8RowWords } from './kernels/gemm.js';
import { rope } from './kernels/rope.js';
import { norm } from './kernels/norm.js';
import { activate, gated, add } from './kernels/elementwise.js';
import { embedding } from './kernels/embedding.js';
import { attention } from './kernels/attention.js';
import { maskRows } from './kernels/mask_rows.js';
import { splitHeads } from './kernels/heads.js';
import { pooling } from './kernels/pooling.js';
import { paddedPositions } from './kernels/positions.js';
import { requireDtype } from './kernels/dtype.js';
import { convert } from './kernels/convert.js';
import { gatedGemms, gemmGroups, normRopeGroups, sandwichNorms } from './fusion.js';
import { normRope } from './kernels/norm_rope.js';

/** Activation enum of cpp/src/models/layers/layers.h → kernel names. */
const ACT = ['relu', 'gelu', 'gelu_tanh', 'silu', 'tanh'];

export class PlanExecutor {
  /**
   * source: { plan(batch, seq, hiddenStates, logits, logitRows) → plan object, weightValues(index) → Float32Array
   *   (or { q, scales } for q8, or { gpuBuffer: id } with gpuBuffer(id) → the GPUBuffer a streamed load filled),
   * or { q, scales } (Uint32Arrays) for a weight of kind 'q8' }. options: { dtype: 'f32' (default) | 'f16' }.
   */
  constructor(ctx, source, options = {}) {
    this.ctx = ctx;
    this.source = source;
    this.dtype = options.dtype ?? 'f32';
    requireDtype(ctx, this.dtype, 'PlanExecutor');
    this.eb = this.dtype === 'f16' ? 2 : 4; // bytes per activation / float weight element
    this.weights = new Map(); // key → GPUBuffer, for the model's life
    this.scales = new Map(); // key → GPUBuffer of a q8 weight's scale words
    this.prepared = new Map(); // `${batch}x${seq}:${hs}:…` → recorded plan and its bindings, most recently used last
    this.arena = new Map(); // name → GPUBuffer, grown to the largest shape seen (#arena)
    this.epoch = 0; // bumped by every arena growth
    this.caches = new Map(); // dispatch structure → DispatchCache (uniform buffers and bind groups, shared by shapes)
    this.free = []; // read-back buffers not in use
    this.written = null; // the prepared plan whose shape-dependent contents the arena holds
    this.replays = 0; // forwards replayed from a tape (#record)
    this.fused = new Map(); // a GEMM group's weight keys → its concatenated weights (fuseWeights)
    this.fusedBuffers = [];
  }

  /** Recorded plans kept per shape (CPU objects only: the GPU buffers are shared by every shape); least recently used goes first. */
  static KEEP = 64;

  /** Whether a shape's later forwards replay the commands its first one encoded (#record; false: record every call). */
  static replay = true;

  /**
   * Plan ops in a forward's first command buffer; each later one holds twice as many as the one before (8: submits
   * after ops 8, 24, 56, 120, …). A forward is submitted as it is encoded, so the GPU runs its first layers while the
   * CPU encodes the rest: a call costs about the GPU's time plus the first chunk's encoding, not the sum of both
   * (encoding a forward of 100–400 dispatches takes milliseconds). 0: the whole forward in one command buffer.
   */
  static firstSubmit = 8;

  /**
   * Whether ops run fused (the header's list; fusion.js): GEMMs over one input as one product over their weights
   * concatenated along N (fuseWeights, at load), q / k norms with RoPE, gated products inside their GEMM's loads,
   * Gemma3's sandwich norms, RoPE of q and k in one dispatch. false: every plan op on its own (a separate model's
   * load and forwards read it; for A / B comparisons).
   */
  static fuse = true;

  /**
   * The GPU buffer `name` of at least `bytes` bytes from the executor's arena: one buffer per name for the model's
   * life, grown (replaced by a larger one) when a larger shape needs it and reused by every smaller (batch, seq).
   * A growth bumps this.epoch, so prepared shapes rebind. fill(buffer): writes a new buffer's contents.
   */
  #arena(name, bytes, fill = null) {
    const have = this.arena.get(name);
    if (have && have.size >= bytes) return have;
    have?.destroy(); // work already submitted keeps it alive until it is done
    const b = this.ctx.empty(bytes, name);
    if (fill) fill(b);
    this.arena.set(name, b);
    this.epoch++;
    return b;
  }

  /**
   * The plan for this shape with the GPU buffers it runs on; uploads the weights it names that are not on the GPU
   * yet. Activation, input and scratch buffers come from the arena (#arena): after a forward at the largest shape,
   * a forward at any smaller (batch, seq) creates no GPU buffer, uniform buffer, bind group or pipeline (its sizes
   * travel in the uniform buffers of the dispatch cache, rewritten in place). logits: the task head follows the
   * model; logitRows > 0: a masked-LM head at that many rows.
   */
  prepare(batch, seq, hiddenStates = false, logits = false, logitRows = 0) {
    const key = `${batch}x${seq}:${hiddenStates}:${logits}:${logitRows}`;
    let p = this.prepared.get(key);
    if (p) {
      this.prepared.delete(key); // most recently used last
      this.prepared.set(key, p);
    } else {
      p = this.#recordPlan(batch, seq, hiddenStates, logits, logitRows);
      this.prepared.set(key, p);
      while (this.prepared.size > PlanExecutor.KEEP) this.prepared.delete(this.prepared.keys().next().value);
    }
    this.#bind(p);
    if (this.written !== p) this.#writeShape(p);
    return p;
  }

  // A recorded plan and what its buffers need (CPU only; #bind gives it GPU buffers).
  #recordPlan(batch, seq, hiddenStates, logits, logitRows) {
    const plan = this.source.plan(batch, seq, hiddenStates, logits, logitRows);
    checkPlan(plan);
    const ctx = this.ctx, eb = this.eb;
    const segments = splitBuffers(plan, (ctx.limits.minStorageBufferOffsetAlignment ?? 256) / eb);
    const weights = [];
    plan.weights.forEach((w, i) => {
      let buffer = this.weights.get(w.key);
      if (!buffer && w.kind === 'derived') {
        buffer = this.#derive(w, i, weights);
        this.weights.set(w.key, buffer);
      } else if (!buffer) {
        const values = this.source.weightValues(i);
        if (values?.gpuBuffer !== undefined) {
          // its rows went to the GPU while the checkpoint streamed in (weight-sink.js): already there, as this.dtype —
          // or, q8, as its q8 words and scale words
          buffer = this.source.gpuBuffer(values.gpuBuffer);
          if (w.kind === 'q8') {
            const scales = this.source.gpuScales?.(values.gpuBuffer);
            if (!scales) throw new Error(`webgpu plan: weight ${i} is q8 and streamed to the GPU, but its scale words are not there`);
            this.scales.set(w.key, scales);
          }
        } else if (w.kind === 'q8') {
          if (!(values?.q instanceof Uint32Array) || !(values?.scales instanceof Uint32Array))
            throw new Error(`webgpu plan: weight ${i} is q8 but weightValues gave no { q, scales } Uint32Arrays`);
          this.scales.set(w.key, ctx.upload(values.scales, `weight ${i} q8 scales`));
          buffer = ctx.upload(values.q, `weight ${i} q8`);
        } else {
          buffer = this.dtype === 'f16' ? this.#narrow(values, `weight ${i}`) : ctx.upload(values, `weight ${i}`);
        }
        this.weights.set(w.key, buffer);
      }
      weights.push(buffer);
    });
    this.narrowing?.destroy(); // queued work keeps it alive until done
    this.narrowing = null;
    // GEMM groups whose weights fuseWeights concatenated (the load's first recordings run before it: none)
    const found = (f) => (PlanExecutor.fuse ? f(plan) : new Map());
    const groups = new Map(), normRopes = found(normRopeGroups), gated = found(gatedGemms), sandwiches = found(sandwichNorms);
    if (PlanExecutor.fuse)
      for (const [i, g] of gemmGroups(plan)) {
        const f = this.fused.get(groupKey(plan, g.ops.map((m) => plan.ops[m])));
        if (f) groups.set(i, { ...g, ...f });
      }
    let largest = 0, ropeFloats = 0;
    for (const [i, { views, parts }] of segments.entries())
      for (const [, len] of parts) largest = Math.max(largest, views ? plan.buffers[i].elements : len);
    const ropeConstants = new Set();
    for (const op of plan.ops) {
      if (op.op !== 'attention' || op.kind !== 'rope') continue;
      ropeFloats = Math.max(ropeFloats, plan.buffers[op.q].elements, plan.buffers[op.k].elements);
      ropeConstants.add(op.scheme_floats);
    }
    // the structure of the recorded dispatches (what a dispatch cache is keyed by): the same for every (batch, seq)
    const structure = `${hiddenStates}:${logits}:${logitRows > 0}`;
    let cache = this.caches.get(structure);
    if (!cache) this.caches.set(structure, (cache = new DispatchCache({ rewrite: true })));
    return {
      plan, segments, weights, groups, normRopes, gated, sandwiches, largest, ropeFloats, ropeConstants, cache, epoch: -1,
      scales: plan.weights.map((w) => this.scales.get(w.key)),
      inputs: Object.fromEntries(plan.buffers.map((b, i) => [b.kind, i]).filter(([k]) => k !== 'activation')),
      needsPadded: plan.ops.some((op) => op.op === 'add_rows' && op.source === 2),
      needsOnes: plan.ops.some((op) => op.op === 'mean_rows' && !op.mask),
    };
  }

  /**
   * Concatenates the weights of the GEMM groups (fusion.js gemmGroups) of every plan recorded so far along N on the
   * GPU, once per group of weight keys (float or q8 words and scale words, and biases); later recordings run each
   * group as one product over them. The separate weights become views of the concatenation, so no GPU memory is added
   * but the biases' (kept as well): a group whose weight parts would sit at offsets that miss the device's storage
   * offset alignment is not fused. One group at a time, each awaited before its separate buffers go, so the GPU holds
   * at most one group's weights twice. The plans recorded before are dropped (they bound the separate buffers); the
   * next forward records again. The load calls it (model.js).
   */
  async fuseWeights() {
    if (!PlanExecutor.fuse) return;
    const ctx = this.ctx, align = ctx.limits.minStorageBufferOffsetAlignment ?? 256;
    let made = 0;
    for (const { plan } of [...this.prepared.values()])
      for (const group of gemmGroups(plan).values()) {
        const ops = group.ops.map((m) => plan.ops[m]), key = groupKey(plan, ops);
        if (this.fused.has(key)) continue;
        const q8 = plan.weights[ops[0].w].kind === 'q8', keyOf = (i) => plan.weights[i].key, words = (o) => q8RowWords(o.K);
        const lists = [
          ['b', this.weights, ops.map((o) => [keyOf(o.w), q8 ? 4 * o.N * words(o).q : this.eb * o.N * o.K])],
          ...(q8 ? [['scales', this.scales, ops.map((o) => [keyOf(o.w), 4 * o.N * words(o).s])]] : []),
          ...(ops[0].bias >= 0 ? [['bias', this.weights, ops.map((o) => [keyOf(o.bias), this.eb * o.N])]] : []),
        ];
        // f16 parts of an odd number of values are not whole 4-byte words (a copy's unit): not grouped. The weights
        // (and scale words) become views of the concatenation, so each part's offset must meet the device's storage
        // offset alignment; the biases (a few KB, at offsets of N values that often miss it) are kept as well.
        const offsets = (parts) => parts.map((_, j) => parts.slice(0, j).reduce((a, [, bytes]) => a + bytes, 0));
        if (lists.some(([, map, parts]) => parts.some(([k, bytes]) => bytes % 4 || !(map.get(k)?.size >= bytes)))) continue;
        if (lists.some(([name, , parts]) => name !== 'bias' && offsets(parts).some((at) => at % align))) continue;
        const encoder = ctx.device.createCommandEncoder({ label: 'relpos fused GEMM weights' });
        const f = {}, views = [];
        for (const [name, map, parts] of lists) {
          const at = offsets(parts), dst = ctx.empty(at.at(-1) + parts.at(-1)[1], `fused GEMM ${name} (${parts.map(([k]) => k).join(', ')})`);
          this.fusedBuffers.push(dst);
          parts.forEach(([k, bytes], j) => {
            const src = map.get(k), view = isView(src);
            encoder.copyBufferToBuffer(view ? src.buffer : src, view ? src.offset : 0, dst, at[j], bytes);
            if (name !== 'bias') views.push({ map, k, src, view: { buffer: dst, offset: at[j], size: bytes } });
          });
          f[name] = dst;
        }
        ctx.device.queue.submit([encoder.finish()]);
        await ctx.device.queue.onSubmittedWorkDone();
        for (const { map, k, src, view } of views) {
          map.set(k, view);
          if (!isView(src)) src.destroy();
        }
        this.fused.set(key, f);
        ++made;
      }
    if (!made) return;
    this.prepared.clear(); // their weights[] name the separate buffers
    this.written = null;
  }

  // A derived table (cpp/src/plan/plan.h Recorder::derive: DeBERTa's relative embeddings R projected through a layer's
  // key or query projection, whose weights streamed straight to the GPU): [heads, rows, d] = (R·Wᵀ + b) per head, from
  // earlier weights of the plan, computed here by the GEMM and a head re-layout (kernels/heads.js), in this.dtype.
  #derive(w, i, weights) {
    const ctx = this.ctx, { rows, heads } = w, N = w.out, K = w.in;
    const tokens = ctx.empty(this.eb * rows * N, `weight ${i} (token-major)`), table = ctx.empty(this.eb * rows * N, `weight ${i}`);
    const encoder = ctx.device.createCommandEncoder({ label: 'relpos derived weights' });
    const bias = w.bias >= 0 ? weights[w.bias] : undefined;
    gemm(ctx, encoder, { a: weights[w.from], b: weights[w.linear], bias, c: tokens, M: rows, N, K, dtype: this.dtype });
    splitHeads(ctx, encoder, { x: tokens, y: table, rows, heads, d: N / heads, dtype: this.dtype });
    ctx.device.queue.submit([encoder.finish()]);
    tokens.destroy(); // submitted work keeps it alive until it is done
    return table;
  }

  // An f16 weight buffer of float32 `values`, converted on the GPU (kernels/convert.js): the values go up as they are
  // through one float32 buffer reused by every weight of a recording, nothing converted per element in JavaScript.
  #narrow(values, label) {
    const ctx = this.ctx, n = values.length;
    if (!this.narrowing || this.narrowing.size < 4 * n) {
      this.narrowing?.destroy();
      this.narrowing = ctx.empty(4 * n, 'f32 weights on their way to f16');
    }
    ctx.write(this.narrowing, 0, values); // values may be a view of the WASM heap (shared in the threads build)
    const buffer = ctx.empty(2 * n, label);
    const encoder = ctx.device.createCommandEncoder({ label: 'relpos f16 weights' });
    convert(ctx, encoder, { x: this.narrowing, y: buffer, n, from: 'f32', to: 'f16' });
    ctx.device.queue.submit([encoder.finish()]);
    return buffer;
  }

  // Gives a prepared plan its arena buffers (again after the arena grew).
  #bind(p) {
    if (p.epoch === this.epoch) return; // bound since the arena last grew: its buffers are still large enough
    const { plan, segments, eb } = { ...p, eb: this.eb };
    const rows = plan.batch * plan.seq;
    const bpe = (i) => (plan.buffers[i].kind === 'activation' ? eb : 4);
    // grow first (each growth bumps the epoch), then bind every name to the arena's current buffer
    const need = [];
    segments.forEach(({ views, parts }, i) => {
      if (views) need.push([`buffer ${i}`, bpe(i) * plan.buffers[i].elements]);
      else parts.forEach(([, len], j) => need.push([`buffer ${i}.${j}`, bpe(i) * len]));
    });
    need.push(['positions', 4 * rows], ['zero ids', 4 * rows], ['scratch', eb * p.largest]);
    if (p.ropeFloats) need.push(['rope q', eb * p.ropeFloats], ['rope k', eb * p.ropeFloats]);
    if (p.needsPadded) need.push(['padded positions', 4 * rows]);
    plan.constants.forEach((c, i) => need.push([`constant ${i}`, c.byteLength]));
    for (const id of p.ropeConstants) {
      const n = plan.constants[id].length / 2;
      need.push([`rope cos ${id}`, 4 * n], [`rope sin ${id}`, 4 * n]);
    }
    const ones = (b) => this.ctx.device.queue.writeBuffer(b, 0, new Uint32Array(b.size / 4).fill(1));
    for (const [name, bytes] of need) this.#arena(name, bytes);
    if (p.needsOnes) this.#arena('ones', 4 * rows, ones);
    if (this.written === p) this.written = null; // new buffers: the shape's contents are written again
    const get = (name) => this.arena.get(name);
    p.buffers = segments.map(({ views, parts }, i) => {
      const map = new Map(), e = bpe(i);
      if (views) {
        const b = get(`buffer ${i}`), elements = plan.buffers[i].elements;
        for (const [off] of parts) map.set(off, off ? { buffer: b, offset: e * off, size: e * (elements - off) } : b);
      } else {
        parts.forEach(([off], j) => map.set(off, get(`buffer ${i}.${j}`)));
      }
      return map;
    });
    p.constants = plan.constants.map((c, i) => get(`constant ${i}`));
    p.ropeTables = new Map([...p.ropeConstants].map((id) => [id, [get(`rope cos ${id}`), get(`rope sin ${id}`)]]));
    Object.assign(p, {
      positions: get('positions'), zeros: get('zero ids'), scratch: get('scratch'),
      rope: p.ropeFloats ? [get('rope q'), get('rope k')] : null,
      padded: p.needsPadded ? get('padded positions') : null, ones: p.needsOnes ? get('ones') : null,
    });
    p.epoch = this.epoch;
  }

  // Writes what depends on the shape alone (positions r % seq, the plan's constants, RoPE tables) into the arena.
  // Queue order makes this safe while an earlier forward of another shape is still running.
  #writeShape(p) {
    const queue = this.ctx.device.queue, { plan } = p, rows = plan.batch * plan.seq;
    const put = (buffer, data) => queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, (data.byteLength + 3) & ~3);
    const positions = new Uint32Array(rows);
    for (let t = 0; t < rows; ++t) positions[t] = t % plan.seq;
    put(p.positions, positions);
    plan.constants.forEach((c, i) => c.byteLength && put(p.constants[i], c));
    for (const [id, [cos, sin]] of p.ropeTables) {
      const c = plan.constants[id], n = c.length / 2;
      put(cos, c.subarray(0, n));
      put(sin, c.subarray(n));
    }
    this.written = p;
  }

  // A MAP_READ buffer of at least `bytes` bytes from the pool (made once per read-back slot, reused by every call).
  #staging(bytes) {
    let at = -1;
    this.free.forEach((b, i) => { if (b.size >= bytes && (at < 0 || b.size < this.free[at].size)) at = i; });
    if (at >= 0) return this.free.splice(at, 1)[0];
    return this.ctx.device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, label: 'read-back' });
  }

  /**
   * Runs one forward. ids, mask, types: Int32Array [batch·seq] (mask and types may be null: all 1 /
   * all 0). Returns { lastHiddenState: Float32Array, hiddenStates: [Float32Array] | undefined,
   * poolerOutput: Float32Array | undefined (families with a pooler), logits: Float32Array | undefined,
   * pooled: Float32Array [batch·hidden] | undefined (with pool) }. pool: { mode: 'mean' | 'cls' | 'last_token',
   * normalize, lastHiddenState } or null.
   * logits: the task head's logits as well (flat, as TaskHead::logits); positions: Int32Array of flat
   * rows b·seq + l (checked by the caller) where a masked-LM head computes them, or null (every token).
   */
  async forward({ batch, seq, ids, mask, types, hiddenStates = false, logits = false, positions = null, pool = null }) {
    const p = this.prepare(batch, seq, hiddenStates, logits, positions ? positions.length : 0);
    const ctx = this.ctx, queue = ctx.device.queue, rows = batch * seq;
    // pool: { mode, normalize, lastHiddenState }: the last hidden state pooled on the GPU into f32 [batch, hidden] and
    // read back instead of the last hidden state (unless lastHiddenState: true) and the pooler output
    // (kernels/pooling.js); the mask is the plan's mask input, or the executor's own where the plan has none
    let poolArgs = null;
    if (pool) {
      const H = p.plan.ops.find((op) => op.op === 'output' && op.kind === 1).width;
      let maskBuffer = p.inputs.mask !== undefined ? p.buffers[p.inputs.mask].get(0) : null;
      if (!maskBuffer && pool.mode !== 'cls') {
        maskBuffer = this.#arena('pool mask', 4 * rows);
        const m = mask ?? new Int32Array(rows).fill(1);
        queue.writeBuffer(maskBuffer, 0, m.buffer, m.byteOffset, m.byteLength);
      }
      poolArgs = { ...pool, mask: maskBuffer, out: this.#arena('pooled', 4 * batch * H), batch, seq, hidden: H };
    }
    const write = (kind, data) => {
      if (p.inputs[kind] !== undefined) queue.writeBuffer(p.buffers[p.inputs[kind]].get(0), 0, data.buffer, data.byteOffset, data.byteLength);
    };
    // the CPU head's check (ModernBERT's mean pooling): the GPU would average nothing into zeros
    if (mask && p.plan.ops.some((op) => op.op === 'mean_rows' && op.mask))
      for (let b = 0; b < batch; ++b)
        if (!mask.subarray(b * seq, (b + 1) * seq).some((m) => m))
          throw new Error(`text-classification head: sequence ${b} has no real token to mean-pool (classifier_pooling "mean"; its attention mask is all 0)`);
    write('ids', ids);
    write('mask', mask ?? new Int32Array(rows).fill(1));
    write('token_types', types ?? new Int32Array(rows));
    if (positions) write('positions', positions);
    // submitted in growing chunks as it is encoded (firstSubmit): the GPU starts before the last layer is encoded
    const encoder = new ChunkedEncoder(ctx.device, 'relpos forward');
    const outputs = this.#record(p, encoder, null, null, poolArgs);
    encoder.finish();
    await Promise.all(outputs.map((o) => o.staging.mapAsync(GPUMapMode.READ, 0, o.bytes)));
    const result = { lastHiddenState: null, hiddenStates: hiddenStates ? [] : undefined, poolerOutput: undefined, logits: undefined, pooled: undefined };
    for (const o of outputs) {
      const bytes = o.staging.getMappedRange(0, o.bytes).slice(0);
      const data = new Float32Array(bytes, 0, o.floats);
      o.staging.unmap();
      this.free.push(o.staging);
      if (o.kind === 1) result.lastHiddenState = data;
      else if (o.kind === 2) result.poolerOutput = data;
      else if (o.kind === 3) result.logits = data;
      else if (o.kind === 'pooled') result.pooled = data;
      else result.hiddenStates.push(data);
    }
    return result;
  }

  /**
   * Runs one forward op by op, for a profile: each op (a fused add + norm counts as one) in its own command
   * buffer, submitted and awaited alone, so its time is its GPU work plus one submit's latency (~0.1 ms).
   * Same arguments as forward. Returns { ops: [{ index, op, kind, shape, ms }], totalMs } in plan order.
   */
  async profile({ batch, seq, ids, mask, types, hiddenStates = false }) {
    const p = this.prepare(batch, seq, hiddenStates);
    const device = this.ctx.device, rows = batch * seq;
    const write = (kind, data) => {
      if (p.inputs[kind] !== undefined) device.queue.writeBuffer(p.buffers[p.inputs[kind]].get(0), 0, data.buffer, data.byteOffset, data.byteLength);
    };
    write('ids', ids);
    write('mask', mask ?? new Int32Array(rows).fill(1));
    write('token_types', types ?? new Int32Array(rows));
    const parts = [];
    let open = null;
    const outputs = this.#record(p, device.createCommandEncoder(), (i, encoder) => {
      if (open) parts.push({ ...open, cb: encoder.finish() });
      const op = p.plan.ops[i];
      open = { index: i, op: op.op, kind: op.kind ?? '', shape: shapeOf(op) };
      return device.createCommandEncoder({ label: `relpos op ${i} ${op.op}` });
    }, (encoder) => open && parts.push({ ...open, cb: encoder.finish() }));
    await device.queue.onSubmittedWorkDone();
    const result = [];
    for (const { cb, ...info } of parts) {
      const t0 = performance.now();
      device.queue.submit([cb]);
      await device.queue.onSubmittedWorkDone();
      result.push({ ...info, ms: +(performance.now() - t0).toFixed(3) });
    }
    this.free.push(...outputs.map((o) => o.staging));
    return { ops: result, totalMs: +result.reduce((a, r) => a + r.ms, 0).toFixed(3) };
  }

  // onOp(i, encoder) → encoder: called before op i is recorded (a profile's cut points); onEnd(encoder) after the last.
  // pool: the forward's pooling with its buffers (forward), or null.
  #record(p, encoder, onOp = null, onEnd = null, pool = null) {
    if (this.dtype === 'f16') {
      // the float32 buffer an f16 output is widened into before its copy out (grown before anything is recorded)
      p.outputFloats ??= Math.max(1, ...p.plan.ops.filter((op) => op.op === 'output').map((op) => op.rows * op.width));
      this.#arena('widened', 4 * p.outputFloats);
    }
    // A forward of a shape recorded before replays its commands (DispatchTape): no kernel's JavaScript runs again.
    // The tape holds while the arena has not grown, the split partials are the same buffer and every uniform
    // buffer it used is still the cache's; pooling's options are part of what it recorded.
    const taped = !onOp && !onEnd && PlanExecutor.replay;
    const how = `${pool ? `${pool.mode}:${!!pool.normalize}:${!!pool.lastHiddenState}` : '-'}:${encoder.cut ? PlanExecutor.firstSubmit : 0}`;
    const tape = taped ? p.tapes?.get(how) : null;
    if (tape && tape.epoch === this.epoch && tape.partials === this.ctx.partials && tape.valid(p.cache)) {
      const outputs = tape.outputs.map((o) => ({ ...o, staging: this.#staging(o.bytes) }));
      tape.replay(encoder, this.ctx.device.queue, outputs.map((o) => o.staging));
      this.replays++;
      return outputs;
    }
    // The plan's uniform buffers and bind groups are made on its first recording and reused after.
    p.cache.rewind();
    this.ctx.cache = p.cache;
    const capture = taped ? new DispatchTape() : null;
    p.cache.tape = capture;
    sharePasses(this.ctx); // consecutive dispatches share a compute pass; copies end it (copy below)
    try {
      const outputs = this.#recordOps(p, capture ? capture.encoder(encoder) : encoder, onOp, onEnd, pool);
      if (capture) {
        outputs.forEach((o, i) => capture.targets.set(o.staging, i));
        Object.assign(capture, { epoch: this.epoch, partials: this.ctx.partials, outputs: outputs.map(({ staging, ...o }) => o) });
        (p.tapes ??= new Map()).set(how, capture);
      }
      return outputs;
    } finally {
      stopSharing(this.ctx);
      p.cache.tape = null;
      this.ctx.cache = null;
    }
  }

  #recordOps(p, encoder, onOp, onEnd, pool) {
    const ctx = this.ctx, ops = p.plan.ops, outputs = [], dtype = this.dtype, eb = this.eb;
    // Bytes of n activation elements for a copy (WebGPU copies whole 4-byte words).
    const bytes = (n) => {
      if ((eb * n) % 4) throw new Error(`webgpu plan: an f16 copy of ${n} elements (odd) cannot be a whole number of 4-byte words`);
      return eb * n;
    };
    const buf = (op, key) => p.buffers[op[key]].get(op[`${key}_off`]);
    const same = (a, ka, b, kb) => a[ka] === b[kb] && a[`${ka}_off`] === b[`${kb}_off`];
    const under = (op, key) => { const b = buf(op, key); return isView(b) ? b.buffer : b; };
    const offsetOf = (op, key) => { const b = buf(op, key); return isView(b) ? b.offset : 0; };
    // Writes `floats` from the scratch buffer to op[key] (after a dispatch that wrote the scratch).
    // a copy ends the shared compute pass first (device.js sharePasses)
    const copy = (...args) => {
      endSharedPass(ctx);
      encoder.copyBufferToBuffer(...args);
    };
    const copyBack = (op, key, floats) => copy(p.scratch, 0, under(op, key), offsetOf(op, key), bytes(floats));
    // A gated product (op: multiply or glu, fusion.js gatedGemms) formed by the next GEMM as it loads its A from op.x
    // (`how`: { gate } or { glu }): the product never written. Returns whether it did (i then at that GEMM).
    let i = 0;
    const gatedDown = (op, how) => {
      const g = p.groups.has(i + 1) ? null : p.gated.get(i), down = g && ops[g.gemm];
      if (!down || [under(op, 'x'), under(op, 'y')].includes(under(down, 'c'))) return false;
      gemm(ctx, encoder, {
        a: buf(op, 'x'), ...how, c: buf(down, 'c'), b: p.weights[down.w], bias: down.bias >= 0 ? p.weights[down.bias] : undefined,
        M: down.M, N: down.N, K: down.K, dtype, scales: p.scales[down.w],
      });
      i = g.gemm;
      return true;
    };
    // submit points (a ChunkedEncoder's cut): after firstSubmit ops, then after each chunk twice the one before
    let chunk = encoder.cut && !onOp ? PlanExecutor.firstSubmit : 0, nextCut = chunk > 0 ? chunk : Infinity;
    for (; i < ops.length; ++i) {
      const op = ops[i];
      if (i >= nextCut) {
        endSharedPass(ctx);
        encoder.cut();
        chunk *= 2;
        nextCut = i + chunk;
      }
      if (onOp) {
        endSharedPass(ctx);
        encoder = onOp(i, encoder);
      }
      switch (op.op) {
        case 'gemm': {
          const group = p.groups.get(i);
          if (group && group.ops.every((m) => under(ops[m], 'c') !== under(op, 'a'))) {
            // one product for the group's GEMMs (fusion.js), each member's columns into its own output
            gemm(ctx, encoder, {
              a: buf(op, 'a'), b: group.b, scales: group.scales, bias: group.bias, M: op.M, N: group.N, K: op.K, dtype,
              parts: group.ops.map((m, j) => ({ c: buf(ops[m], 'c'), n: ops[m].N, activation: group.act?.member === j ? ACT[ops[group.act.op].act] : 'none' })),
            });
            i = group.act ? group.act.op : group.ops.at(-1);
            break;
          }
          const alias = under(op, 'a') === under(op, 'c');
          // c = act(a·wᵀ + bias): an activate over exactly the GEMM's output is its epilogue (one pass fewer)
          const next = ops[i + 1];
          const fuse = next?.op === 'activate' && same(next, 'x', op, 'c') && next.n === op.M * op.N;
          gemm(ctx, encoder, {
            a: buf(op, 'a'), c: alias ? p.scratch : buf(op, 'c'), b: p.weights[op.w],
            bias: op.bias >= 0 ? p.weights[op.bias] : undefined, M: op.M, N: op.N, K: op.K, dtype, scales: p.scales[op.w],
            activation: fuse ? ACT[next.act] : 'none',
          });
          if (fuse) ++i;
          if (alias) copyBack(op, 'c', op.M * op.N);
          break;
        }
        case 'add': {
          const next = ops[i + 1], n = op.n;
          // in place (x bound once, read-write) unless x and y are views of one buffer: then through the scratch
          const apart = under(op, 'x') !== under(op, 'y');
          const normOfSum = next?.op === 'norm' && same(next, 'x', op, 'x') && next.rows * next.dim === n;
          // a pre-LN stack's x += y; z = norm(x), z apart from x (and y's own place, or apart from y too)
          const intoY = normOfSum && same(next, 'y', op, 'y');
          const preLn = normOfSum && apart && (intoY || (under(next, 'y') !== under(op, 'x') && under(next, 'y') !== under(op, 'y')));
          if (normOfSum && same(next, 'y', op, 'x')) {
            // x += y; x = norm(x)  →  x = norm(x + y) in place (or scratch = norm(x + y); x = scratch)
            this.#norm(p, encoder, next, { x: buf(op, 'x'), residual: buf(op, 'y'), y: apart ? undefined : p.scratch });
            ++i;
          } else if (preLn) {
            // x += y; z = norm(x)  →  one dispatch writing x = x + y and z = norm(x + y) (z may replace y)
            const residual = buf(op, 'y');
            this.#norm(p, encoder, next, { x: buf(op, 'x'), residual, sumInPlace: true, y: intoY ? residual : buf(next, 'y') });
            ++i;
            break;
          } else {
            add(ctx, encoder, { a: buf(op, 'x'), b: buf(op, 'y'), y: apart ? undefined : p.scratch, n, dtype });
          }
          if (!apart) copyBack(op, 'x', n);
          break;
        }
        case 'norm': {
          const fused = p.normRopes.get(i);
          if (fused) {
            // q / k norms and RoPE in one dispatch, into the RoPE buffers attention reads
            this.#attention(p, encoder, ops[fused.attention], { gammaQ: p.weights[op.gamma], gammaK: p.weights[ops[fused.k].gamma], eps: op.eps });
            i = fused.attention;
            break;
          }
          const n = op.rows * op.dim;
          const sandwich = p.sandwiches.get(i);
          if (sandwich) {
            // Gemma3's post-norm, residual add and next (or final) norm: one dispatch (fusion.js sandwichNorms)
            const add1 = ops[sandwich.add], residual = buf(add1, 'y'), residualNorm = p.weights[op.gamma];
            this.#norm(p, encoder, ops[sandwich.norm], sandwich.intoY ? { x: buf(add1, 'x'), residual, sumInPlace: true, y: residual, residualNorm } : { x: buf(add1, 'x'), residual, residualNorm });
            i = sandwich.norm;
          } else if (same(op, 'x', op, 'y')) {
            this.#norm(p, encoder, op, { x: buf(op, 'x') }); // in place (q / k norms)
          } else if (under(op, 'x') === under(op, 'y')) {
            this.#norm(p, encoder, op, { x: buf(op, 'x'), y: p.scratch });
            copyBack(op, 'y', n);
          } else {
            this.#norm(p, encoder, op, { x: buf(op, 'x'), y: buf(op, 'y') });
          }
          break;
        }
        case 'activate':
          activate(ctx, encoder, { x: buf(op, 'x'), n: op.n, activation: ACT[op.act], dtype });
          break;
        case 'multiply': {
          if (gatedDown(op, { gate: buf(op, 'y') })) break;
          const apart = under(op, 'x') !== under(op, 'y'); // in place unless views of one buffer
          gated(ctx, encoder, { gate: buf(op, 'x'), up: buf(op, 'y'), y: apart ? undefined : p.scratch, rows: 1, width: op.n, activation: 'none', dtype });
          if (!apart) copyBack(op, 'x', op.n);
          break;
        }
        case 'glu': {
          if (gatedDown(op, { glu: { activation: ACT[op.act], actHalf: 0 } })) break;
          const alias = under(op, 'x') === under(op, 'y');
          gated(ctx, encoder, { x: buf(op, 'x'), y: alias ? p.scratch : buf(op, 'y'), rows: op.rows, width: op.width, activation: ACT[op.act], actHalf: 0, dtype });
          if (alias) copyBack(op, 'y', op.rows * op.width);
          break;
        }
        case 'gather': {
          const tables = [{ table: p.weights[op.table], scales: p.scales[op.table], ids: p.buffers[p.inputs.ids].get(0), rows: op.vocab }];
          while (tables.length < 3 && ops[i + 1]?.op === 'add_rows' && same(ops[i + 1], 'out', op, 'out')) {
            const a = ops[++i];
            let ids = a.source === 1 ? p.positions : p.inputs.token_types !== undefined ? p.buffers[p.inputs.token_types].get(0) : p.zeros;
            if (a.source === 2) {
              paddedPositions(ctx, encoder, { ids: p.buffers[p.inputs.ids].get(0), out: p.padded, batch: p.plan.batch, seq: p.plan.seq, paddingIdx: a.padding_idx });
              ids = p.padded;
            }
            const w = p.plan.weights[a.table];
            tables.push({ table: p.weights[a.table], scales: p.scales[a.table], ids, rows: w.kind === 'q8' ? w.rows : Math.floor(p.weights[a.table].size / eb / a.dim) });
          }
          embedding(ctx, encoder, { out: buf(op, 'out'), tokens: op.rows, dim: op.dim, tables, dtype });
          break;
        }
        case 'attention':
          this.#attention(p, encoder, op);
          break;
        case 'mask_rows':
          maskRows(ctx, encoder, { x: buf(op, 'x'), mask: p.buffers[p.inputs.mask].get(0), rows: op.rows, width: op.width, dtype });
          break;
        case 'first_rows':
          // out[b] = x[b·seq]: the pooling kernel's 'cls' rows (one dispatch, not a copy per sequence)
          if (under(op, 'x') === under(op, 'out')) throw new Error('webgpu plan: first_rows within one buffer');
          pooling(ctx, encoder, { x: buf(op, 'x'), out: buf(op, 'out'), batch: op.batch, seqLen: op.seq, hidden: op.width, mode: 'cls', dtype });
          break;
        case 'select_rows':
          // out[i] = x[positions[i]]: the embedding gather with the activation as its table
          embedding(ctx, encoder, { out: buf(op, 'out'), tokens: op.rows, dim: op.width, tables: [{ table: buf(op, 'x'), ids: p.buffers[p.inputs.positions].get(0), rows: op.limit }], dtype });
          break;
        case 'mean_rows':
          pooling(ctx, encoder, {
            x: buf(op, 'x'), out: buf(op, 'out'), batch: op.batch, seqLen: op.seq, hidden: op.width, mode: 'mean', dtype,
            mask: op.mask ? p.buffers[p.inputs.mask].get(0) : p.ones,
          });
          break;
        case 'output': {
          if (pool && op.kind === 2 && !pool.lastHiddenState) break; // a pooled forward reads back the pooled rows alone
          if (pool && op.kind === 1) {
            const { out, mode, normalize, mask, batch, seq, hidden } = pool, floats = batch * hidden;
            pooling(ctx, encoder, { x: buf(op, 'x'), out, mask, batch, seqLen: seq, hidden, mode, normalize, dtype, outDtype: 'f32' });
            const staging = this.#staging(4 * floats);
            copy(out, 0, staging, 0, 4 * floats);
            outputs.push({ kind: 'pooled', staging, floats, bytes: 4 * floats });
            if (!pool.lastHiddenState) break;
          }
          const floats = op.rows * op.width;
          const staging = this.#staging(4 * floats);
          if (dtype === 'f16') {
            // widened to float32 on the GPU (one buffer reused by each output in turn: the commands run in order)
            bytes(floats); // whole 4-byte words of f16 (an odd count cannot be bound)
            const widened = this.arena.get('widened');
            convert(ctx, encoder, { x: buf(op, 'x'), y: widened, n: floats, from: 'f16', to: 'f32' });
            copy(widened, 0, staging, 0, 4 * floats);
          } else {
            copy(under(op, 'x'), offsetOf(op, 'x'), staging, 0, 4 * floats);
          }
          outputs.push({ kind: op.kind, staging, floats, bytes: 4 * floats });
          break;
        }
        default:
          throw new Error(`webgpu plan: op '${op.op}' has no WebGPU kernel (an add_rows without a gather before it)`);
      }
    }
    endSharedPass(ctx);
    if (onEnd) onEnd(encoder);
    return outputs;
  }

  #norm(p, encoder, op, bufs) {
    norm(this.ctx, encoder, {
      kind: op.kind === 1 ? 'rmsnorm' : 'layernorm', ...bufs, gamma: p.weights[op.gamma],
      beta: op.beta >= 0 ? p.weights[op.beta] : undefined, rows: op.rows, dim: op.dim, eps: op.eps, dtype: this.dtype,
    });
  }

  // normed: { gammaQ, gammaK, eps } — q and k RMS-normed per head on the way into their RoPE buffers (normRopeGroups)
  #attention(p, encoder, op, normed = null) {
    const { batch: B, seq: L, heads: H, kv_heads: KV, head_dim: D } = op;
    let q = p.buffers[op.q].get(0), k = p.buffers[op.k].get(0);
    const v = p.buffers[op.v].get(0);
    let scheme = { type: 'none' };
    if (op.kind === 'rope') {
      // RoPE leaves q and k as they are (as the CPU driver does): they are rotated into private buffers, at the
      // same offsets and strides (every column of their heads written there), and attention reads those.
      const [cos, sin] = p.ropeTables.get(op.scheme_floats);
      const [rq, rk] = p.rope;
      const layout = op.scheme_interleaved ? 'interleaved' : 'half';
      if (normed)
        normRope(this.ctx, encoder, {
          q, k, yq: rq, yk: rk, ...normed, cos, sin, tokens: B * L, seqLen: L, heads: H, kvHeads: KV, headDim: D, rotaryDim: op.scheme_rotary_dim,
          layout, qRowStride: op.q_row, kRowStride: op.k_row, qOffset: op.q_off, kOffset: op.k_off, dtype: this.dtype,
        });
      else if (PlanExecutor.fuse)
        rope(this.ctx, encoder, { // q and k in one dispatch
          x: q, y: rq, cos, sin, rows: B * L * H, seqLen: L, headDim: D, rotaryDim: op.scheme_rotary_dim, layout, heads: H,
          rowStride: op.q_row, headStride: op.q_head, offset: op.q_off, dtype: this.dtype,
          second: { x: k, y: rk, rows: B * L * KV, heads: KV, rowStride: op.k_row, offset: op.k_off },
        });
      else for (const [x, y, s, n] of [[q, rq, 'q', H], [k, rk, 'k', KV]])
        rope(this.ctx, encoder, {
          x, y, cos, sin, rows: B * L * n, seqLen: L,
          headDim: D, rotaryDim: op.scheme_rotary_dim, layout, heads: n, rowStride: op[`${s}_row`], headStride: op[`${s}_head`], offset: op[`${s}_off`], dtype: this.dtype,
        });
      q = rq;
      k = rk;
    } else if (op.kind === 'alibi') {
      scheme = { type: 'alibi', slopes: p.constants[op.scheme_floats], symmetric: !!op.scheme_symmetric };
    } else if (op.kind === 'bucket') {
      scheme = { type: 'bucket', buckets: p.constants[op.scheme_ints], table: p.weights[op.scheme_table] };
    } else if (op.kind === 'relative_vectors') {
      // DeBERTa c2p / p2c, BERT relative_key(_query): table with q_i, table2 with k_j, row by distance
      scheme = {
        type: 'relative_vectors', rows: p.constants[op.scheme_ints], termScale: op.scheme_term_scale,
        table: op.scheme_table >= 0 ? p.weights[op.scheme_table] : undefined, tableHead: op.scheme_table_head,
        table2: op.scheme_table2 >= 0 ? p.weights[op.scheme_table2] : undefined, table2Head: op.scheme_table2_head,
      };
    }
    attention(this.ctx, encoder, {
      q, k, v, out: p.buffers[op.ctx].get(0), batch: B, heads: H, kvHeads: KV, seqLen: L, headDim: D,
      mask: op.mask ? p.buffers[p.inputs.mask].get(0) : undefined,
      window: op.window, causal: !!op.causal, scale: op.scale, scheme, dtype: this.dtype,
      strides: {
        in: { b: L * op.q_row, h: op.q_head, l: op.q_row, off: { q: op.q_off, k: op.k_off, v: op.v_off } },
        kv: { b: L * op.k_row, l: op.k_row },
        out: { b: L * H * D, h: D, l: H * D, off: op.ctx_off },
      },
    });
  }

  /** Releases the GPU buffers (weights and activations); the context stays. */
  destroy() {
    for (const b of this.weights.values()) b.destroy?.(); // (views of a fused GEMM's weights have none)
    for (const b of this.scales.values()) b.destroy?.();
    for (const b of this.fusedBuffers) b.destroy();
    for (const b of [...this.arena.values(), ...this.free]) b.destroy();
    for (const c of this.caches.values()) c.destroy();
    this.weights.clear();
    this.scales.clear();
    this.prepared.clear();
    this.arena.clear();
    this.caches.clear();
    this.free = [];
    this.written = null;
  }
}

/** The sizes that say what an op costs, for a profile row. */
function shapeOf(op) {
  switch (op.op) {
    case 'gemm': return `${op.M}×${op.N}×${op.K}`;
    case 'attention': return `${op.batch}×${op.heads}×${op.seq}×${op.head_dim}${op.window >= 0 ? ` window ${op.window}` : ''}`;
    case 'norm': return `${op.rows}×${op.dim}`;
    case 'glu': return `${op.rows}×${op.width}`;
    case 'output': return `${op.rows}×${op.width}`;
    default: return op.n !== undefined ? `${op.n}` : op.rows !== undefined ? `${op.rows}×${op.dim ?? op.width ?? ''}` : '';
  }
}

/** Buffer references of an op with their lengths in elements; attention's are whole buffers (null). */
function accesses(op) {
  switch (op.op) {
    case 'gemm': return [['a', op.M * op.K], ['c', op.M * op.N]];
    case 'norm': return [['x', op.rows * op.dim], ['y', op.rows * op.dim]];
    case 'activate': return [['x', op.n]];
    case 'mask_rows': return [['x', op.rows * op.width]];
    case 'multiply': case 'add': return [['x', op.n], ['y', op.n]];
    case 'gather': case 'add_rows': return [['out', op.rows * op.dim]];
    case 'output': return [['x', op.rows * op.width]];
    case 'glu': return [['x', 2 * op.rows * op.width], ['y', op.rows * op.width]];
    case 'first_rows': return [['x', op.batch * op.seq * op.width], ['out', op.batch * op.width]];
    case 'mean_rows': return [['x', op.batch * op.seq * op.width], ['out', op.batch * op.width]];
    case 'select_rows': return [['x', op.limit * op.width], ['out', op.rows * op.width]];
    case 'attention': return [['q', null], ['k', null], ['v', null], ['ctx', null]];
    default: return [];
  }
}

/**
 * Per plan buffer: { views, parts: [[offset, length]] }, one part per distinct offset the ops use. Each part is its
 * own GPU buffer (bound whole: the same bindings at every shape) unless the buffer must be one: read whole by attention
 * (with in-kernel offsets), or an op reads across parts (a gated FFN's two halves as one); then views: one GPU buffer
 * bound through views, which needs every offset to be a multiple of `align` floats (else an Error).
 */
function splitBuffers(plan, align) {
  const offsets = plan.buffers.map(() => new Set([0]));
  const whole = new Set();
  for (const op of plan.ops)
    for (const [key, len] of accesses(op)) {
      if (len === null) whole.add(op[key]);
      else offsets[op[key]].add(op[`${key}_off`]);
    }
  const segments = plan.buffers.map((b, i) => {
    const starts = [...offsets[i]].sort((x, y) => x - y);
    return { views: whole.has(i), aligned: starts.every((s) => s % align === 0), parts: starts.map((s, j) => [s, (j + 1 < starts.length ? starts[j + 1] : b.elements) - s]) };
  });
  for (const op of plan.ops)
    for (const [key, len] of accesses(op)) {
      const seg = segments[op[key]];
      if (len === null || seg.views) continue;
      const part = seg.parts.find(([s]) => s === op[`${key}_off`]);
      if (len > part[1]) {
        if (!seg.aligned) throw new Error(`webgpu plan: op '${op.op}' reads ${len} elements of buffer ${op[key]} at ${part[0]}, across another op's part of it`);
        seg.views = true;
      }
    }
  segments.forEach((seg, i) => {
    if (seg.views && !seg.aligned) throw new Error(`webgpu plan: buffer ${i} is read whole by attention and in unaligned parts by other ops`);
  });
  return segments;
}

// A GEMM group's identity: its weights' (and biases') keys.
function groupKey(plan, ops) {
  const keyOf = (i) => plan.weights[i].key;
  return ops.map((o) => `${keyOf(o.w)}${o.bias >= 0 ? `+${keyOf(o.bias)}` : ''}`).join('\n');
}

const isView = (b) => b?.buffer !== undefined && b?.offset !== undefined;

/** Ops this executor knows; a plan with others is refused before anything is uploaded. */
const KNOWN = new Set(['gemm', 'norm', 'activate', 'multiply', 'add', 'glu', 'first_rows', 'gather', 'add_rows', 'attention', 'output', 'mask_rows', 'select_rows', 'mean_rows']);
const SCHEMES = new Set(['none', 'rope', 'alibi', 'bucket', 'relative_vectors']);

/** Throws an Error naming the first op this executor cannot run (checked before any upload). */
export function checkPlan(plan) {
  const q8 = (i) => i >= 0 && plan.weights?.[i]?.kind === 'q8';
  (plan.weights ?? []).forEach((w, i) => {
    if (w.kind !== 'derived') return;
    const float = (j) => Number.isInteger(j) && j >= 0 && j < i && !q8(j);
    if (!float(w.from) || !float(w.linear) || !(w.bias === -1 || float(w.bias)) || !(w.heads >= 1) || w.out % w.heads || !(w.rows >= 1) || !(w.in >= 1))
      throw new Error(`webgpu plan: derived weight ${i} needs earlier float weights from, linear (and bias or -1), rows ≥ 1, in ≥ 1 and heads dividing out; got ${JSON.stringify(w)}`);
  });
  for (const op of plan.ops) {
    if (!KNOWN.has(op.op)) throw new Error(`webgpu plan: op '${op.op}' has no WebGPU kernel`);
    for (const [key, value] of Object.entries(op))
      if (q8(value) && ['gamma', 'beta', 'scheme_table', 'scheme_table2', 'bias'].includes(key))
        throw new Error(`webgpu plan: op '${op.op}' reads q8 weight ${value} as floats (${key}); only a gemm's w and an embedding table may be q8`);
    if (op.op === 'attention') {
      if (!SCHEMES.has(op.kind)) throw new Error(`webgpu plan: attention scheme '${op.kind}' has no WebGPU kernel yet`);
      if (op.kv_heads < 1 || op.heads % op.kv_heads) throw new Error(`webgpu plan: attention heads ${op.heads} is not a multiple of kv_heads ${op.kv_heads}`);
      if (op.head_dim % 4) throw new Error(`webgpu plan: attention head_dim ${op.head_dim} is not a multiple of 4`);
      if (op.v_row !== op.k_row || op.k_head !== op.q_head || op.v_head !== op.q_head)
        throw new Error('webgpu plan: attention whose k and v row strides differ, or whose head strides differ from q\'s, has no WebGPU kernel yet');
    }
  }
}
