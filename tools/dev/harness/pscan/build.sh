#!/usr/bin/env bash
# Builds pscan's harness binaries into $HARNESS_OUT (default .dev/pscan) with run.sh beside
# them: pscan_lib (the tiles as the library builds them, the one-pass configurations launched
# directly beside them), pscan_lib1p (-DPO_PSCAN_ONEPASS=1: the library's column launch takes
# the one pass) and the host emulation pscan_onepass_emu (g++). One nvcc call each
# (tools/dev/harness/build.sh). Run on the GPU machine: carry [".dev/pscan"], command
# .dev/pscan/run.sh.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${HARNESS_OUT:-.dev/pscan}
mkdir -p "$out"
build() { bash tools/dev/harness/build.sh pscan "$1" "$out" "$2"; }  # name, flags
build lib ""
build lib1p "-DPO_PSCAN_ONEPASS=1"
g++ -O2 -std=c++17 -I. -o "$out/pscan_onepass_emu" tools/dev/harness/pscan/onepass_emu.cc
echo "built $out/pscan_onepass_emu"
cp tools/dev/harness/pscan/run.sh "$out/run.sh"
