#!/usr/bin/env bash
# The scan1d variants' GPU run (tools/dev/harness/README.md, "1-D single-pass variants"): every
# variant checked and timed on every case, the library's own path on the same shapes (the scan
# harness, when built beside it), then compute-sanitizer on the awkward cases. Run from the
# folder's parent's parent (the repository root on the device machine): .dev/scan1d/run.sh
set -u
d=$(dirname "$0")
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
echo "== scan1d variants (checked)"
timeout "${HARNESS_LIMIT:-240}" "$d/scan1d_harness" "$@"
if [ -x "$d/scan_harness" ]; then
  echo "== the library's path, same shapes (unchecked)"
  timeout 90 "$d/scan_harness" --no-compare --no-check --only 'lse f32 1-D 2^26' --only 'lse f32 [64, 2^20]' \
    --only 'lse f32 [4096, 16384]' --only 'cumsum f32 1-D 2^26' --only 'cumsum f32 [64, 2^20]' \
    --only 'cumsum f32 [4096, 16384]'
fi
echo "== scan1d variants, unchecked second round (timing)"
timeout 90 "$d/scan1d_harness" --no-check --only 2^26 --only 2^20 --only 16384
if command -v compute-sanitizer > /dev/null; then
  echo "== memcheck / racecheck, awkward cases"
  timeout 60 compute-sanitizer --tool memcheck "$d/scan1d_harness" --only 1000003 --only 70001 | tail -4
  timeout 60 compute-sanitizer --tool racecheck "$d/scan1d_harness" --only 70001 --variant b256i16mb4p | tail -4
fi
