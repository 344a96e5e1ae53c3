#!/usr/bin/env bash
# Runs the libFuzzer target (build-san/paddle_ops_fuzz, built by tools/dev/test_sanitize.sh) for
# SECONDS per op, starting from the op's seed corpus unittests/fuzz/corpus/<op> (read only;
# new inputs go to build-san/fuzz_corpus/<op>). Prints the executions per op; a failure
# leaves its input as build-san/fuzz_crashes/<op>/crash-* and exits non-zero.
#
#   bash tools/dev/fuzz.sh [SECONDS] [op ...]        (default 600 s: the development run; all ops)
#   bash tools/dev/fuzz.sh 600 logcumsumexp_grad
# Reproduce a failure: build-san/paddle_ops_fuzz --op=<op> <crash file>
# Refresh the seeds after a long run (keeps a covering subset):
#   build-san/paddle_ops_fuzz --op=<op> -merge=1 unittests/fuzz/corpus/<op> build-san/fuzz_corpus/<op>
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_PER_OP=${1:-600}
shift || true
FUZZ=${PADDLE_OPS_FUZZ_BIN:-build-san/paddle_ops_fuzz}
[ -x "$FUZZ" ] || { echo "no $FUZZ: run tools/dev/test_sanitize.sh (or configure build-san with -DPADDLE_OPS_FUZZ=ON) first"; exit 2; }
ops=("$@")
if [ ${#ops[@]} -eq 0 ]; then
  mapfile -t ops < <("$FUZZ" --list-ops)
fi
status=0
total=0
printf '%-20s %12s %8s %s\n' op executions seconds result
for op in "${ops[@]}"; do
  mkdir -p "build-san/fuzz_corpus/$op" "build-san/fuzz_crashes/$op" "unittests/fuzz/corpus/$op"
  log="build-san/fuzz_crashes/$op/log.txt"
  "$FUZZ" --op="$op" -max_total_time="$SECONDS_PER_OP" -timeout=60 -rss_limit_mb=4096 \
    -artifact_prefix="build-san/fuzz_crashes/$op/" -print_final_stats=1 \
    "build-san/fuzz_corpus/$op" "unittests/fuzz/corpus/$op" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    result=ok
  else
    result="FAIL (exit $rc): $(grep -m1 -E 'fuzz failure|ERROR:|runtime error' "$log")"
    status=1
    grep -A2 'fuzz failure' "$log" | head -3
  fi
  total=$((total + ${runs:-0}))
  printf '%-20s %12s %8s %s\n' "$op" "${runs:-?}" "${secs:-?}" "$result"
done
echo "fuzz: $total executions over ${#ops[@]} ops"
exit $status
