#!/usr/bin/env bash
# The WebGPU peer bench on a GPU machine, in ONE call of ≤ 540 s (issues #33, #37), from the repository root:
#   bash bench/gpu/peer.sh            (OUT=dir for results; default bench/results/tmp/gpu-peer)
# Needs .gpu-peer/ from scripts/gpu-peer-carry.sh (node, dawn.node, the Vulkan loader, GLVND, Transformers.js +
# onnxruntime-node's linux-x64 libraries, the four peer graphs, MiniLM's tokenizer, the inputs) and web/dist; both travel:
#   run(command='bash bench/gpu/peer.sh', carry=['.gpu-peer', 'web/dist'], timeout_s=540)
# Steps, each under its own budget (timeout), so that what finished comes back even when a later step runs over:
#   1. bench/gpu/peer.mjs (GPU_PEER_BUDGET_S, default 290): every row, relpos fp32 / q8 / fp16 against
#      Transformers.js fp32, the pipeline rows, load times → $OUT/peer.json (rewritten after every row)
#   2. bench/gpu/real_size.mjs (GPU_REAL_SIZE_BUDGET_S, default 120): relpos alone at the EmbeddingGemma-300m /
#      Qwen3-Embedding-0.6B shapes, q8 / fp16 / fp32 at 128 / 512 / 2048 tokens, then WebAssembly q8 at 128 tokens on
#      the machine's cores (up to 16 threads: the threads build in web/dist; REAL_SIZE_WASM_THREADS=0 skips it)
#      → $OUT/real-size.json
#   3. bench/gpu/fixtures.mjs with GPU_FIXTURES_DTYPE=fp16 (GPU_FIXTURES_BUDGET_S, default 60): every public fixture
#      in fp16 (tolerance 2e-2) → $OUT/fixtures-fp16.json (exit 2 there: the adapter still has no shader-f16)
#   4. bench/gpu/bench.mjs with GPU_BENCH_PARTS=shaped (GPU_KERNELS_BUDGET_S, default 60): the encoder-shaped GEMMs
#      in f32 and f16 at every tile variant, split K at 1–8 parts → $OUT/gpu-bench.json (GPU_PEER_KERNELS=0 skips it)
#   5. bench/gpu/encode_cost.mjs (GPU_ENCODE_COST_BUDGET_S, default 60; GPU_ENCODE_COST=0 skips it): a forward's
#      passes, copies, dispatches, submits and its CPU times to the first and last submit, one command buffer against
#      chunks, on this machine's CPU and GPU → $OUT/encode-cost.json
#   0. (GPU_GEMM_PROBE=1, before step 1) bench/gpu/gemm_probe.mjs (GPU_PROBE_BUDGET_S, default 90): GPU-side GEMM
#      times by timestamp queries and the subgroup-matrix probe → $OUT/gemm-probe.json
# $OUT then holds at most 7 files (8 with the probe): peer.json, real-size.json, fixtures-fp16.json, gpu-bench.json, encode-cost.json, run.log (everything
# printed), nvidia-smi.csv. bench/gpu/commit-peer-run.sh copies them to bench/results/gpu/<device>-<date>-peer/ and regenerates
# docs/performance.md (bench/lib/readme.mjs renders the newest run).
# Dawn flags (RELPOS_DAWN_FLAGS, default enable-dawn-features=vulkan_enable_f16_on_nvidia): Dawn withholds
# 'shader-f16' on NVIDIA's Vulkan driver without that adapter toggle (a driver bug list; unsafe for browsing, fine
# for a bench). PEER_ROWS / PEER_DTYPES pass through to peer.mjs, REAL_SIZE_* to real_size.mjs; GPU_PEER_FIXTURES=0
# skips step 3, GPU_REAL_SIZE=0 step 2.
# GPU_BENCH_SMALL=1 checks the whole script on SwiftShader (MiniLM only, 2 texts, 1 sentence; real sizes at 2 layers):
#   bash scripts/gpu-peer-carry.sh && VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json GPU_BENCH_SMALL=1 bash bench/gpu/peer.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-bench/results/tmp/gpu-peer}
WORK=${WORK:-/tmp/relpos-gpu-peer}
mkdir -p "$OUT" "$WORK"
rm -f "$OUT/peer.json" "$OUT/real-size.json" "$OUT/fixtures-fp16.json" "$OUT/encode-cost.json" "$OUT/run.log"
exec > >(tee -a "$OUT/run.log") 2>&1
echo "== relpos WebGPU peer bench, $(date -u +%FT%TZ), $(uname -srm), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
source bench/gpu/carry-env.sh
NODE=node
export RELPOS_WEBGPU=${RELPOS_WEBGPU:-}
if [ -d .gpu-peer ]; then
  unpack_carry .gpu-peer
  echo "== unpacking .gpu-peer/peer-modules.tar.xz (Transformers.js, onnxruntime-node linux-x64, sharp)"
  rm -rf "$WORK/node_modules"
  if command -v xz >/dev/null; then xz -dc .gpu-peer/peer-modules.tar.xz | tar -C "$WORK" -xf -
  else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' .gpu-peer/peer-modules.tar.xz "$WORK"; fi
  # relpos itself imports @huggingface/tokenizers from the repository's node_modules, which does not travel
  if [ ! -d node_modules/@huggingface/tokenizers ]; then
    mkdir -p node_modules/@huggingface && ln -s "$WORK/node_modules/@huggingface/tokenizers" node_modules/@huggingface/tokenizers
  fi
  export PEER_TRANSFORMERS="$WORK/node_modules/@huggingface/transformers/dist/transformers.node.mjs"
  export PEER_MODELS=.gpu-peer/models PEER_INPUTS=.gpu-peer/inputs.json
else
  echo "== no .gpu-peer/: this machine's node, node_modules/webgpu, bench/node_modules and ../shared/gpu-peer-models"
fi
echo "== node: $("$NODE" --version 2>&1)"
pick_icd
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv 2>&1 | tee "$OUT/nvidia-smi.csv"
export RELPOS_DAWN_FLAGS=${RELPOS_DAWN_FLAGS-enable-dawn-features=vulkan_enable_f16_on_nvidia}
echo "== RELPOS_DAWN_FLAGS=$RELPOS_DAWN_FLAGS"
[ -f web/dist/relpos-simd.wasm ] || { echo "== web/dist/relpos-simd.wasm is missing: carry web/dist"; exit 1; }

step() { echo "== $1 ($(date -u +%T), ${SECONDS} s in)"; }
if [ "${GPU_GEMM_PROBE:-0}" = 1 ]; then
  step "bench/gpu/gemm_probe.mjs (GPU-side GEMM times, subgroup matrices), budget ${GPU_PROBE_BUDGET_S:-90} s"
  OUT="$OUT" timeout -k 10 "${GPU_PROBE_BUDGET_S:-90}" "$NODE" bench/gpu/gemm_probe.mjs
  echo "== gemm probe exit $?"
fi
step "bench/gpu/peer.mjs, budget ${GPU_PEER_BUDGET_S:-290} s"
OUT="$OUT" PEER_WORK="$WORK/models" timeout -k 10 "${GPU_PEER_BUDGET_S:-290}" "$NODE" bench/gpu/peer.mjs
rc=$?
echo "== peer exit $rc"
if [ "${GPU_REAL_SIZE:-1}" = 1 ]; then
  step "bench/gpu/real_size.mjs, budget ${GPU_REAL_SIZE_BUDGET_S:-120} s"
  OUT="$OUT" REAL_SIZE_WORK="$WORK/real-size" timeout -k 10 "${GPU_REAL_SIZE_BUDGET_S:-120}" "$NODE" bench/gpu/real_size.mjs
  echo "== real-size exit $?"
  rm -rf "$WORK/real-size" # 1.8 GB of checkpoints
fi
if [ "${GPU_PEER_FIXTURES:-1}" = 1 ] && [ -z "${GPU_BENCH_SMALL:-}" ]; then
  step "bench/gpu/fixtures.mjs in fp16, budget ${GPU_FIXTURES_BUDGET_S:-60} s"
  OUT="$OUT" GPU_FIXTURES_DTYPE=fp16 timeout -k 10 "${GPU_FIXTURES_BUDGET_S:-60}" "$NODE" --no-experimental-fetch bench/gpu/fixtures.mjs
  echo "== fixtures fp16 exit $?"
fi
if [ "${GPU_PEER_KERNELS:-1}" = 1 ]; then
  step "bench/gpu/bench.mjs, the encoder-shaped GEMMs (f32, f16, split K), budget ${GPU_KERNELS_BUDGET_S:-60} s"
  OUT="$OUT" GPU_BENCH_PARTS=${GPU_BENCH_PARTS:-shaped} timeout -k 10 "${GPU_KERNELS_BUDGET_S:-60}" "$NODE" bench/gpu/bench.mjs
  echo "== kernels exit $?"
fi
if [ "${GPU_ENCODE_COST:-1}" = 1 ]; then
  step "bench/gpu/encode_cost.mjs, budget ${GPU_ENCODE_COST_BUDGET_S:-60} s"
  # small mode (SwiftShader): MiniLM's plan alone, 3 calls
  small_models=${GPU_BENCH_SMALL:+minilm-l6}
  OUT="$OUT" ENCODE_WORK="$WORK/encode-cost" ENCODE_LABEL="$(git rev-parse --short HEAD 2>/dev/null || echo run)" \
    ENCODE_MODELS=${ENCODE_MODELS:-${small_models:-minilm-l6,xlm-roberta-base,qwen3-0.6b,gemma3-300m}} \
    ENCODE_REPS=${ENCODE_REPS:-${GPU_BENCH_SMALL:+3}} \
    timeout -k 10 "${GPU_ENCODE_COST_BUDGET_S:-60}" "$NODE" --expose-gc bench/gpu/encode_cost.mjs
  echo "== encode cost exit $?"
fi
step "done: exit $rc; results in $OUT"
exit $rc
