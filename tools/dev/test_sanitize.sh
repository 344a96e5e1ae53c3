#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer + UndefinedBehaviorSanitizer, and a short libFuzzer
# run per op: a clang build in build-san (-DWITH_GPU=OFF -DPADDLE_OPS_SANITIZE=ON
# -DPADDLE_OPS_FUZZ=ON, -O1), then its CTest: cpp_tests (GoogleTest), python_tests (the whole
# pytest suite through the instrumented module, the ASan runtime preloaded) and fuzz_<op>
# (PADDLE_OPS_FUZZ_SECONDS per op, default 15, from the seed corpus). Any sanitizer report
# aborts its test (no recovery), so a finding fails the run.
# Called by tools/test.sh; on its own: bash tools/dev/test_sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/setup_deps.sh
FUZZ_SECONDS=${PADDLE_OPS_FUZZ_SECONDS:-15}
if [ ! -f build-san/CMakeCache.txt ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CC=clang CXX=clang++ cmake -S . -B build-san -DWITH_GPU=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DPADDLE_OPS_SANITIZE=ON -DPADDLE_OPS_FUZZ=ON \
    "${launcher[@]}" >/dev/null
fi
cmake -S . -B build-san -DPADDLE_OPS_FUZZ_SECONDS="$FUZZ_SECONDS" >/dev/null
cmake --build build-san -j"$(nproc)"
export UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-san --output-on-failure
