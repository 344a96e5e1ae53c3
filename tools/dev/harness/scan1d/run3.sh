#!/usr/bin/env bash
# The third scan1d set's GPU run (tools/dev/harness/README.md, "1-D single-pass variants", built
# with -DSCAN1D_SET3 as scan1d_set3): every variant checked on the awkward cases, an unchecked
# timing round on the four benchmark shapes (two runs still compared bitwise: NONDET), then
# compute-sanitizer (memcheck on the awkward cases, racecheck on [3, 70001], the kIncl variants).
# Run from the repository root on the device machine: bash .dev/scan1d3/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_set3"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== scan1d set 3 (checked; diag rows unchecked)"
timeout 60 "$h" --only 1000003 --only 70001 --only '2^22 neg'
echo "== timing round (unchecked, bitwise-compared)"
timeout 40 "$h" --no-check --only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]' --only 'cumsum f32 1-D 2^26' \
  --only 'cumsum f32 [64, 2^20]' --skip '2^26 excl'
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, awkward cases, checked variants"
  timeout 30 compute-sanitizer --tool memcheck "$h" --no-time --checked-only --only 1000003 --only 70001 \
    --only '2^22 neg' | grep -v '^|---' | tail -40
  echo "== racecheck, [3, 70001], kIncl variants"
  timeout 20 compute-sanitizer --tool racecheck "$h" --no-time --only 70001 --variant mb4i --variant mb4fi \
    --variant mb2i --variant mb2fi | tail -8
fi
