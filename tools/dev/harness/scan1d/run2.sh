#!/usr/bin/env bash
# The second scan1d set's GPU run (tools/dev/harness/README.md, "1-D single-pass variants",
# built with -DSCAN1D_SET2 as scan1d_set2): every variant on the awkward cases and the four
# benchmark shapes (diagnostics unchecked), an unchecked timing round, then compute-sanitizer
# (memcheck on the checked variants, racecheck on the few-barrier one). Run from the repository
# root on the device machine: bash .dev/scan1d2/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_set2"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
big=(--only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]' --only 'cumsum f32 1-D 2^26' --only 'cumsum f32 [64, 2^20]')
echo "== scan1d set 2 (checked; diag rows unchecked)"
timeout 150 "$h" --only 1000003 --only 70001 --only '2^22 neg' "${big[@]}" --skip '2^26 excl'
echo "== unchecked second round (timing)"
timeout 40 "$h" --no-check "${big[@]}" --skip '2^26 excl'
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, awkward cases, checked variants"
  timeout 35 compute-sanitizer --tool memcheck "$h" --no-time --checked-only --only 1000003 --only 70001 |
    grep -v '^|---' | tail -60
  echo "== racecheck, [3, 70001], few-barrier variants"
  timeout 25 compute-sanitizer --tool racecheck "$h" --no-time --only 70001 --variant mb4f --variant mb8f | tail -8
fi
