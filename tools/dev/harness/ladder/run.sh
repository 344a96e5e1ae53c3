#!/usr/bin/env bash
# The diagnostic ladder's GPU run (tools/dev/harness/README.md, "Diagnostic ladder"): every rung
# checked and timed on the four shapes (float32 1-D 2^26, [64, 2^20], [16384, 4096] axis 0,
# [32, 4, 2048, 128] axis 2; about 60 s, cut at 100), then compute-sanitizer memcheck of every
# rung on the small sizes (--small --no-time, cut at 60). Under 160 s. From the repository root on
# the device machine: bash .dev/ladder/run.sh [ladder_harness options, e.g. --only '1-D']
set -u
d=$(dirname "$0")
h="$d/ladder_harness"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== ladder: checked and timed"
timeout "${LADDER_LIMIT:-100}" "$h" "$@"
echo "rc $?"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2> /dev/null)
if [ -n "$cs" ]; then
  echo "== memcheck, small sizes, every rung (FAIL rows and the summary)"
  log=$(mktemp)
  timeout "${LADDER_MEMCHECK_LIMIT:-60}" "$cs" --tool memcheck "$h" --small --no-time > "$log" 2>&1
  echo "rc $? rows ok $(grep -c '| ok ' "$log") FAIL $(grep -c 'FAIL' "$log")"
  grep -E 'FAIL|Invalid|ERROR SUMMARY|error' "$log" | head -20
  rm -f "$log"
else
  echo "(no compute-sanitizer)"
fi
