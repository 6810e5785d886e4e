#!/usr/bin/env bash
# Native profiling build of the bench harness (not part of npm run bench):
#   bash bench/profile.sh [extra g++ flags]  →  build/g-native/profile_main
# then e.g.  build/g-native/profile_main none 512 10
#            valgrind --tool=callgrind build/g-native/profile_main shaw 512 1
#            perf record -g build/g-native/profile_main all 512 5
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/g-native
mkdir -p $out
defs=()
for p in SinusoidalAbsoluteParams LearnedAbsoluteParams MlpPositionParams ShawParams BertRelativeParams \
         HuangRelativeParams TransformerXLParams T5Params TupeParams DebertaParams RopeParams AlibiParams; do
  if grep -rqE "make_scheme\(const $p ?&" cpp/src; then defs+=("-DHAVE_$p"); fi
done
g++ -std=c++17 -O3 -g -fno-omit-frame-pointer -msse4.1 "$@" "${defs[@]}" -Icpp/include -Icpp/src -Ibench/src \
  $(find cpp/src -name '*.cpp') bench/src/profile_main.cpp -o $out/profile_main
echo "built $out/profile_main (${defs[*]//-DHAVE_/})"
