#!/usr/bin/env bash
# The third scan1d set's GPU run (tools/dev/harness/README.md, "1-D single-pass variants", built
# with -DSCAN1D_SET3 as scan1d_set3): every variant checked on the awkward cases (the newest,
# kStep1 / kSpread / kExact, first and under their own timeout), an unchecked timing round on the
# four benchmark shapes (two runs still compared bitwise: NONDET; the new variants and the others
# under separate timeouts, so that a hang costs one half), then compute-sanitizer
# (memcheck on three awkward cases, racecheck on [3, 70001]; the look-back variants, no -spin).
# At most 190 s, each step under its own timeout. Run from the repository root on the device
# machine: bash .dev/scan1d3/run.sh
set -u
d=$(dirname "$0")
h="$d/scan1d_set3"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
new=(--variant mb4i1 --variant mb2i1 --variant mb3i1 --variant mb4fi1 --variant mb4x --variant mb2x --variant mb3x)
awk=(--only 1000003 --only 70001 --only '2^22 neg')
echo "== scan1d set 3, kStep1 (i1), kSpread (i1s), kExact (x): checked"
timeout 45 "$h" "${awk[@]}" "${new[@]}"
echo "== scan1d set 3, the tree, nolb (diag) and kIncl (i): checked"
timeout 40 "$h" "${awk[@]}" --skip-variant mb4i1 --skip-variant mb2i1 --skip-variant mb3i1 --skip-variant mb4fi1 --skip-variant x
shapes=(--no-check --only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]' --only 'cumsum f32 1-D 2^26'
  --only 'cumsum f32 [64, 2^20]' --skip '2^26 excl')
echo "== timing round (unchecked, bitwise-compared), the new variants"
timeout 30 "$h" "${shapes[@]}" "${new[@]}"
echo "== timing round (unchecked, bitwise-compared), the others"
timeout 25 "$h" "${shapes[@]}" --skip-variant mb4i1 --skip-variant mb2i1 --skip-variant mb3i1 --skip-variant mb4fi1 \
  --skip-variant x
if command -v compute-sanitizer > /dev/null; then
  lb=(--variant mb4i --variant mb2i --variant mb3i --variant mb4fi --variant mb2fi --variant mb4x --variant mb2x --variant mb3x
    --skip-variant spin)
  echo "== memcheck, three awkward cases, look-back variants"
  timeout 30 compute-sanitizer --tool memcheck "$h" --no-time --checked-only --only 'holes excl' --only 70001 \
    --only 'cumsum f32 1-D 1000003' "${lb[@]}" | grep -v '^|---' | tail -40
  echo "== racecheck, [3, 70001], look-back variants"
  timeout 20 compute-sanitizer --tool racecheck "$h" --no-time --only 70001 "${lb[@]}" | tail -8
fi
