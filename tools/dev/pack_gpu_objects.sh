#!/usr/bin/env bash
# Packs the CUDA objects of a GPU build here (default: build/, sm_90) into .dep/gpu_objs.tar.xz for
# tools/dev/gpu_machine.sh with PREBUILT=1, so a GPU machine with little time left builds only the
# host code. The objects must come from the same tree that is carried: this script rebuilds them
# first. Development only.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
cmake --build "$B" -j"$(nproc)" --target paddle_ops_obj
mkdir -p .dep
(cd "$B/CMakeFiles/paddle_ops_obj.dir" && find . -name '*.cu.o' | tar -cJf - -T -) > .dep/gpu_objs.tar.xz
ls -la .dep/gpu_objs.tar.xz
