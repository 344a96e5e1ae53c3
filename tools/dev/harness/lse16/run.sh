#!/usr/bin/env bash
# float16/bfloat16 logcumsumexp on the lean16 fast paths (branch r23-lsehalf): the lse16 kernel
# harness (tools/dev/harness/lse16) built twice for sm_90a, lse16_new (-DPO_LSE16_FAST=1) and
# lse16_old (-DPO_LSE16_FAST=0, the 16-bit paths before). (A third build, lse16_nofirst,
# -DPO_LSE16_FIRST=0, timed the lines' first chunks/groups off; they lost on the H200 and were
# removed from the library, 2026-11-30.) Run on the device machine from the
# repository root: bash .dev/lsehalf/run.sh (carry [".dev/lsehalf"]); at most ~190 s, each step
# under its own timeout.
set -u
d=$(dirname "$0")
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
echo "== new: five benchmark shapes (checked, timed x copy; f32 rows x their own copy, unchecked)"
timeout 35 "$d/lse16_new" --only '1-D 2^26' --only '[4096, 16384]' --only '[16384, 4096]' --only '[2^20, 64]' \
  --only '[32, 4, 2048, 128]'
echo "== old: the same shapes (checked, timed)"
timeout 25 "$d/lse16_old" --no-f32 --only '1-D 2^26 normal' --only '[4096, 16384] last normal' \
  --only '[16384, 4096] axis 0 normal' --only '[2^20, 64] last normal' --only '[32, 4, 2048, 128] axis 2 normal'
echo "== new: awkward cases on every path (checked; FAIL rows and a count)"
timeout 45 "$d/lse16_new" --small --no-time > /tmp/lse16_small.txt 2>&1
echo "rc=$? rows=$(grep -c '^| lse' /tmp/lse16_small.txt) fail=$(grep -c 'FAIL' /tmp/lse16_small.txt)"
grep -E 'FAIL|NONDET|error' /tmp/lse16_small.txt | head -40
echo "-- worst ulp per dtype (new)"
for t in f16 bf16; do grep "^| lse $t " /tmp/lse16_small.txt | sort -t'|' -k7 -g | tail -3; done
echo "== old: the same awkward cases (checked; counts only: what the older paths give)"
timeout 30 "$d/lse16_old" --small --no-time > /tmp/lse16_small_old.txt 2>&1
echo "rc=$? rows=$(grep -c '^| lse' /tmp/lse16_small_old.txt) fail=$(grep -c 'FAIL' /tmp/lse16_small_old.txt)"
[ -n "${OUT:-}" ] && cp /tmp/lse16_small.txt /tmp/lse16_small_old.txt "$OUT/" 2>/dev/null
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck, small cases (block tiles, staged rows, row groups, columns)"
  timeout 20 compute-sanitizer --tool memcheck "$d/lse16_new" --small --no-time --only '[3, 70001] specials' \
    --only '[2^14, 64] normal' --only '[4096, 1000] near0' --only '[16, 5000, 8] axis 1 single' | tail -6
  echo "== racecheck, [3, 70001] specials and [2^14, 64] near0"
  timeout 20 compute-sanitizer --tool racecheck "$d/lse16_new" --small --no-time --only '[3, 70001] specials excl rev' \
    --only '[2^14, 64] near0 excl rev' | tail -4
fi
