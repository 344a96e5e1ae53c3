#!/usr/bin/env bash
# All the tests: build if needed, then GoogleTest and pytest through CTest; then the same CPU
# suite under ASan + UBSan and a short libFuzzer run per op (tools/dev/test_sanitize.sh, build-san).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
ctest --test-dir build --output-on-failure
bash tools/dev/test_sanitize.sh
