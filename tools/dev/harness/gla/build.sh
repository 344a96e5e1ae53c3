#!/usr/bin/env bash
# Builds the gla kernel harness (gla_harness.cu) with one nvcc call into build-harness/gla_harness
# for sm_90a. CuTe/CUTLASS headers: $CUTLASS_INCLUDE, else the nvidia-cutlass wheel's
# cutlass_library/source/include in this Python's site-packages (tools/setup_deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
if [ -z "${CUTLASS_INCLUDE:-}" ]; then
  site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  CUTLASS_INCLUDE="$site/cutlass_library/source/include"
fi
[ -f "$CUTLASS_INCLUDE/cute/tensor.hpp" ] || { echo "no CuTe headers under $CUTLASS_INCLUDE" >&2; exit 1; }
mkdir -p build-harness
nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -lineinfo --expt-relaxed-constexpr \
  -I. -I"$CUTLASS_INCLUDE" -Xptxas -v ${HARNESS_NVCC_FLAGS:-} \
  -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc \
  -o build-harness/gla_harness tools/dev/harness/gla/gla_harness.cu -lcuda
echo "built build-harness/gla_harness"
