#!/usr/bin/env bash
# Builds the flood harness's variants (one nvcc call each, tools/dev/harness/build.sh) into
# $HARNESS_OUT (default .dev/flood) with run.sh beside them. Variants: the compile-time knobs of
# kernels/gpu/flood_tiles.cuh (PO_FLOOD_MIN_BLOCKS, PO_FLOOD_GRAD_MIN_BLOCKS, PO_FLOOD_U), and
# "before": the tiles of the commit $HARNESS_BEFORE (default main), built from a copy of that tree.
# Run on the GPU machine: carry [".dev/flood"], command .dev/flood/run.sh [harness options].
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${HARNESS_OUT:-.dev/flood}
mkdir -p "$out"
build() { bash tools/dev/harness/build.sh flood "$1" "$out" "$2"; }  # name, flags
[ -n "${HARNESS_NO_LIB:-}" ] || build lib ""
for v in ${HARNESS_VARIANTS:-}; do  # name:flags, e.g. mb4:-DPO_FLOOD_MIN_BLOCKS=4
  build "${v%%:*}" "$(echo "${v#*:}" | tr ',' ' ')"
done
if [ -n "${HARNESS_BEFORE:-}" ]; then
  tmp=$(mktemp -d)
  git archive "$HARNESS_BEFORE" | tar -x -C "$tmp"
  mkdir -p "$tmp/tools/dev/harness/flood" "$tmp/build-harness"
  cp tools/dev/harness/flood/flood_harness.cu "$tmp/tools/dev/harness/flood/"
  cp tools/dev/harness/harness.cuh "$tmp/tools/dev/harness/"
  (cd "$tmp" && nvcc -std=c++17 -O3 -arch="${HARNESS_ARCH:-sm_90a}" -lineinfo --expt-relaxed-constexpr -DFMT_HEADER_ONLY -I. \
     -Xcompiler -fopenmp -diag-suppress 20208 -DHARNESS_VARIANT='"before"' -o build-harness/flood_harness \
     tools/dev/harness/flood/flood_harness.cu >/dev/null 2>&1)
  cp "$tmp/build-harness/flood_harness" "$out/flood_before"
  rm -rf "$tmp"
  echo "built $out/flood_before ($HARNESS_BEFORE)"
fi
cp tools/dev/harness/flood/run.sh "$out/run.sh"
