# Sourced by scripts/test-sanitize.sh and test-tsan.sh: side_by_side A… -- B… runs command B in the background (its
# output to a temporary file) while A runs in the foreground, then prints B's output; fails when either failed, saying
# which. The sanitizer suites are mostly one busy thread each, so on 2 cores the pair takes about the longer one's time.
side_by_side() {
  local a=() b=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  local log
  log=$(mktemp)
  "${b[@]}" >"$log" 2>&1 &
  local pid=$! status_a=0 status_b=0
  "${a[@]}" || status_a=$?
  wait "$pid" || status_b=$?
  echo "---- ${b[*]} ----"
  cat "$log"
  rm -f "$log"
  [ "$status_a" -eq 0 ] || echo "FAILED (exit $status_a): ${a[*]}" >&2
  [ "$status_b" -eq 0 ] || echo "FAILED (exit $status_b): ${b[*]}" >&2
  [ "$status_a" -eq 0 ] && [ "$status_b" -eq 0 ]
}
