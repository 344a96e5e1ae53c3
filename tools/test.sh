#!/usr/bin/env bash
# All the tests: build if needed, then GoogleTest and pytest through CTest; then the same CPU
# suite under ASan + UBSan and a short libFuzzer run per op (tools/dev/test_sanitize.sh, build-san);
# then the C++ tests of the Highway code cross-built for aarch64 and run under qemu-user, NEON-only
# and SVE (tools/dev/test_arm.sh, build-arm).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
# tools/setup_deps.sh (run by build.sh) installs real Paddle: its tests fail rather than skip.
export PADDLE_OPS_REQUIRE_PADDLE=1
ctest --test-dir build --output-on-failure
bash tools/dev/test_sanitize.sh
bash tools/dev/test_arm.sh
