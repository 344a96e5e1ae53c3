#!/usr/bin/env bash
# Installs what the build and the tests need, if it is missing: CMake, Eigen, GoogleTest, fmt, Highway and
# clang (with its sanitizer, libFuzzer and OpenMP runtimes) from Debian's packages; NumPy,
# pybind11, PyYAML, pytest, pybind11-stubgen and ml_dtypes from PyPI; and real PaddlePaddle
# (CPU, pinned) for the tests of paddle_ops.integrations.paddle.
set -euo pipefail
need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/eigen3/Eigen/Core ] || need_apt+=(libeigen3-dev)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
[ -f /usr/include/fmt/printf.h ] || need_apt+=(libfmt-dev)
# Highway: the CPU's vector code (kernels/funcs/simd/cpu_isa.h), 1.0.3 in Debian 12.
[ -f /usr/include/hwy/highway.h ] || need_apt+=(libhwy-dev)
# The sanitizer/fuzzer build (tools/dev/test_sanitize.sh): clang, its runtimes (ASan, UBSan,
# libFuzzer) and its OpenMP.
command -v clang++ >/dev/null || need_apt+=(clang)
if ! command -v clang++ >/dev/null || [ ! -f "$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
  need_apt+=(libclang-rt-dev)
fi
ls /usr/lib/llvm-*/lib/libomp.so >/dev/null 2>&1 || need_apt+=(libomp-dev)
# --arm (tools/dev/test_arm.sh): the aarch64 cross compiler, qemu-user, and the arm64 GoogleTest,
# Highway and fmt packages beside the host's (Debian's multi-arch; about 35 s here).
need_arch=0
if [ "${1:-}" = "--arm" ]; then
  command -v aarch64-linux-gnu-g++ >/dev/null || need_apt+=(g++-aarch64-linux-gnu)
  command -v qemu-aarch64 >/dev/null || need_apt+=(qemu-user)
  for lib in libgtest libhwy libfmt; do
    ls /usr/lib/aarch64-linux-gnu/$lib.* >/dev/null 2>&1 || need_apt+=("$lib-dev:arm64")
  done
  dpkg --print-foreign-architectures | grep -qx arm64 || need_arch=1
fi
if ((${#need_apt[@]})); then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "setup_deps: apt-get install ${need_apt[*]}"
  if ((need_arch)); then $SUDO dpkg --add-architecture arm64; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# pybind11-stubgen writes the type stubs of paddle_ops._C at build time; ml_dtypes lets the tests
# of to_tensor on ml_dtypes.bfloat16 arrays run; mypy checks a user script against the annotated
# API (unittests/python/test_typing.py).
if ! python3 -c "import numpy, pybind11, yaml, pytest, pybind11_stubgen, ml_dtypes, mypy" 2>/dev/null; then
  echo "setup_deps: pip install numpy pybind11 pyyaml pytest pybind11-stubgen ml_dtypes mypy"
  python3 -m pip install -q numpy pybind11 pyyaml pytest pybind11-stubgen ml_dtypes mypy
fi
# CuTe/CUTLASS headers for gla's sm_90a kernels (kernels/gla/sm90/): the nvidia-cutlass wheel,
# pinned, without its Python dependencies; CMake finds cutlass_library/source/include in
# site-packages without importing the package.
CUTLASS_VERSION=4.2.0.0
if ! python3 -m pip show nvidia-cutlass 2>/dev/null | grep -qx "Version: $CUTLASS_VERSION"; then
  echo "setup_deps: pip install --no-deps nvidia-cutlass==$CUTLASS_VERSION"
  python3 -m pip install -q --no-deps "nvidia-cutlass==$CUTLASS_VERSION"
fi
# Real Paddle for unittests/python/integrations/test_paddle_*.py (PyPI's Paddle 3 is CPU-only).
# About 26 s here (a 195 MB wheel, 720 MB installed, with its few dependencies); building the extension at its first
# import adds about 45 s to the first test run (then it is cached).
PADDLE_VERSION=3.3.1
if ! python3 -c "import paddle, sys; sys.exit(paddle.__version__ != '$PADDLE_VERSION')" 2>/dev/null; then
  echo "setup_deps: pip install paddlepaddle==$PADDLE_VERSION"
  python3 -m pip install -q "paddlepaddle==$PADDLE_VERSION"
fi
