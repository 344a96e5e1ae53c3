#!/usr/bin/env bash
# The float32 logcumsumexp gradient's columns (branch r23-gradcols, issue 29), on one H200
# (device tool: carry [".dev/gradcols"], command `bash .dev/gradcols/run.sh`, <= 200 s).
# gradcols_new: the harness built with -DPO_LSE_GRAD_COLS=1 (its `lib` rows: the library's route
# on LseGradColumns); gradcols_old: with 0 (its `lib` rows: the library as on main). Both hold the
# side-by-side three-phase variants (3p old = the telescoped steps as the library ran them).
# Build: tools/dev/harness/README.md, "logcumsumexp's float32 gradient on columns" (BUILT: the
# commit the binaries were built from).
cd "$(dirname "$0")" || exit 1
echo "built from: $(cat BUILT 2>/dev/null)"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SAN=compute-sanitizer
command -v $SAN >/dev/null || SAN=/usr/local/cuda/bin/compute-sanitizer
echo "== memcheck / racecheck, --small (new binary)"
timeout 30 $SAN --tool memcheck --leak-check full --error-exitcode 9 ./gradcols_new --small | tail -12; echo "memcheck rc ${PIPESTATUS[0]}"
timeout 25 $SAN --tool racecheck --error-exitcode 9 ./gradcols_new --small | tail -4; echo "racecheck rc ${PIPESTATUS[0]}"
echo "== new binary: the benchmark shapes (every variant), then the awkward cases"
timeout 110 ./gradcols_new; echo "rc $?"
echo "== old binary: the library of main on the benchmark shapes (timing and checks)"
timeout 25 ./gradcols_old --lib-only --only '[16384, 4096] axis 0' --only '[32, 4, 2048, 128] axis 2'; echo "rc $?"
