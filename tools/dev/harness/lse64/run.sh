#!/usr/bin/env bash
# float64 logcumsumexp's tiles (kernels/gpu/logcumsumexp_f64_tiles.cuh) on the GPU, with the lse64
# harness built beside this script in three variants (tools/dev/harness/README.md, "lse64"):
#   lse64_lse64  PO_LSE_F64_ROWS=1, PO_LSE_F64_WARP=1 (block tiles and warp rows)
#   lse64_warp0  PO_LSE_F64_WARP=0 (the generic warp steps: its "old" is the library's float64 path
#                before this branch)
#   lse64_mb3    PO_LSE_F64_WARP=1 with the float64 row and column kernels compiled for 3 blocks an
#                SM (PO_LSE_F64_MIN_BLOCKS=3: 80 registers, spills), lse64_mb4 for 4 (64 registers)
# Every variant checked against the long double reference on the awkward cases in every
# exclusive/reverse mode and with a carry-in (two runs bitwise), then the benchmark rows checked
# and timed against a copy of the same tensor, then compute-sanitizer memcheck and racecheck on
# small cases. About 170 s (at most 195), each step under its own timeout. From the repository root on the
# device machine: bash <dir>/run.sh
set -u
d=$(dirname "$0")
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader 2> /dev/null
bench=(--only 'D 2^26' --only '[64, 2^20]' --only '[4096, 16384]')
skipb=(--skip 'D 2^26' --skip '[64, 2^20]' --skip '[4096, 16384]')
echo "== awkward cases, every variant, new tiles: checked, two runs bitwise"
timeout 45 "$d/lse64_lse64" --no-time "${skipb[@]}"
echo "== awkward row cases, the generic warp steps (old) and lib"
timeout 20 "$d/lse64_warp0" --no-time --only rows --only seg --variant old --variant lib
echo "== benchmark rows: checked and timed (x copy of the same tensor), new tiles"
timeout 40 "$d/lse64_lse64" "${bench[@]}"
echo "== benchmark rows, timed only: the generic warp steps (old = the library's float64 path before)"
timeout 15 "$d/lse64_warp0" --no-check "${bench[@]}" --variant old --variant lib
echo "== benchmark rows, timed only: warp rows at 3 and 4 blocks an SM"
timeout 15 "$d/lse64_mb3" --no-check "${bench[@]}" --variant old --variant lib
timeout 15 "$d/lse64_mb4" --no-check "${bench[@]}" --variant old --variant lib
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small 70001 and seg [7, 9000] (every mode, a carry-in), lib and b256i16mb3"
  timeout 25 compute-sanitizer --tool memcheck "$d/lse64_lse64" --no-time --only 'small 70001' --only 'seg [7' \
    --variant lib --variant b256i16mb3 | grep -v '^|---' | tail -12
  echo "== racecheck, small 70001 excl rev, b256i16mb3"
  timeout 20 compute-sanitizer --tool racecheck "$d/lse64_lse64" --no-time --only 'small 70001 excl rev' \
    --variant b256i16mb3 | tail -6
fi
