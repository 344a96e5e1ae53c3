#!/usr/bin/env bash
# Build paddle_ops into build/ (configure on first use). Extra arguments go to the first
# cmake configure, e.g. `bash tools/build.sh -DWITH_GPU=OFF`.
#
# CUDA architectures: one, to keep the build (and CI, which compiles the CUDA code on 2 cores
# without a GPU) short: this machine's GPU where nvidia-smi sees one (CMake's "native"), else
# sm_90a. PADDLE_OPS_CUDA_ARCHS overrides it; `pip install .` and a plain cmake configure build
# the full default list (CMakeLists.txt: sm_80, sm_86, sm_89, sm_90a and compute_80 PTX).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_deps.sh
if [ -z "${PADDLE_OPS_CUDA_ARCHS:-}" ]; then
  if nvidia-smi -L >/dev/null 2>&1; then PADDLE_OPS_CUDA_ARCHS=native; else PADDLE_OPS_CUDA_ARCHS=90a-real; fi
fi
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPADDLE_OPS_CUDA_ARCHS="$PADDLE_OPS_CUDA_ARCHS" "$@"
fi
cmake --build build -j"$(nproc)"
