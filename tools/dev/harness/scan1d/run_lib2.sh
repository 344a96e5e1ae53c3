#!/usr/bin/env bash
# The block tiles' near-0 fix (LseBlockTile::PreciseSums; branch r22-lseincl) on the GPU: scan1d
# built with -DSCAN1D_LIB as scan1d_lib (bash tools/dev/harness/build.sh scan1d lib <dir>
# -DSCAN1D_LIB; copy this script beside it as run.sh). Every variant checked against the float64
# reference on the awkward cases, the crossing cases included (test_logcumsumexp_accuracy.py's
# crossing_data: [2, 70000] in all four modes, 1-D 1000003): lib-new and lib-new init must pass,
# the harness's own variants (b512i16mb2i1s: the first version's arithmetic; b256i16mb4) may FAIL
# them; then the routed path
# checked on the benchmark shapes, a timing round (unchecked, bitwise-compared) of lib-new against
# lib-old and b512i16mb2i1s on the benchmark shapes and 1-D 2^22 at -30 (every tile on float64
# sums), and compute-sanitizer memcheck and racecheck on small cases. At most 150 s, each step
# under its own timeout. Run from the repository root on the device machine: bash <dir>/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_lib"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== awkward cases, every variant: checked (the harness variants may FAIL the cross cases; lib-* must not)"
timeout 35 "$h" --no-time --skip cumsum --only cross --only 1000003 --only 70001 --only '2^22 neg' --only '[3, 2^16]'
echo "== benchmark shapes, the routed path: checked"
timeout 35 "$h" --no-time --variant lib-new --only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]'
echo "== timing round (unchecked, bitwise-compared): lib-old, lib-new, b512i16mb2i1s"
timeout 25 "$h" --no-check --variant lib-old --variant lib-new --variant b512i16mb2i1s --skip-variant init \
  --only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]' --only 'lse f32 [4096, 16384]' --only '2^22 neg'
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small cases, the routed path"
  timeout 25 compute-sanitizer --tool memcheck "$h" --no-time --variant lib-new --only 70001 --only '[3, 2^16]' \
    | grep -v '^|---' | tail -12
  echo "== racecheck, [3, 2^16] holes excl rev and [2, 70000] cross, the routed path"
  timeout 30 compute-sanitizer --tool racecheck "$h" --no-time --variant lib-new --only '[3, 2^16]' \
    --only '[2, 70000] cross excl rev' | tail -8
fi
