#!/usr/bin/env bash
# All the tests: build if needed, then GoogleTest and pytest through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
ctest --test-dir build --output-on-failure
