#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build/fuzz (see fuzz/CMakeLists.txt) and writes the
# seed corpora from the shared fixtures into build/fuzz/corpus/<target>/ (fresh seeds are added,
# inputs found by earlier runs are kept). Prints the built targets' names, one per line, to
# build/fuzz/targets.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ccache-env.sh
fixtures="${RELPOS_FUZZ_FIXTURES:-$PWD/../shared/fixtures/hf}"
command -v clang++ >/dev/null || { echo "fuzz/build.sh: clang++ missing (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

# Re-configure every time: it is cheap, and it notices model_config.cpp / load_model appearing.
cmake -S fuzz -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRELPOS_FUZZ_FIXTURES="$fixtures" >/dev/null
cmake --build build/fuzz -j"$(nproc)"

build/fuzz/make_seeds "$fixtures" build/fuzz/seeds
# PyTorch checkpoint seeds (fuzz_torch_zip, fuzz_pickle) from Debian's python3-torch.
[ -d build/checkpoint-variants/hostile ] || /usr/bin/python3 scripts/make-checkpoint-variants.py
/usr/bin/python3 scripts/make-checkpoint-variants.py --seeds build/fuzz/seeds
mkdir -p build/fuzz/corpus
while read -r target; do
  [ -n "$target" ] || continue
  mkdir -p "build/fuzz/corpus/$target"
  cp -f "build/fuzz/seeds/${target#fuzz_}"/* "build/fuzz/corpus/$target/"
done < build/fuzz/targets.txt
