#!/usr/bin/env bash
# bench/gpu/load_check.mjs on a GPU machine in one short call (≤ 120 s), from the repository root:
#   run(command='bash bench/gpu/load_check.sh', carry=['.gpu', 'web/dist/relpos-simd.js', 'web/dist/relpos-simd.wasm'])
# .gpu/ from scripts/gpu-carry.sh (node, dawn.node, the Vulkan loader, GLVND) with models/ holding make-weights.mjs and
# the peer models' config.json + safetensors-header.json (bench/gpu/load_check.sh --carry assembles it from
# ../shared/gpu-peer-models). Results: $OUT/loads.json (default $OUT, or bench/results/tmp/gpu-load), run.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--carry" ]; then
  GPU_CARRY_DIR=.gpu GPU_CARRY_BASE=1 bash scripts/gpu-carry.sh >/dev/null
  rm -rf .gpu/models && mkdir -p .gpu/models
  cp ../shared/gpu-peer-models/make-weights.mjs .gpu/models/
  for m in deberta-v3-base xlm-roberta-base mpnet-base; do
    mkdir -p .gpu/models/$m && cp ../shared/gpu-peer-models/$m/{config.json,safetensors-header.json} .gpu/models/$m/
  done
  du -sh .gpu
  exit 0
fi
OUT=${OUT:-bench/results/tmp/gpu-load}
WORK=${WORK:-/tmp/relpos-gpu-load}
mkdir -p "$OUT" "$WORK"
exec > >(tee -a "$OUT/run.log") 2>&1
echo "== relpos WebGPU load check, $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
source bench/gpu/carry-env.sh
NODE=node
if [ -d .gpu ]; then
  unpack_carry .gpu
  export PEER_MODELS=.gpu/models
fi
pick_icd
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
export RELPOS_DAWN_FLAGS=${RELPOS_DAWN_FLAGS-enable-dawn-features=vulkan_enable_f16_on_nvidia}
OUT="$OUT" LOAD_WORK="$WORK" timeout -k 5 "${LOAD_BUDGET_S:-100}" "$NODE" bench/gpu/load_check.mjs
echo "== exit $?"
