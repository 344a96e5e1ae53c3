#!/usr/bin/env bash
# logcumsumexp's float32 gradient routed to the block tiles on more rows (branch r23-gradroute:
# LseGradBlockTile<512, 16> with kStash for the forward's rule, kStash off for every other row
# of PO_LSE_GRAD_BLOCK_MIN_LENGTH = 16384 steps or more, whatever their count) on the GPU:
# scan1d built with -DSCAN1D_LIB as scan1d_gradroute (HARNESS_NVCC_FLAGS="-Xptxas -v" bash
# tools/dev/harness/build.sh scan1d gradroute <dir> -DSCAN1D_LIB; copy this script beside it as
# run.sh). Every gradient variant (lib-grad-old: the path before the block tiles; lib-grad-new:
# this routing; grad-b*: the block tiles launched directly, other shapes and kStash on/off)
# checked against the long double recurrence on the awkward cases (-inf runs, NaN, +inf, near
# 0, crossing data, lengths off the vector width); the two library paths checked at the new
# routing's edges (rows 129, 200 and 3072, lengths 16380, 16384, 16387, 16388, 20000, every
# exclusive/reverse mode on crossing data) and on [4096, 16384]; a timing round (unchecked,
# bitwise-compared) on [64, 2^20] (a tie with this morning's run), [4096, 16384] and the grid
# (rows of 1024 to 2^16 steps, 128 to 2^16 rows; 1-D 2^26, routed as before, left out: its
# reference is one long double line); compute-sanitizer memcheck and racecheck on small routed
# cases. Each step under its own timeout, at most 210 s in all (about 120 expected). Run from the
# repository root on the device machine: bash <dir>/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_gradroute"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== gradient, awkward cases, every gradient variant: checked"
timeout 30 "$h" --no-time --variant grad --only 'grad f32 1-D 1000003' --only 'grad f32 [3, 70001]' \
  --only 'grad f32 [2, 70000]' --only 'grad f32 [3, 2^16]' --only 'grad f32 1-D 2^22 neg' \
  --only 'grad f32 [3, 20000]' --only 'grad f32 [4, 16388]'
echo "== gradient, the new routing's edges and [4096, 16384], lib-grad-new and lib-grad-old: checked"
timeout 60 "$h" --no-time --variant lib-grad --only 'grad f32 [200, 163' --only 'grad f32 [129, 2^16]' \
  --only 'grad f32 [3072, 163' --only 'grad f32 [4096, 16384] last'
echo "== gradient timing round (unchecked, bitwise-compared): every gradient variant"
timeout 80 "$h" --no-check --variant grad --only 'grad f32 [64, 2^20]' \
  --only 'grad f32 [4096, 16384]' --only 'grid' --skip 'excl rev' --skip 'lse f32' --skip '[512, 2^18]'
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small cases, the routed path and the smaller forced tiles"
  timeout 20 compute-sanitizer --tool memcheck "$h" --no-time --variant lib-grad-new --variant grad-b128i8 \
    --variant grad-b256i8 --only 'grad f32 [3, 20000]' --only 'grad f32 [4, 16388]' | grep -v '^|---' | tail -14
  echo "== racecheck, [4, 16388] holes rev and [3, 20000] near0 excl, the same variants"
  timeout 20 compute-sanitizer --tool racecheck "$h" --no-time --variant lib-grad-new --variant grad-b128i8 \
    --variant grad-b256i8 --only 'grad f32 [4, 16388]' --only 'grad f32 [3, 20000]' | tail -10
fi
