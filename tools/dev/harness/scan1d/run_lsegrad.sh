#!/usr/bin/env bash
# logcumsumexp's float32 gradient on the block tiles (LseGradBlockTile; branch r22-lsegrad) on the
# GPU: scan1d built with -DSCAN1D_LIB as scan1d_lsegrad (bash tools/dev/harness/build.sh scan1d
# lsegrad <dir> -DSCAN1D_LIB; copy this script beside it as run.sh). The gradient variants
# (lib-grad-old: the warp segments' telescoped tiles; lib-grad-new: the routed path;
# grad-b512i8mb2, grad-b256i16mb3: the block tiles in other shapes) checked against the long
# double recurrence on the awkward cases (-inf runs, NaN, +inf, near 0, crossing data, lengths
# off the vector width), the routed path on the benchmark shapes, a timing round (unchecked,
# bitwise-compared) on 1-D 2^26, [64, 2^20], [4096, 16384] (many rows: the block tiles only
# through grad-b*) and the threshold's grid, then compute-sanitizer memcheck and racecheck on
# small cases. At most 150 s, each step under its own timeout. Run from the repository root on
# the device machine: bash <dir>/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_lsegrad"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== gradient, awkward cases, every gradient variant: checked"
timeout 30 "$h" --no-time --variant grad --only 'grad f32 1-D 1000003' --only 'grad f32 [3, 70001]' \
  --only 'grad f32 [2, 70000]' --only 'grad f32 [3, 2^16]' --only 'grad f32 1-D 2^22 neg'
echo "== gradient, benchmark shapes, the routed path: checked"
timeout 40 "$h" --no-time --variant lib-grad-new --only 'grad f32 1-D 2^26' --only 'grad f32 [64, 2^20]' \
  --skip 'excl rev'
echo "== gradient timing round (unchecked, bitwise-compared): every gradient variant"
timeout 35 "$h" --no-check --variant grad --only 'grad f32 1-D 2^26' --only 'grad f32 [64, 2^20]' \
  --only 'grad f32 [4096, 16384]' --only 'grad f32 [128, 2^16] grid' --only 'grad f32 [256, 2^16] grid' \
  --only 'grad f32 [512, 2^18] grid' --skip 'excl rev'
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small cases, the routed path"
  timeout 20 compute-sanitizer --tool memcheck "$h" --no-time --variant lib-grad-new --only 'grad f32 [3, 70001]' \
    --only 'grad f32 [3, 2^16]' | grep -v '^|---' | tail -12
  echo "== racecheck, [3, 2^16] holes excl rev and [2, 70000] cross excl rev, the routed path"
  timeout 25 compute-sanitizer --tool racecheck "$h" --no-time --variant lib-grad-new \
    --only 'grad f32 [3, 2^16] holes' --only 'grad f32 [2, 70000] cross excl rev' | tail -8
fi
