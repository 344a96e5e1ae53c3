#!/usr/bin/env bash
# Builds a gla kernel harness with one nvcc call for sm_90a: `build.sh` (or `build.sh fwd`) the
# forward's, gla_harness.cu -> build-harness/gla_harness (and run_fwd_plan.sh beside it, and the split's
# host check, split_host_check.cc -> build-harness/gla_split_host_check); `build.sh bwd` the backward's,
# gla_bwd_harness.cu -> build-harness/gla_bwd_harness (and its host check, bwd_host_check.cc ->
# build-harness/gla_bwd_host_check, and run_bwd.sh as run.sh beside them). CuTe/CUTLASS headers: $CUTLASS_INCLUDE, else the
# nvidia-cutlass wheel's cutlass_library/source/include in this Python's site-packages
# (tools/setup_deps.sh installs it). $HARNESS_OUT: another output folder.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
if [ -z "${CUTLASS_INCLUDE:-}" ]; then
  site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  CUTLASS_INCLUDE="$site/cutlass_library/source/include"
fi
[ -f "$CUTLASS_INCLUDE/cute/tensor.hpp" ] || { echo "no CuTe headers under $CUTLASS_INCLUDE" >&2; exit 1; }
out=${HARNESS_OUT:-build-harness}
mkdir -p "$out"
which=${1:-fwd}
case "$which" in
  fwd) src=gla_harness.cu; bin=gla_harness
       g++ -O2 -std=c++17 -o "$out/gla_split_host_check" tools/dev/harness/gla/split_host_check.cc
       cp tools/dev/harness/gla/run_fwd_plan.sh "$out/run_fwd_plan.sh" ;;
  bwd) src=gla_bwd_harness.cu; bin=gla_bwd_harness
       g++ -O2 -std=c++17 -I. -static-libstdc++ -static-libgcc -o "$out/gla_bwd_host_check" tools/dev/harness/gla/bwd_host_check.cc
       cp tools/dev/harness/gla/run_bwd.sh "$out/run.sh" ;;
  *) echo "usage: build.sh [fwd|bwd]" >&2; exit 1 ;;
esac
nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -lineinfo --expt-relaxed-constexpr \
  -I. -I"$CUTLASS_INCLUDE" -Xptxas -v ${HARNESS_NVCC_FLAGS:-} \
  -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc \
  -o "$out/$bin" "tools/dev/harness/gla/$src" -lcuda
echo "built $out/$bin"
