#!/usr/bin/env bash
# Builds a kernel harness (tools/dev/harness/<name>/<name>_harness.cu) with one nvcc call into
# build-harness/<name>_harness, for sm_90a unless HARNESS_ARCH says otherwise. Carry the binary
# to the GPU machine and run it there (tools/dev/harness/README.md).
#   build.sh <name>                              -> build-harness/<name>_harness
#   build.sh <name> <variant> <dir> [flags]      -> <dir>/<name>_<variant>: the variant's name
#                                                   printed in the header, its nvcc flags added
set -euo pipefail
cd "$(dirname "$0")/../../.."
name=${1:?usage: build.sh <harness name, e.g. scan> [<variant> <dir> [nvcc flags]]}
arch=${HARNESS_ARCH:-sm_90a}
flags=${HARNESS_NVCC_FLAGS:-}
[ $# -ge 3 ] && flags="$flags ${4:-} -DHARNESS_VARIANT=\"$2\""
mkdir -p build-harness
# shellcheck disable=SC2086  # the flags are words
nvcc -std=c++17 -O3 -arch="$arch" -lineinfo --expt-relaxed-constexpr -DFMT_HEADER_ONLY -I. \
  -Xcompiler -fopenmp -diag-suppress 20208 $flags \
  -o "build-harness/${name}_harness" "tools/dev/harness/${name}/${name}_harness.cu"
if [ $# -ge 3 ]; then
  mkdir -p "$3" && cp "build-harness/${name}_harness" "$3/${name}_$2"
  echo "built $3/${name}_$2"
else
  echo "built build-harness/${name}_harness"
fi
