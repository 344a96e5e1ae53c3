#!/usr/bin/env bash
# The library's block tiles for float32 logcumsumexp (issue 29; scan1d built with -DSCAN1D_LIB as
# scan1d_lib: bash tools/dev/harness/build.sh scan1d lib <dir> -DSCAN1D_LIB; copy this script
# beside it) on the GPU: every variant (the harness's tree b256i16mb4 and best b512i16mb2i1s, the
# library's path before "lib-old", the routed "lib-new" and its carry-in "lib-new init") checked
# against the float64 reference on the awkward cases, the routed path checked on the benchmark
# shapes, a timing round (unchecked, bitwise-compared) on the benchmark shapes, the threshold's
# grid (lib-old against lib-new), then compute-sanitizer memcheck and racecheck on small cases.
# About 100 s, each step under its own timeout. Run from the repository root on the device
# machine: bash <dir>/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_lib"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== awkward cases, every variant: checked"
timeout 40 "$h" --skip cumsum --only 1000003 --only 70001 --only '2^22 neg' --only '[3, 2^16]'
echo "== benchmark shapes, the routed path: checked"
timeout 40 "$h" --no-time --variant lib-new --only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]'
echo "== timing round (unchecked, bitwise-compared)"
timeout 30 "$h" --no-check --only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]' --only 'lse f32 [4096, 16384]'
echo "== the threshold's grid (unchecked, bitwise-compared), lib-old against lib-new"
timeout 40 "$h" --no-check --only grid --only '[512, 2^16]' --variant lib-old --variant lib-new --skip-variant init
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small cases, the routed path"
  timeout 25 compute-sanitizer --tool memcheck "$h" --no-time --variant lib-new --only 70001 --only '[3, 2^16]' \
    | grep -v '^|---' | tail -12
  echo "== racecheck, [3, 2^16] holes excl rev, the routed path"
  timeout 20 compute-sanitizer --tool racecheck "$h" --no-time --variant lib-new --only '[3, 2^16]' | tail -8
fi
