#!/usr/bin/env bash
# logcumsumexp's float32 gradient routed to the block tiles on more rows (branch r23-gradroute:
# LseGradBlockTile<512, 16> with kStash for the forward's rule, kStash off for every other row
# of PO_LSE_GRAD_BLOCK_MIN_LENGTH = 8192 steps or more, whatever their count) on the GPU:
# scan1d built with -DSCAN1D_LIB as scan1d_gradroute (HARNESS_NVCC_FLAGS="-Xptxas -v" bash
# tools/dev/harness/build.sh scan1d gradroute <dir> -DSCAN1D_LIB; copy this script beside it as
# run.sh). Every gradient variant (lib-grad-old: the path before the block tiles; lib-grad-new:
# this routing; grad-b*: the block tiles launched directly, other shapes and kStash on/off)
# checked against the long double recurrence on the awkward cases (-inf runs, NaN, +inf, near
# 0, crossing data, lengths off the vector width, one tile a row); the two library paths checked
# at the routing's edges (rows 129, 200 and 3072; lengths 8188, 8192, 8195, 8196, 16387, 16388,
# 20000; every exclusive/reverse mode on crossing data) and on [4096, 16384]; a timing round
# (unchecked, bitwise-compared) on [64, 2^20], [4096, 16384] and the grid (rows of 1024 to 2^16
# steps, 128 to 2^16 rows, and [2048, 12288], [4096, 8200]: a second tile half full and of 8
# steps; 1-D 2^26, routed as before, left out: its reference is one long double line);
# compute-sanitizer memcheck and racecheck on small routed cases (one tile a row among them);
# where scan1d_gradroute_expm1 lies beside it (the same build with "-DSCAN1D_LIB
# -DPO_LSE_GRAD_GATE_EXPF=0" as variant gradroute_expm1: every gate 1 + expm1f, as before),
# lib-grad-new timed by both binaries, the cost of taking the gates below 1/2 as expf. Each step
# under its own timeout, at most 475 s in all (about 250 expected). Run from the repository
# root on the device machine: bash <dir>/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_gradroute"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== gradient, awkward cases, every gradient variant: checked"
timeout 75 "$h" --no-time --variant grad --only 'grad f32 1-D 1000003' --only 'grad f32 [3, 70001]' \
  --only 'grad f32 [2, 70000]' --only 'grad f32 [3, 2^16]' --only 'grad f32 1-D 2^22 neg' \
  --only 'grad f32 [3, 20000]' --only 'grad f32 [4, 16388]' --only 'grad f32 [5, 8192]'
echo "== gradient, the routing's edges and [4096, 16384], lib-grad-new and lib-grad-old: checked"
timeout 70 "$h" --no-time --variant lib-grad --only 'grad f32 [200, ' --only 'grad f32 [129, 2^16]' \
  --only 'grad f32 [3072, ' --only 'grad f32 [4096, 16384] last'
echo "== gradient timing round (unchecked, bitwise-compared): every gradient variant"
timeout 120 "$h" --no-check --variant grad --only 'grad f32 [64, 2^20]' \
  --only 'grad f32 [4096, 16384]' --only 'grid' --skip 'excl rev' --skip 'lse f32' --skip '[512, 2^18]'
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small cases, the routed path and the smaller forced tiles"
  timeout 30 compute-sanitizer --tool memcheck "$h" --no-time --variant lib-grad-new --variant grad-b128i8 \
    --variant grad-b256i8 --only 'grad f32 [3, 20000]' --only 'grad f32 [4, 16388]' --only 'grad f32 [5, 8192]' |
    grep -v '^|---' | tail -17
  echo "== racecheck, [3, 20000] near0 excl, [4, 16388] holes rev and [5, 8192] holes excl rev, the same variants"
  timeout 30 compute-sanitizer --tool racecheck "$h" --no-time --variant lib-grad-new --variant grad-b128i8 \
    --variant grad-b256i8 --only 'grad f32 [4, 16388]' --only 'grad f32 [3, 20000]' --only 'grad f32 [5, 8192]' |
    tail -13
fi
if [ -x "$d/scan1d_gradroute_expm1" ]; then
  echo "== the gates below 1/2 as expf (gradroute) against 1 + expm1f throughout (gradroute_expm1): lib-grad-new, timed"
  for b in scan1d_gradroute scan1d_gradroute_expm1 scan1d_gradroute; do
    timeout 50 "$d/$b" --no-check --variant lib-grad-new --only 'grad f32 1-D 2^26' --only 'grad f32 [4096, 16384]' \
      --only 'grad f32 [8192, 8192]' --only 'grad f32 [128, 2^16]' --skip 'excl rev' | grep -v '^|---'
  done
fi
