#!/usr/bin/env bash
# Assembles .gpu/ (git-ignored) for bench/gpu/run.sh on a GPU machine that has no Node and no network:
#   node.xz            this machine's node binary (xz -c "$(command -v node)")
#   dawn.node.xz       the npm package webgpu's Dawn binding (node_modules/webgpu/dist/linux-x64/dawn.node)
#   webgpu/            that package's JS entry (index.js, package.json) — it needs nothing else at run time
#   libvulkan1.deb     the Vulkan loader Dawn dlopens (Debian's, amd64, `apt-get download`)
#   lib/*.xz           libstdc++.so.6 and libgcc_s.so.1 of this machine, used only if node will not start
#   minilm/            the real all-MiniLM-L6-v2 pruned to the rows of bench/gpu/minilm_carry.mjs's 64 texts
#                      (config.json, model.safetensors.xz, batch.json; needs web/dist built)
#   fixtures/          ../shared/fixtures/hf and hf-families (config, weights, input, expected; 6.7 MB) for
#                      bench/gpu/fixtures.mjs: every public fixture on the GPU
#   MANIFEST           versions and sha256 of the above
# About 56 MB; the device tool carries at most 64 MiB. Usage: bash scripts/gpu-carry.sh (then carry .gpu).
# GPU_CARRY_DIR=dir writes another folder; GPU_CARRY_BASE=1 only the runtime (node, Dawn, the Vulkan loader, GLVND,
# libstdc++: no minilm/ nor fixtures/) — scripts/gpu-peer-carry.sh builds .gpu-peer/ on it.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=node_modules/webgpu
C=${GPU_CARRY_DIR:-.gpu}
[ -f "$pkg/dist/linux-x64/dawn.node" ] || { echo "gpu-carry: $pkg/dist/linux-x64/dawn.node is missing: run npm ci first" >&2; exit 1; }
rm -rf "$C" && mkdir -p "$C/webgpu" "$C/lib"
node_bin=$(command -v node)
echo "gpu-carry: node $("$node_bin" --version) from $node_bin"
xz -T2 -6 -c "$node_bin" > "$C"/node.xz
xz -T2 -6 -c "$pkg/dist/linux-x64/dawn.node" > "$C"/dawn.node.xz
cp "$pkg/index.js" "$pkg/package.json" "$C"/webgpu/
( cd "$C" && apt-get download libvulkan1:amd64 >/dev/null 2>&1 ) || { echo "gpu-carry: apt-get download libvulkan1 failed" >&2; exit 1; }
mv "$C"/libvulkan1_*.deb "$C"/libvulkan1.deb
# GLVND: the NVIDIA Vulkan ICD is libGLX_nvidia.so.0, which needs libGLdispatch/libGLX; GPU machines without them
# answered "Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'" (checked on an H200, 2026-11-26).
mkdir -p "$C"/gl
( cd "$C"/gl && apt-get download libglvnd0:amd64 libglx0:amd64 libgl1:amd64 libegl1:amd64 libopengl0:amd64 libgles2:amd64 >/dev/null 2>&1 ) \
  || { echo "gpu-carry: apt-get download of the GLVND libraries failed" >&2; exit 1; }
for lib in libstdc++.so.6 libgcc_s.so.1; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ && !found { print $NF; found = 1 }')
  if [ -n "$path" ]; then xz -c "$(readlink -f "$path")" > "$C/lib/$lib.xz"; fi
done
if [ "${GPU_CARRY_BASE:-0}" != 1 ]; then
node --no-experimental-fetch bench/gpu/minilm_carry.mjs "$C"/minilm
xz -T2 -6 "$C"/minilm/model.safetensors
mkdir -p "$C"/fixtures
for set in hf hf-families; do
  [ -d ../shared/fixtures/$set ] && cp -r ../shared/fixtures/$set "$C"/fixtures/$set
done
fi
{
  echo "node $("$node_bin" --version)"
  echo "webgpu $(node -p "require('./$pkg/package.json').version")"
  echo "libvulkan1 $(dpkg-deb -f "$C"/libvulkan1.deb Version)"
  ( cd "$C" && find . -type f ! -name MANIFEST | sort | xargs sha256sum )
} > "$C"/MANIFEST
du -sh "$C"
cat "$C"/MANIFEST
