#!/usr/bin/env bash
# A GPU build made here, carried to the device machine (whose python3 is 3.12 and which has no
# Eigen, GoogleTest or network), so that device time goes to running, not compiling.
#
# Here (a Python 3.12 interpreter with pybind11, numpy, pyyaml and the nvidia-cutlass wheel):
#   cmake -S . -B /tmp/g312 -G Ninja -DWITH_GPU=ON -DCMAKE_BUILD_TYPE=Release \
#     -DPADDLE_OPS_CUDA_ARCHS=90a-real -DPython3_EXECUTABLE=<python3.12>
#   ninja -C /tmp/g312 _C paddle_ops_cpp_tests paddle_ops_runtime      (about 20 min on 2 cores)
#   bash tools/dev/carry_package.sh pack /tmp/g312                       -> .dev/lead/ (~35 MB)
# There (device tool: carry [".dev/lead"]):
#   bash tools/dev/carry_package.sh run env gtest pytest                 (gpu_machine.sh's steps)
#   bash tools/dev/carry_package.sh suite        (env gtest pytest without integrations/, DEADLINE 540)
set -u
cd "$(dirname "$0")/../.."
mode=${1:?usage: carry_package.sh pack <build dir> | run <steps...> | suite}
shift
case $mode in
  pack)
    b=${1:?the build directory}
    mkdir -p .dev/lead
    tar -C "$b" -cf - python | xz -T2 -3 > .dev/lead/pkg.tar.xz
    xz -T2 -c "$b/paddle_ops_cpp_tests" > .dev/lead/cpp_tests.xz
    echo "package of $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'), built in $b" > .dev/lead/README
    ls -la .dev/lead ;;
  run|suite)
    mkdir -p build-dev
    if [ ! -d build-dev/python/paddle_ops ]; then
      xz -dc .dev/lead/pkg.tar.xz | tar -xf - -C build-dev
      # (the GoogleTest binary may stay behind: carry .dev/lead/pkg.tar.xz alone for the Python steps)
      [ -f .dev/lead/cpp_tests.xz ] && xz -dc .dev/lead/cpp_tests.xz > build-dev/paddle_ops_cpp_tests \
        && chmod +x build-dev/paddle_ops_cpp_tests
    fi
    cat .dev/lead/README 2>/dev/null
    # libhwy.so.1 travels beside _C; the GoogleTest binary finds it through the library path.
    export LD_LIBRARY_PATH=$PWD/build-dev/python/paddle_ops${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
    # gpu_machine.sh configures when build-dev has no cache and builds GoogleTest when it finds
    # none: the carried build needs neither.
    touch build-dev/CMakeCache.txt
    mkdir -p /tmp/gtp/lib && touch /tmp/gtp/lib/libgtest.a
    if [ "$mode" = suite ]; then
      DEADLINE=${DEADLINE:-540} PYTEST_ARGS="${PYTEST_ARGS:---ignore=unittests/python/integrations}" \
        NOBUILD=1 bash tools/dev/gpu_machine.sh env gtest pytest
    else
      NOBUILD=1 bash tools/dev/gpu_machine.sh "$@"
    fi ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
