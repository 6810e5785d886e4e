#!/usr/bin/env bash
# Everything the WebGPU backend measures on a GPU machine, in one call (≤ ~5 min), from the repository root:
#   bash bench/gpu/run.sh            (OUT=dir for results; default bench/results/tmp/gpu)
# The GPU machine has no Node and no network: scripts/gpu-carry.sh assembles .gpu/ (node, Dawn's dawn.node,
# the `webgpu` package's JS, the Vulkan loader .deb), which travels with the working tree. This script
# unpacks it under $WORK (default /tmp/relpos-gpu) without touching the system — the loader is extracted
# there and found through LD_LIBRARY_PATH — picks the NVIDIA Vulkan driver, prints what it found, and runs
# bench/gpu/bench.mjs, then (when web/dist is there) bench/gpu/wasm_peer.mjs: the WASM package on the same CPU.
# Without .gpu/ it uses this machine's node and node_modules/webgpu. The device run of 2026-11-26 (H200):
#   run(command='bash bench/gpu/run.sh', carry=['.gpu', 'web/dist'], timeout_s=420); results in bench/results/gpu/.
# Results: $OUT/gpu-bench.json (written after every measurement), $OUT/wasm-peer.json, $OUT/models.json and
# $OUT/relative-vectors.json, $OUT/run.log (everything printed). GPU_BENCH_MODELS=0 skips models.mjs, GPU_BENCH_FIXTURES=0 fixtures.mjs, GPU_BENCH_RELATIVE=0
# relative_vectors.mjs, GPU_BENCH_DTYPES=0 dtypes.mjs and its test; GPU_BENCH_KERNELS=0 skips bench.mjs and
# wasm_peer.mjs (only the whole models).
# GPU_BENCH_CARRIED_LOADER=1 uses the carried Vulkan loader even when the system has one.
# GPU_BENCH_SMALL=1 runs tiny sizes (a check of this script on SwiftShader:
#   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json GPU_BENCH_SMALL=1 bash bench/gpu/run.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-bench/results/tmp/gpu}
WORK=${WORK:-/tmp/relpos-gpu}
BUDGET_S=${GPU_BENCH_BUDGET_S:-270}
mkdir -p "$OUT" "$WORK"
rm -f "$OUT/gpu-bench.json"
START=$(date +%s)
exec > >(tee -a "$OUT/run.log") 2>&1
echo "== relpos WebGPU bench, $(date -u +%FT%TZ), $(uname -srm), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# The carried runtime (.gpu/: node, dawn.node, the Vulkan loader, GLVND) and the Vulkan driver: bench/gpu/carry-env.sh.
source bench/gpu/carry-env.sh
NODE=node
export RELPOS_WEBGPU=${RELPOS_WEBGPU:-}
[ -d .gpu ] && unpack_carry .gpu
echo "== node: $("$NODE" --version 2>&1)"
pick_icd
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv 2>&1 | tee "$OUT/nvidia-smi.csv"

rc=0
if [ "${GPU_BENCH_KERNELS:-1}" = 1 ] && [ "${GPU_BENCH_ONLY:-}" != dtypes ]; then
echo "== bench/gpu/bench.mjs (budget ${BUDGET_S} s)"
OUT="$OUT" timeout -k 10 "$BUDGET_S" "$NODE" bench/gpu/bench.mjs
rc=$?
if [ $rc -ne 0 ] && [ -z "${VK_DRIVER_FILES:-}" ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && ! grep -q '"adapter"' "$OUT/gpu-bench.json" 2>/dev/null; then
  left=$((BUDGET_S - ($(date +%s) - START)))
  echo "== no adapter with the default ICD path: retrying with VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json (${left} s left)"
  VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json VK_ICD_FILENAMES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json \
    OUT="$OUT" timeout -k 10 "$((left > 30 ? left : 30))" "$NODE" bench/gpu/bench.mjs
  rc=$?
fi
# relpos's WebAssembly package on this machine's CPU, the same layer shapes (bench/gpu/wasm_peer.mjs): needs the
# package's web/dist, carried with the tree (run's carry: web/dist).
if [ -f web/dist/relpos-simd.wasm ]; then
  echo "== bench/gpu/wasm_peer.mjs (relpos WASM on this CPU: 1, 2 and all threads)"
  timeout -k 10 240 "$NODE" --no-experimental-fetch bench/gpu/wasm_peer.mjs > "$OUT/wasm-peer.json" 2> "$OUT/wasm-peer.log"
  echo "== wasm peer exit $?"; cat "$OUT/wasm-peer.log"
fi
fi
# The relative_vectors attention terms (DeBERTa c2p / p2c, BERT relative_key_query) against plain and T5-bucket
# attention of the same shape (bench/gpu/relative_vectors.mjs → $OUT/relative-vectors.json).
if [ "${GPU_BENCH_RELATIVE:-1}" = 1 ] && [ "${GPU_BENCH_ONLY:-}" != dtypes ]; then
  echo "== bench/gpu/relative_vectors.mjs"
  OUT="$OUT" timeout -k 10 60 "$NODE" bench/gpu/relative_vectors.mjs
  echo "== relative vectors exit $?"
fi
# Every public fixture through loadModel(…, { device: 'webgpu' }) on this GPU, against transformers' values
# (bench/gpu/fixtures.mjs → $OUT/fixtures.json): the fixtures travel in .gpu/fixtures (scripts/gpu-carry.sh).
if [ -d .gpu/fixtures ] && [ -f web/dist/relpos-simd.wasm ] && [ "${GPU_BENCH_FIXTURES:-1}" = 1 ] && [ "${GPU_BENCH_ONLY:-}" != dtypes ]; then
  echo "== bench/gpu/fixtures.mjs (every public fixture on this GPU)"
  OUT="$OUT" timeout -k 10 120 "$NODE" --no-experimental-fetch bench/gpu/fixtures.mjs
  frc=$?
  echo "== fixtures exit $frc"
  [ $rc -eq 0 ] && rc=$frc
fi
# Whole models through the public API, GPU against WASM on this machine (bench/gpu/models.mjs): the real MiniLM
# that scripts/gpu-carry.sh pruned into .gpu/minilm, a DeBERTa-v3-base-shaped model at 512 tokens, a
# ModernBERT-base-shaped 8192-token document.
if [ -f web/dist/relpos-simd.wasm ] && [ "${GPU_BENCH_MODELS:-1}" = 1 ] && [ "${GPU_BENCH_ONLY:-}" != dtypes ]; then
  echo "== bench/gpu/models.mjs (whole models: WebGPU and WASM on this machine)"
  OUT="$OUT" timeout -k 10 "${GPU_BENCH_MODELS_BUDGET_S:-240}" "$NODE" --no-experimental-fetch bench/gpu/models.mjs
  echo "== models exit $?"
fi
# Storage dtypes (bench/gpu/dtypes.mjs: GEMM fp32 / fp16 / q8 at 4096³, a MiniLM-shaped model in each, ≤ ~1.5 min;
# needs web/dist for the model rows), then tests/js/webgpu-dtypes.test.mjs, whose f16 cases run only where the
# adapter has 'shader-f16' (never on SwiftShader). GPU_BENCH_ONLY=dtypes runs just these two.
if [ "${GPU_BENCH_DTYPES:-1}" = 1 ]; then
echo "== bench/gpu/dtypes.mjs"
OUT="$OUT" timeout -k 10 150 "$NODE" --no-experimental-fetch bench/gpu/dtypes.mjs
drc=$?
echo "== dtypes exit $drc"
[ $rc -eq 0 ] && rc=$drc
if [ -f web/dist/relpos-simd.wasm ]; then
  echo "== tests/js/webgpu-dtypes.test.mjs"
  RELPOS_WEBGPU="$RELPOS_WEBGPU" RELPOS_DAWN_FLAGS=enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia timeout -k 10 150 "$NODE" --no-experimental-fetch --test tests/js/webgpu-dtypes.test.mjs 2>&1 | tee "$OUT/webgpu-dtypes-test.log" | grep -E '^(not )?ok|^# (pass|fail|skip)|SKIP' | head -40
fi
fi
echo "== exit $rc; results in $OUT"
exit $rc
