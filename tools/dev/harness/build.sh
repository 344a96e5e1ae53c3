#!/usr/bin/env bash
# Builds a kernel harness (tools/dev/harness/<name>/<name>_harness.cu) with one nvcc call into
# build-harness/<name>_harness, for sm_90a unless HARNESS_ARCH says otherwise. Carry the binary
# to the GPU machine and run it there (tools/dev/harness/README.md).
set -euo pipefail
cd "$(dirname "$0")/../../.."
name=${1:?usage: build.sh <harness name, e.g. scan>}
arch=${HARNESS_ARCH:-sm_90a}
mkdir -p build-harness
nvcc -std=c++17 -O3 -arch="$arch" -lineinfo --expt-relaxed-constexpr -DFMT_HEADER_ONLY -I. \
  -Xcompiler -fopenmp -diag-suppress 20208 ${HARNESS_NVCC_FLAGS:-} \
  -o "build-harness/${name}_harness" "tools/dev/harness/${name}/${name}_harness.cu"
echo "built build-harness/${name}_harness"
