#!/usr/bin/env bash
# Files what one device run of bench/gpu/peer.sh brought back ($OUT: peer.json, real-size.json, fixtures-fp16.json,
# gpu-bench.json, gemm-probe.json, encode-cost.json, run.log, nvidia-smi.csv) as bench/results/gpu/<name>/ and regenerates docs/performance.md (bench/lib/readme.mjs
# renders the newest committed peer run, with its real-size.json):
#   bash bench/gpu/commit-peer-run.sh <folder the files came back to> [name]
# name: default <gpu>-<date of peer.json>-peer, <gpu> from nvidia-smi.csv (e.g. h200), else the adapter's vendor.
# Refuses a small-mode (SwiftShader) peer.json. Then: git add bench/results/gpu/<name> docs/performance.md; git commit.
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=${1:?usage: bash bench/gpu/commit-peer-run.sh <folder> [name]}
[ -f "$SRC/peer.json" ] || { echo "commit-peer-run: $SRC/peer.json is missing" >&2; exit 1; }
node -e "const p = require(require('path').resolve(process.argv[1])); if (p.small) { console.error('commit-peer-run: a small-mode (GPU_BENCH_SMALL) run is not a result'); process.exit(1); }" "$SRC/peer.json"
if [ -n "${2:-}" ]; then NAME=$2; else
  date=$(node -p "String(require(require('path').resolve(process.argv[1])).date).slice(0, 10)" "$SRC/peer.json")
  gpu=$( { [ -f "$SRC/nvidia-smi.csv" ] && sed -n 2p "$SRC/nvidia-smi.csv" | grep -oiE '[A-Z][0-9]{2,4}' | head -1; } || true)
  [ -n "$gpu" ] || gpu=$(node -p "(require(require('path').resolve(process.argv[1])).device?.vendor || 'gpu')" "$SRC/peer.json")
  NAME="$(echo "$gpu" | tr 'A-Z' 'a-z')-$date-peer"
fi
DEST=bench/results/gpu/$NAME
[ -e "$DEST" ] && { echo "commit-peer-run: $DEST exists (pass another name)" >&2; exit 1; }
mkdir -p "$DEST"
for f in peer.json real-size.json fixtures-fp16.json gpu-bench.json gemm-probe.json encode-cost.json run.log nvidia-smi.csv; do [ -f "$SRC/$f" ] && cp "$SRC/$f" "$DEST/"; done
chmod u+w "$DEST"/*
node bench/lib/readme.mjs
echo "commit-peer-run: $DEST ($(ls "$DEST" | tr '\n' ' ')); docs/performance.md regenerated"
