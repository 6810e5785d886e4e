#!/usr/bin/env bash
# `bash scripts/fuzz.sh [seconds]` (npm run fuzz: 600; npm test: 45): builds the libFuzzer targets
# (fuzz/build.sh, clang + ASan + UBSan) and runs each one for `seconds` (default 60), $(nproc) at a time (see below),
# each on its corpus build/fuzz/corpus/<target>/ (fixture seeds + what earlier runs found) with
# the dictionary fuzz/json.dict. Any finding — an exception other than relpos::Error, a sanitizer
# report, a broken invariant, a timeout (> 10 s per input) or more than 2 GB of memory — stops that
# target, leaves the input in build/fuzz/artifacts/ and makes this script exit non-zero after the
# remaining targets ran. Logs: build/fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
bash fuzz/build.sh
mkdir -p build/fuzz/artifacts build/fuzz/logs

# Targets run $(nproc) at a time (each is single-threaded; -max_total_time is wall time, so each still gets
# `seconds` of one core): npm test's fuzz step takes ceil(targets / cores) × seconds instead of targets × seconds.
run_target() {
  local target=$1 log="build/fuzz/logs/$1.log" max_len=()
  # Reader targets may grow inputs to 64 KiB (deep JSON nesting needs length); the loader's seeds
  # are whole fixture checkpoints (~100 KiB), libFuzzer's default (largest seed) fits them.
  [ "$target" = fuzz_model_load ] || max_len=(-max_len=65536)
  local rc=0
  ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:allocator_may_return_null=0" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    nice -n 10 "build/fuzz/$target" "build/fuzz/corpus/$target" \
      -dict=fuzz/json.dict "${max_len[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
      -artifact_prefix="build/fuzz/artifacts/$target-" -print_final_stats=1 >"$log" 2>&1 || rc=$?
  echo "$rc" > "build/fuzz/logs/$target.rc"
}
report_target() {
  local target=$1 log="build/fuzz/logs/$1.log"
  echo "== fuzz: $target for ${seconds}s =="
  if [ "$(cat "build/fuzz/logs/$target.rc")" = 0 ]; then
    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | sed 's/^/  /' || true
  else
    echo "  FINDING in $target — see $log; input(s):" >&2
    ls build/fuzz/artifacts/"$target"-* >&2 2>/dev/null || true
    grep -E 'ERROR|runtime error|SUMMARY|terminate|invariant|Test unit written' "$log" | head -20 | sed 's/^/  /' >&2 || true
    failed+=("$target")
  fi
}

failed=()
mapfile -t targets < <(grep -v '^$' build/fuzz/targets.txt)
jobs_max=$(nproc)
running=0
for target in "${targets[@]}"; do
  rm -f "build/fuzz/logs/$target.rc"
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs_max" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true
for target in "${targets[@]}"; do report_target "$target"; done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no findings"
