#!/usr/bin/env bash
# `npm run bench`: installs bench/ deps, builds what is missing, runs bench/bench.mjs.
# Not part of npm test. Results: bench/results/latest.{json,md,svg}.
# Env: BENCH_QUICK=1 (fewer reps, seq ≤ 2048), BENCH_SECTIONS=peak,kernels,experiment,ort,e2e,q8,size,startup,heap (default all; size: bytes of the builds; startup: first-result time; q8: the 8-bit linear layer vs fp32; heap: every scheme at seq 8192 through the npm package;
#      threads: the package on 1 vs 2 threads, and relpos vs onnxruntime-web both on 1 and both on 2 threads, bench/lib/peer_threads.mjs;
#      short: batch 1 at 8–64 tokens and 8 × 32, each runtime in its own process (bench/lib/proc_peers.mjs), q8 on 1/2 threads vs a dynamically
#      quantized ONNX; procpeers: the layer rows at 128/512 and attention at 512 in separate processes; profile: per-call profile
#      (bench/lib/profile.mjs, build/g-wasm-prof); batching: sorted vs padded batches, real MiniLM; fillmask: logits at the mask vs every token),
#      training: the lab module's training throughput per scheme and the demo's default run in Chromium (bench/lib/training.mjs),
#      families: MPNet / ModernBERT / NomicBERT layers at 128–8192 tokens and one 8192-token ModernBERT-base document (bench/lib/families.mjs),
#      spans: rp.attention at seq 512 with ALiBi slopes whose bias spans 2, 255 and 102 against plain attention, and real models
#      at 512 tokens (issue #28, subnormal floats: Intel CPUs slow down, AMD CPUs do not; the rows name the CPU, /proc/cpuinfo),
#      webgpu: the WebGPU kernels as a GPU machine measured them (bench/gpu/run.sh, committed under bench/results/gpu/; nothing re-measured here),
#      cpupeer: real MiniLM one query at a time vs Transformers.js 4.3.1 on the CPU in Chromium, 1 and 2 threads (bench/cpu_chromium_peer.mjs → bench/results/cpu-peer/),
#      gpupeer: relpos WebGPU vs Transformers.js WebGPU (and both on WASM) in one headless Chromium page on SwiftShader, MiniLM-shaped layer
#      (bench/webgpu_chromium_peer.mjs; Transformers.js is a bench/ devDependency, installed by step 1),
#      wllama: relpos vs wllama (@wllama/wllama, llama.cpp in WebAssembly; a bench/ devDependency) on GGUF files in headless Chromium,
#      1 and 2 threads: the real MiniLM Q8_0 (64 texts, 16 singles) and EmbeddingGemma-300m / Qwen3-Embedding-0.6B shapes as Q8_0
#      (bench/lib/gguf_writer.mjs) at 128 / 512 tokens (bench/lib/wllama_peer.mjs; results also in bench/results/wllama_peer.json),
#      BENCH_OUT=dir (write latest.* there instead of bench/results), BENCH_NO_PKG_BUILD=1 (never run scripts/build.sh),
#      BENCH_WEB_INDEX=path/to/web/index.js (bench another copy of the package, e.g. an older build, for a before/after run).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export NODE_PATH=/usr/share/nodejs   # Debian's emcc needs acorn from here
jobs=$(nproc)

# 1. bench dependencies (onnxruntime-web, onnx-proto; @huggingface/transformers for gpupeer — bench/.npmrc skips
#    onnxruntime-node's download from nuget, which nothing here uses)
if [ ! -d bench/node_modules ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
  npm ci --prefix bench --no-audit --no-fund --loglevel=error
fi

# 2. the npm package (web/dist) when its build exists and has not been built
if [ -z "${BENCH_NO_PKG_BUILD:-}" ] && [ ! -d web/dist ] && [ -f cmake/wasm_package.cmake ] && [ -f scripts/build.sh ]; then
  echo "bench: building the package (scripts/build.sh)"
  bash scripts/build.sh || echo "bench: package build failed; its rows will be reported as unavailable" >&2
fi

# 3. the library in a build dir of our own, and the bench-only wasm (peak microkernel + harness)
out=build/g-wasm
mkdir -p $out/bench
# Only the sections that run relpos's bench harnesses need them (the package-only sections skip this step).
if [ -z "${BENCH_SECTIONS:-}" ] || [[ ",${BENCH_SECTIONS}," =~ ,(peak|kernels|experiment|ort|e2e|q8), ]]; then
[ -f $out/CMakeCache.txt ] || emcmake cmake -S . -B $out -DCMAKE_BUILD_TYPE=Release -DRELPOS_TESTS=OFF >/dev/null
cmake --build $out -j"$jobs" --target relpos_simd relpos_scalar >/dev/null

# Which schemes the built library defines right now (a make_scheme overload in the archive).
defs=()
syms=$(emnm $out/librelpos_simd.a 2>/dev/null | grep -E ' T .*make_scheme' || true)
ssyms=$(emnm $out/librelpos_scalar.a 2>/dev/null | grep -E ' T .*make_scheme' || true)
for p in SinusoidalAbsoluteParams LearnedAbsoluteParams MlpPositionParams ShawParams BertRelativeParams \
         HuangRelativeParams TransformerXLParams T5Params TupeParams DebertaParams RopeParams AlibiParams; do
  if grep -q "S_${#p}${p}E" <<<"$syms" && grep -q "S_${#p}${p}E" <<<"$ssyms"; then
    defs+=("-DHAVE_$p")
  fi
done
echo "bench: schemes compiled into the harness: none ${defs[*]//-DHAVE_/}"

emcc -O3 -msimd128 bench/src/peak.cpp -o $out/bench/peak_simd.wasm --no-entry -sSTANDALONE_WASM
emcc -O3 bench/src/peak.cpp -o $out/bench/peak_scalar.wasm --no-entry -sSTANDALONE_WASM

# Exceptions as the library variant was compiled (CMakeLists.txt): native wasm EH for SIMD, JS-based for scalar.
eh_simd=(-fwasm-exceptions)
eh_scalar=(-fexceptions -sDISABLE_EXCEPTION_CATCHING=0)
link=(-O3 -sMODULARIZE=1 -sEXPORT_NAME=createHarness -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB
      -sTOTAL_STACK=1MB -sENVIRONMENT=node -sEXPORTED_RUNTIME_METHODS=UTF8ToString
      -sEXPORTED_FUNCTIONS=_malloc,_free)
for variant in simd scalar; do
  eh=(${eh_simd[@]})
  [ $variant = scalar ] && eh=(${eh_scalar[@]})
  flags=(-Icpp/include -I$out/shim-include "${eh[@]}" "${defs[@]}")
  [ $variant = simd ] && flags+=(-msimd128 -msse4.1) || flags+=(-DRELPOS_SCALAR)
  emcc -O3 -std=c++17 "${flags[@]}" -c bench/src/harness.cpp -o $out/bench/harness_$variant.o
  emcc "${link[@]}" "${eh[@]}" $out/bench/harness_$variant.o $out/librelpos_$variant.a -o $out/bench/harness_$variant.js
  mv -f $out/bench/harness_$variant.js $out/bench/harness_$variant.cjs   # CommonJS glue inside an ESM package
done

# relpos's C++ model layer for the end-to-end section (while web/ has no loadModel)
if emnm $out/librelpos_simd.a 2>/dev/null | grep -q " T .*load_model"; then
  emcc -O3 -std=c++17 -msimd128 -msse4.1 -fwasm-exceptions -Icpp/include -I$out/shim-include -c bench/src/model_harness.cpp -o $out/bench/model_harness.o
  emcc "${link[@]}" "${eh_simd[@]}" -sEXPORT_NAME=createModelHarness $out/bench/model_harness.o $out/librelpos_simd.a -o $out/bench/model_harness.js
  mv -f $out/bench/model_harness.js $out/bench/model_harness.cjs
fi

# one linear layer, fp32 vs 8-bit weights (bench/src/linear_harness.cpp; kernels from cpp/src)
emcc -O3 -std=c++17 -msimd128 -msse4.1 -fwasm-exceptions -Icpp/src -I$out/shim-include -c bench/src/linear_harness.cpp -o $out/bench/linear_harness.o
emcc "${link[@]}" "${eh_simd[@]}" -sEXPORT_NAME=createLinearHarness $out/bench/linear_harness.o $out/librelpos_simd.a -o $out/bench/linear_harness.js
mv -f $out/bench/linear_harness.js $out/bench/linear_harness.cjs

# proposal experiment: the harness with a WASM-SIMD exp in raddstoreexpminusmax_f32 (bench/src/softmax_wasm_exp.cpp
# linked ahead of the archive, which then does not pull in its own definition)
emcc -O3 -std=c++17 -msimd128 -c bench/src/softmax_wasm_exp.cpp -o $out/bench/softmax_wasm_exp.o
emcc "${link[@]}" "${eh_simd[@]}" $out/bench/harness_simd.o $out/bench/softmax_wasm_exp.o $out/librelpos_simd.a -o $out/bench/harness_simd_exp.js
mv -f $out/bench/harness_simd_exp.js $out/bench/harness_simd_exp.cjs

# proposal experiment: Transformer-XL with the packed R·W_kRᵀ cached per head (generated from the current source)
rm -f $out/bench/harness_simd_txl.cjs
# The patch targets one version of the scheme's source: when it no longer applies, skip the experiment.
if node bench/lib/make_txl_experiment.mjs cpp/src/schemes/transformer_xl.cpp $out/bench/txl_cached_experiment.cpp &&
   emcc -O3 -std=c++17 -msimd128 -msse4.1 -fwasm-exceptions -Icpp/include -Icpp/src -I$out/shim-include \
     -c $out/bench/txl_cached_experiment.cpp -o $out/bench/txl_cached_experiment.o 2>/dev/null &&
   emcc "${link[@]}" "${eh_simd[@]}" $out/bench/harness_simd.o $out/bench/txl_cached_experiment.o $out/librelpos_simd.a -o $out/bench/harness_simd_txl.js; then
  mv -f $out/bench/harness_simd_txl.js $out/bench/harness_simd_txl.cjs
else
  echo "bench: Transformer-XL cache experiment skipped (its patch does not apply to the current scheme source)"
fi

# the GEMM micro-kernel experiment (bench/lib/gemm_experiment.mjs; not run by default)
emcc -O3 -msimd128 -sMODULARIZE=1 -sEXPORT_NAME=createGemm -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node \
  -sEXPORTED_FUNCTIONS=_malloc,_free bench/src/gemm_experiment.cpp -o $out/bench/gemm_experiment.js
mv -f $out/bench/gemm_experiment.js $out/bench/gemm_experiment.cjs

fi

# 3b. data (bench/data/*.py, Debian's python3-onnx / numpy): the dynamically quantized ONNX of each bench
# layer (the q8 peer) and a DeBERTa-v3-base-shaped masked-LM checkpoint (the fill-mask section)
data=$out/bench/data   # bench.mjs reads DATA = build/g-wasm/bench/data
# only the sections that read it (short, procpeers: model.q8.onnx; fillmask: the masked-LM checkpoint)
if [ -z "${BENCH_SECTIONS:-}" ] || [[ ",${BENCH_SECTIONS}," =~ ,(short|procpeers|fillmask), ]]; then
if [ ! -f $data/bert-minilm-layer/model.q8.onnx ] || [ bench/data/make_q8_onnx.py -nt $data/bert-minilm-layer/model.q8.onnx ]; then
  /usr/bin/python3 bench/data/make_q8_onnx.py ../shared/bench-models $data || echo "bench: quantized ONNX not made (python3-onnx missing? scripts/bootstrap.sh)" >&2
fi
if [ ! -f $data/deberta-v3-base-mlm/model.safetensors ] || [ bench/data/make_fill_mask_model.py -nt $data/deberta-v3-base-mlm/model.safetensors ]; then
  /usr/bin/python3 bench/data/make_fill_mask_model.py $data/deberta-v3-base-mlm || echo "bench: fill-mask checkpoint not made" >&2
fi
fi

# 3c. the profiled copy of the npm package (cpp/src/profile: -DRELPOS_PROFILE=ON) for the profile section:
# build/g-wasm-prof/web = web/*.js + its own dist/. The shipped package (web/dist) has no timers.
if [ -z "${BENCH_SECTIONS:-}" ] || [[ ",${BENCH_SECTIONS}," == *,profile,* ]]; then
  prof=build/g-wasm-prof
  [ -f $prof/CMakeCache.txt ] || emcmake cmake -S . -B $prof -DCMAKE_BUILD_TYPE=Release -DRELPOS_TESTS=OFF -DRELPOS_PROFILE=ON \
    -DRELPOS_PACKAGE_DIST=$root/$prof/web/dist >/dev/null
  mkdir -p $prof/web
  tar -C web --exclude=./dist -cf - . | tar -C $prof/web -xf -   # web/*.js and web/pipelines/, not its dist
  cmake --build $prof -j"$jobs" --target relpos_package_simd relpos_package_simd_threads >/dev/null ||
    echo "bench: profiled package build failed; the profile section will say so" >&2
fi

# 4. run
exec node --no-experimental-fetch bench/bench.mjs "$@"
