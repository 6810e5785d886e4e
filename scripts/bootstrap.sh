#!/usr/bin/env bash
# Installs what relpos needs on a fresh Debian bookworm machine (as root) when it is missing:
# Debian packages (toolchain, xsimd, Catch2, Chromium for browser tests, clang + its runtime for
# the libFuzzer targets in fuzz/; ccache, which every build script uses when present (scripts/ccache-env.sh); libvulkan1, the Vulkan loader Dawn (npm `webgpu`) opens for the WebGPU tests; python3-torch, python3-sentencepiece and spm_train to make PyTorch
# checkpoints and SentencePiece models for the tests — run them as /usr/bin/python3) and the npm dev deps (root,
# tests/browser, bench).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pkg in emscripten libxsimd-dev catch2 nlohmann-json3-dev cmake g++ make chromium clang libclang-rt-14-dev \
           python3-torch python3-sentencepiece sentencepiece python3-onnx libvulkan1 ccache; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need_apt[*]}"
  if [ "$(id -u)" -ne 0 ]; then echo "bootstrap: need root to apt-get install ${need_apt[*]}" >&2; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if [ -f package-lock.json ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
  fi
elif [ ! -d node_modules ]; then
  npm install --no-audit --no-fund --loglevel=error
fi
[ -d tests/browser/node_modules ] || npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
# bench/: Transformers.js 4.3.1 and its onnxruntime-node 1.30.0 (linux-x64 WebGPU EP in the package) for
# tests/js/webgpu-peer.test.mjs (bench/gpu/peer.mjs's small mode), and wllama 3.8.1 (llama.cpp in WebAssembly) for
# the `wllama` bench section (bench/lib/wllama_peer.mjs). onnxruntime-node's install script would fetch
# CUDA libraries from a host that is not reachable: skipped (bench/.npmrc says so too).
if [ ! -d bench/node_modules ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --prefix bench --no-audit --no-fund --loglevel=error
fi
