#!/usr/bin/env bash
# The CPU kernels on CPUs older than this one, under qemu-user's emulated CPU models: qemu traps an
# instruction the model lacks (SIGILL), so a path that reaches past what the CPU's CPUID reports,
# e.g. an inline function compiled in an AVX2/AVX-512 object and kept by the linker for baseline
# callers, fails here. Westmere: no AVX, F16C or FMA (the baseline paths); Haswell: AVX2, FMA and
# F16C, no AVX-512 (the avx2 paths). qemu-user passes the host's /proc/cpuinfo through: the tests
# ask the library's own CPUID check (paddle_ops._cpu_info.library_isa). Development only, about
# 5 minutes per model on 2 cores (not in CI):
#   bash tools/dev/old_cpu_check.sh [build-dir] [model ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}; shift || true
models=("$@"); [ ${#models[@]} -gt 0 ] || models=(Westmere Haswell)
command -v qemu-x86_64 >/dev/null || { SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo; $SUDO apt-get install -y -qq qemu-user >/dev/null; }
py=$(python3 -c "import sys; print(sys.executable)")
tests=(test_cast_convert.py test_scan_cpu_isa.py test_gla_cpu_isa.py test_logcumsumexp_op.py test_cumsum_op.py
       test_gla_op.py test_logcumsumexp_accuracy.py test_cumsum_accuracy.py test_package.py)
rc=0
for m in "${models[@]}"; do
  echo "=== qemu-x86_64 -cpu $m"
  PYTHONPATH=$B/python qemu-x86_64 -cpu "$m" "$py" -c \
    "from paddle_ops._cpu_info import library_isa; print('library ISA (supported, in use):', library_isa())" 2>/dev/null
  PYTHONPATH=$B/python qemu-x86_64 -cpu "$m" "$py" -m pytest -q -p no:cacheprovider \
    "${tests[@]/#/unittests/python/}" 2>/dev/null | tail -2 || rc=1
done
exit $rc
