#!/usr/bin/env bash
# Build paddle_ops into build/ (configure on first use). Extra arguments go to the first
# cmake configure, e.g. `bash tools/build.sh -DWITH_GPU=OFF`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup_deps.sh
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build build -j"$(nproc)"
