// The workgroup sum of the reductions (norm.js, pooling.js): one f32 per thread in, the sum of all THREADS
// values out, the same value in every thread. Two programs, chosen per device (ctx.subgroups, device.js):
//
//   plain:     a tree in workgroup memory: THREADS floats, log2(THREADS) barriers
//   subgroups: subgroupAdd within each subgroup; its first invocation stores the partial at
//              part[subgroup_id]; one barrier; each subgroup then sums the num_subgroups partials, lane i
//              taking partials i, i + subgroup_size, … and one more subgroupAdd (a second barrier before
//              part is reused). Workgroup memory: one float per subgroup of the smallest size WebGPU allows
//              (4: 64 floats for 256 threads).
// The subgroup program needs the device feature 'subgroups' and the WGSL language feature 'subgroup_id'
// (the builtins subgroup_id / num_subgroups: no assumption about how invocations are laid out in subgroups);
// it is right for every subgroup size 4 … 128. Every subgroup sums the same partials in the same lanes, so all
// invocations get the same total, and both programs are deterministic run to run (they round differently from
// each other: f32 sums in another order).
//
//   const R = reduceSum({ threads: 256, subgroups: ctx.subgroups });
//   R.enable  — directives to put first ('enable subgroups;\n' or '')
//   R.params  — the entry point's extra builtin parameters (', @builtin(subgroup_id) …' or '')
//   R.code    — the workgroup array and fn reduce_sum
//   R.call(v) — the WGSL expression of the sum of v over the workgroup (needs `tid`, local_invocation_index)
// Call it in uniform control flow only (every invocation of the workgroup reaches it: a workgroup's early
// return must be uniform), as with any barrier.

/** The smallest subgroup size WebGPU allows (GPUAdapterInfo.subgroupMinSize ≥ 4). */
export const MIN_SUBGROUP_SIZE = 4;

export function reduceSum({ threads, subgroups = false }) {
  if (!Number.isInteger(threads) || threads < 1 || (threads & (threads - 1)) !== 0)
    throw new RangeError(`webgpu: reduceSum: threads: expected a power of two, got ${threads}`);
  if (!subgroups) {
    return {
      enable: '',
      params: '',
      code: `var<workgroup> red_part: array<f32, ${threads}>;
fn reduce_sum(tid: u32, v: f32) -> f32 {
  red_part[tid] = v;
  workgroupBarrier();
  for (var s = ${threads / 2}u; s > 0u; s = s / 2u) {
    if (tid < s) { red_part[tid] = red_part[tid] + red_part[tid + s]; }
    workgroupBarrier();
  }
  let total = red_part[0];
  workgroupBarrier();
  return total;
}`,
      call: (v) => `reduce_sum(tid, ${v})`,
    };
  }
  const parts = Math.max(1, threads / MIN_SUBGROUP_SIZE);
  return {
    enable: 'enable subgroups;\n',
    params: ', @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32',
    code: `var<workgroup> red_part: array<f32, ${parts}>;
fn reduce_sum(v: f32, sg_id: u32, sg_count: u32, sg_lane: u32, sg_size: u32) -> f32 {
  let s = subgroupAdd(v);
  if (sg_lane == 0u) { red_part[sg_id] = s; }
  workgroupBarrier();
  var acc = 0.0;
  for (var i = 0u; i < sg_count; i += sg_size) {
    let j = i + sg_lane;
    if (j < sg_count) { acc += red_part[j]; }
  }
  let total = subgroupAdd(acc);
  workgroupBarrier();
  return total;
}`,
    call: (v) => `reduce_sum(${v}, sg_id, sg_count, sg_lane, sg_size)`,
  };
}
