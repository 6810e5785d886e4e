#!/usr/bin/env bash
# `npm start`: make sure the toolchain and the package build exist, then serve the demo page.
#   bootstrap only when something is missing; build only when web/dist is missing or older than
#   the C++/binding sources; then `node scripts/serve.mjs "$@"` (prints the URL).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v emcc >/dev/null || ! command -v cmake >/dev/null || ! command -v chromium >/dev/null ||
   [ ! -d tests/browser/node_modules ] ||
   { [ -f package-lock.json ] && { [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; }; then
  bash scripts/bootstrap.sh
fi

stale=0
for f in web/dist/relpos-simd.js web/dist/relpos-simd.wasm web/dist/relpos-scalar.js web/dist/relpos-scalar.wasm \
         web/dist/relpos-simd-threads.js web/dist/relpos-simd-threads.wasm web/dist/relpos-simd-threads.worker.js; do
  [ -f "$f" ] || stale=1
done
if [ "$stale" = 0 ]; then
  oldest=web/dist/relpos-simd.wasm
  for f in web/dist/relpos-*.wasm; do [ "$f" -ot "$oldest" ] && oldest=$f; done
  if [ -n "$(find cpp CMakeLists.txt cmake scripts/minify-glue.mjs -newer "$oldest" -type f -print -quit 2>/dev/null)" ]; then stale=1; fi
fi
if [ "$stale" = 1 ]; then
  echo "start: web/dist is missing or older than the C++ sources; building the package (scripts/build.sh --package)"
  bash scripts/build.sh --package
fi

exec node scripts/serve.mjs "$@"
