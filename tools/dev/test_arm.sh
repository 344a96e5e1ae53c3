#!/usr/bin/env bash
# The C++ tests of the CPU's Highway code on aarch64: cross-built with Debian's aarch64 compiler
# against the arm64 GoogleTest / Highway / fmt packages (multi-arch), and run under qemu-user
# twice: on a NEON-only CPU model (cortex-a72: the targets neon and emu128) and on qemu's `max`
# model (SVE2 with 512-bit vectors: the targets sve2, sve, neon and emu128, each forced in turn
# by PADDLE_OPS_CPU_ISA inside the tests). Only the sources those tests need are built (into
# build-arm/, with ccache where there is one), not the whole library: the step has to stay cheap
# in CI (docs/testing.md has its time).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/setup_deps.sh --arm
OUT=${PADDLE_OPS_ARM_BUILD:-build-arm}
mkdir -p "$OUT"
CXX=(aarch64-linux-gnu-g++)
if command -v ccache >/dev/null; then CXX=(ccache aarch64-linux-gnu-g++); fi
# The tests, and what they link. Each new Highway source and its test goes here.
SOURCES=(kernels/funcs/simd/convert.cc kernels/funcs/simd/cpu_isa.cc paddle_ops/common/flags.cc
         paddle_ops/common/common.cc unittests/cpp/test_convert.cc
         kernels/funcs/simd/scan_cumsum.cc kernels/funcs/cpu/scan_runtime.cc kernels/funcs/cpu/scan_simd_dispatch.cc
         paddle_ops/core/cpu_threads.cc unittests/cpp/test_scan_cumsum.cc
         kernels/gla/chunk_cpu.cc unittests/cpp/test_gla_cpu_chunk.cc)
export OUT
printf '%s\n' "${SOURCES[@]}" | xargs -P "$(nproc)" -I{} sh -c \
  'o="$OUT/$(echo {} | tr / _).o"; exec "$@" -std=c++17 -O2 -Wall -fopenmp -ffp-contract=off -I. -c {} -o "$o"' _ "${CXX[@]}"
OBJECTS=()
for s in "${SOURCES[@]}"; do OBJECTS+=("$OUT/$(echo "$s" | tr / _).o"); done
aarch64-linux-gnu-g++ "${OBJECTS[@]}" -o "$OUT/paddle_ops_arm_tests" -lgtest -lgtest_main -lhwy -lfmt -fopenmp -pthread
# One OpenMP thread (OMP_THREAD_LIMIT caps the kernels' num_threads(2) too): under this qemu-user
# a parallel region's second libgomp thread never runs and the first waits for it forever (a
# two-thread barrier alone hangs). The thread-count independence is tested natively.
for cpu in cortex-a72 max; do
  echo "test_arm: qemu-aarch64 -cpu $cpu"
  OMP_THREAD_LIMIT=1 qemu-aarch64 -cpu "$cpu" -L /usr/aarch64-linux-gnu "$OUT/paddle_ops_arm_tests" --gtest_brief=1
done
