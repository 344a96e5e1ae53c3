#!/usr/bin/env bash
# Build paddle_ops into build/ (configure on first use). Extra arguments go to the first
# cmake configure, e.g. `bash tools/build.sh -DWITH_GPU=OFF`.
#
# CUDA architectures: one, to keep the build (and CI, which compiles the CUDA code on 2 cores
# without a GPU) short: this machine's GPU where nvidia-smi sees one (CMake's "native"; sm_90a
# for a 9.x GPU), else sm_90a. PADDLE_OPS_CUDA_ARCHS overrides it; `pip install .` and a plain cmake configure build
# the full default list (CMakeLists.txt: sm_80, sm_86, sm_89, sm_90a and compute_80 PTX).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_deps.sh
if [ -z "${PADDLE_OPS_CUDA_ARCHS:-}" ]; then
  # A 9.x GPU (H100, H200) gets 90a-real: "native" would build plain sm_90, without the sm_90a
  # features (wgmma, TMA) that gla's Hopper kernels need.
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 || true)
  if [ -z "$cap" ]; then PADDLE_OPS_CUDA_ARCHS=90a-real
  elif [ "${cap%%.*}" = 9 ]; then PADDLE_OPS_CUDA_ARCHS=90a-real
  else PADDLE_OPS_CUDA_ARCHS=native; fi
fi
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPADDLE_OPS_CUDA_ARCHS="$PADDLE_OPS_CUDA_ARCHS" "$@"
fi
cmake --build build -j"$(nproc)"
