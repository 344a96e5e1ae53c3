#!/usr/bin/env bash
# float64 logcumsumexp's block tiles (kernels/gpu/logcumsumexp_f64_tiles.cuh) on the GPU, with the
# lse64 harness built beside this script (bash tools/dev/harness/build.sh lse64 lse64 <dir>; copy
# this script to <dir>): every variant ("old" the engine's generic single pass, the library's
# float64 path before; "lib" the routed block tiles; the block tiles' shapes launched directly)
# checked against the long double reference on the awkward cases in every exclusive/reverse mode
# and with a carry-in, then the benchmark rows checked and timed against a copy, then
# compute-sanitizer memcheck and racecheck on a small case. About 150 s, each step under its own
# timeout. Run from the repository root on the device machine: bash <dir>/run.sh
set -u
d=$(dirname "$0")
h="$d/lse64_lse64"
[ -x "$h" ] || h="$d/lse64_harness"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader 2> /dev/null
echo "== awkward cases, every variant: checked, two runs bitwise"
timeout 60 "$h" --no-time --skip 'D 2^26' --skip '[64, 2^20]' --skip '[4096, 16384]'
echo "== benchmark rows: checked and timed (x copy of the same tensor)"
timeout 75 "$h" --only 'D 2^26' --only '[64, 2^20]' --only '[4096, 16384]'
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small 70001 (every mode, a carry-in), lib and b256i16mb3"
  timeout 30 compute-sanitizer --tool memcheck "$h" --no-time --only 'small 70001' --variant lib --variant b256i16mb3 \
    | grep -v '^|---' | tail -12
  echo "== racecheck, small 70001 excl rev, b256i16mb3"
  timeout 25 compute-sanitizer --tool racecheck "$h" --no-time --only 'small 70001 excl rev' --variant b256i16mb3 | tail -6
fi
