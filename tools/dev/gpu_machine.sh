#!/usr/bin/env bash
# Build and test on a GPU machine that has CUDA, Python, pybind11 and pytest but no Eigen or
# GoogleTest or fmt and no network (the team's H100 through the device tool). Prepare on a machine
# with them, in the repository root:
#   mkdir -p .dep/eigen/include .dep/eigen/share/eigen3
#   cp -r /usr/include/eigen3 .dep/eigen/include/ && cp -r /usr/share/eigen3/cmake .dep/eigen/share/eigen3/
#   cp -r /usr/src/googletest .dep/googletest && echo /.dep/ >> .git/info/exclude
#   mkdir -p .dep/fmt/include && cp -r /usr/include/fmt .dep/fmt/include/
#   mkdir -p .dep/hwy/include .dep/hwy/lib/x86_64-linux-gnu && cp -r /usr/include/hwy .dep/hwy/include/
#   cp -a /usr/lib/x86_64-linux-gnu/libhwy*.so* /usr/lib/x86_64-linux-gnu/cmake/hwy .dep/hwy/lib/x86_64-linux-gnu/
#   (Highway: the CMake package there is relocatable; the build copies libhwy.so.1 beside _C)
# then carry `.dep` and run, on the GPU machine:
#   bash tools/dev/gpu_machine.sh test acc bench pscan flood gla san
# Steps: test (ctest: GoogleTest + pytest, every place), gtest, pytest, acc (gpu_accuracy.py),
# bench (bench_gpu.py), pscan, flood, gla (their benchmarks), flagla (gla beside fla), ncu (Nsight Compute over
# tools/bench/ncu_cases.py, report in $OUT/ncu.txt), badinput (the bad-input table), san (tools/dev/sanitize_gpu.sh, quick
# unless SAN_QUICK=0), demo. Logs and JSON go to $OUT (or /tmp/out).
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
if [ "${PREBUILT:-0}" != 1 ] && [ "${ONLY_C:-0}" != 1 ] && [ ! -f /tmp/gtp/lib/libgtest.a ] && [ ! -f /tmp/gtp/lib64/libgtest.a ]; then
  (cmake -S .dep/googletest -B /tmp/gt -G Ninja -DCMAKE_INSTALL_PREFIX=/tmp/gtp -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build /tmp/gt >/dev/null && cmake --install /tmp/gt >/dev/null) || echo "gtest build failed"
fi
# PREBUILT=1: link the CUDA objects in .dep/gpu_objs.tar.xz (tools/dev/pack_gpu_objects.sh, built on
# another machine from this same tree) and build only the host code and the Python module: for a
# device session with little time left. Only the pytest-based steps run then (no GoogleTest).
extra=(); targets=()
if [ "${PREBUILT:-0}" = 1 ]; then
  mkdir -p /tmp/gpu_objs && tar -xJf .dep/gpu_objs.tar.xz -C /tmp/gpu_objs
  extra=(-DPADDLE_OPS_GPU_OBJECTS=/tmp/gpu_objs -DWITH_TESTING=OFF); targets=(--target _C)
elif [ "${ONLY_C:-0}" = 1 ]; then  # the Python module only (no GoogleTest): the quickest full build
  extra=(-DWITH_TESTING=OFF); targets=(--target _C)
fi
if [ ! -f build-dev/CMakeCache.txt ]; then
  # One CUDA architecture (the H100's; PADDLE_OPS_CUDA_ARCHS overrides): the full default list
  # takes about 2.5x as long to compile.
  cmake -S . -B build-dev -G Ninja -DWITH_GPU=ON -DCMAKE_BUILD_TYPE=Release -DPADDLE_OPS_CUDA_ARCHS=${PADDLE_OPS_CUDA_ARCHS:-90a-real} \
    -DEigen3_DIR=$PWD/.dep/eigen/share/eigen3/cmake -DGTest_ROOT=/tmp/gtp -Dhwy_DIR=$PWD/.dep/hwy/lib/x86_64-linux-gnu/cmake/hwy \
    "${extra[@]}" > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
fi
t0=$(date +%s)
# NOBUILD=1: keep the build of an earlier command on this machine as it is (the device tool's
# fresh copy of the sources makes every file look newer, so a build would compile all again).
if [ "${NOBUILD:-0}" = 1 ] && [ -d build-dev/python/paddle_ops ]; then
  echo "build kept (NOBUILD=1)"
else
  cmake --build build-dev "${targets[@]}" > $OUT/build.log 2>&1 || { grep -E "error|Error" $OUT/build.log | head -40; exit 1; }
  echo "build ok in $(( $(date +%s) - t0 )) s"
fi
export PYTHONPATH=$PWD/build-dev/python${PYTHONPATH:+:$PYTHONPATH}
for step in "$@"; do
  echo "=== $step"
  case $step in
    test) ctest --test-dir build-dev --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?"; grep -E "tests passed|PASSED|FAILED|passed|failed|skipped|Error" $OUT/ctest.log | tail -25 ;;
    gtest) # GTEST_SHARDS=n: n processes at once, each a shard (GoogleTest's own sharding)
           lim=$(( ${DEADLINE:-100000} + 20 - SECONDS )); n=${GTEST_SHARDS:-1}; pids=()
           for i in $(seq 0 $(( n - 1 ))); do
             GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$i timeout $lim build-dev/paddle_ops_cpp_tests --gtest_brief=1 > $OUT/gtest.$i.log 2>&1 &
             pids+=($!)
           done
           for i in $(seq 0 $(( n - 1 ))); do wait ${pids[$i]}; echo "gtest shard $i/$n rc=$?"; done
           cat $OUT/gtest.[0-9]*.log > $OUT/gtest.log
           grep -E "^\[  (PASSED|FAILED|SKIPPED) +\]" $OUT/gtest.log | sort | uniq -c | head -40
           grep -hE "tests? from .* ran" $OUT/gtest.[0-9]*.log ;;
    pytest|pytest2) # PYTEST_PATHS / PYTEST2_PATHS: what to run; log in $OUT/<step>.log; a time limit
            # that ends it well inside the device command's 600 s (DEADLINE: seconds since start)
            paths=${PYTEST_PATHS:-unittests/python}; [ $step = pytest2 ] && paths=${PYTEST2_PATHS:-}
            left=$(( ${DEADLINE:-100000} - SECONDS )); [ $left -lt 20 ] && { echo "no time left for $step"; continue; }
            timeout $left python3 -m pytest -v -rs -p no:cacheprovider --durations=10 --junitxml=$OUT/$step.xml $paths ${PYTEST_ARGS:-} > $OUT/$step.log 2>&1
            echo "$step rc=$? (limit ${left} s)"; grep -E " (FAILED|ERROR)( |$)" $OUT/$step.log | head -30; tail -3 $OUT/$step.log ;;
    env) nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
         python3 -c "import sys, torch, numpy; print(sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, 'numpy', numpy.__version__)"
         for m in jax cupy triton fla; do python3 -c "import $m; print('$m', getattr($m, '__version__', '?'))" 2>&1 | tail -1; done ;;
    main) python3 -m paddle_ops 2>&1 | tail -25 ;;
    seqpar) NCCL_NVLS_ENABLE=0 timeout 180 torchrun --nproc-per-node 2 tools/examples/seqpar_scan.py 2>&1 | tail -12
            NCCL_NVLS_ENABLE=0 timeout 300 torchrun --nproc-per-node 2 tools/examples/seqpar_scan.py --bench ${SEQPAR_ARGS:-} 2>&1 | tee $OUT/seqpar_bench.txt | tail -40 ;;
    torchbench) timeout $(( ${DEADLINE:-100000} - SECONDS )) python3 tools/bench/bench_torch.py --device cuda --json $OUT/bench_torch.json 2>&1 | tail -40 ;;
    acc) python3 tools/bench/gpu_accuracy.py 2>&1 | tail -20 ;;
    bench) timeout $(( ${DEADLINE:-100000} - SECONDS )) python3 tools/bench/bench_gpu.py ${BENCH_ARGS:-} --repeat 10 --json $OUT/bench_gpu.json 2>&1 | tail -40 ;;
    pscan) python3 tools/bench/bench_pscan.py --json $OUT/bench_pscan.json 2>&1 | tail -20 ;;
    demo) python3 tools/demo.py 2>&1 | tail -15 ;;
    flood) python3 tools/bench/bench_flood.py --json $OUT/bench_flood.json 2>&1 | tail -30 ;;
    gla) python3 tools/bench/bench_gla.py ${GLA_ARGS:-} --json $OUT/bench_gla.json 2>&1 | tail -30 ;;
    flagla) # bench_gla.py beside fla: the wheels in .whl/ (fla-core; the image has einops) and
            # Triton's cache as one archive in parts, .dev/triton_cache/ when carried (fla's autotuning,
            # about 6 min a shape, then runs once), written back to $OUT for the next call to carry
            python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl \
              && export PYTHONPATH=$PYTHONPATH:/tmp/site
            export TRITON_CACHE_DIR=/tmp/triton_cache; mkdir -p $TRITON_CACHE_DIR
            # (in parts of 15 MB: the device tool brings back files of at most 16 MiB; carry them
            # back as .dev/triton_cache/; the seed's cache alone was 20 MB)
            ls .dev/triton_cache/part.* >/dev/null 2>&1 && cat .dev/triton_cache/part.* | tar -xJf - -C $TRITON_CACHE_DIR
            timeout $(( ${DEADLINE:-100000} - SECONDS )) python3 tools/bench/bench_gla.py ${GLA_ARGS:-} \
              --json $OUT/bench_gla.json 2>&1 | tail -40
            mkdir -p $OUT/triton_cache && tar -C $TRITON_CACHE_DIR -cf - . | xz -T8 -3 | split -b 15M - $OUT/triton_cache/part.
            ls -la $OUT/triton_cache ;;
    ncu) ncu --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis \
           --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
           --section SchedulerStats python3 tools/bench/ncu_cases.py ${NCU_CASES:-gla lcse lcse_grad} > $OUT/ncu.txt 2>&1
         echo "ncu rc=$?"; grep -E "^  [A-Za-z_].*\(|Duration|Memory Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy" $OUT/ncu.txt | head -80 ;;
    badinput) python3 -m pytest -q unittests/python/test_bad_input_table.py 2>&1 | tail -5 ;;
    san) PADDLE_OPS_SANITIZE_QUICK=${SAN_QUICK:-1} bash tools/dev/sanitize_gpu.sh build-dev > $OUT/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -E "^===|ERROR SUMMARY|passed|failed" $OUT/sanitize.log | tail -20 ;;
    *) echo "unknown step $step" ;;
  esac
done
