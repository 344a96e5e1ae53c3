#!/usr/bin/env bash
# Build and test on a GPU machine that has CUDA, Python, pybind11 and pytest but no Eigen or
# GoogleTest or fmt and no network (the team's H100 through the device tool). Prepare on a machine
# with them, in the repository root:
#   mkdir -p .dep/eigen/include .dep/eigen/share/eigen3
#   cp -r /usr/include/eigen3 .dep/eigen/include/ && cp -r /usr/share/eigen3/cmake .dep/eigen/share/eigen3/
#   cp -r /usr/src/googletest .dep/googletest && echo /.dep/ >> .git/info/exclude
#   mkdir -p .dep/fmt/include && cp -r /usr/include/fmt .dep/fmt/include/
#   mkdir -p .dep/cutlass && cp -r "$(python3 -c 'import os, cutlass_library as c; print(os.path.dirname(c.__file__))')/source/include" .dep/cutlass/
#   (CuTe/CUTLASS headers of the nvidia-cutlass wheel: without them the build leaves out gla's sm_90a kernels)
#   mkdir -p .dep/hwy/include .dep/hwy/lib/x86_64-linux-gnu && cp -r /usr/include/hwy .dep/hwy/include/
#   mkdir -p .dep/hwy/lib/x86_64-linux-gnu/cmake && cp -a /usr/lib/x86_64-linux-gnu/libhwy*.so* .dep/hwy/lib/x86_64-linux-gnu/
#   cp -a /usr/lib/x86_64-linux-gnu/cmake/hwy .dep/hwy/lib/x86_64-linux-gnu/cmake/
#   (Highway: its CMake package finds its prefix four folders up, so it must sit at lib/<triple>/cmake/hwy; the build copies libhwy.so.1 beside _C)
# then carry `.dep` and run, on the GPU machine:
#   bash tools/dev/gpu_machine.sh test acc bench pscan flood gla san
# (no step: build only; through the device tool, whose commands end at 600 s: `bash
# tools/dev/gpu_machine.sh` in one call, `NOBUILD=1 bash tools/dev/gpu_machine.sh test` in the next)
# Steps: test (ctest: GoogleTest + pytest, every place), gtest, pytest, acc (gpu_accuracy.py),
# bench (bench_gpu.py), pscan, flood, gla (their benchmarks), flagla (gla beside fla),
# flawarm (fla's Triton kernels compiled ahead in parallel, for flagla), ncu (Nsight Compute over
# tools/bench/ncu_cases.py, report in $OUT/ncu.txt), ncuinst (per-kernel metrics and instructions per element,
# tools/dev/ncu_table.py: $OUT/ncu_inst.md), badinput (the bad-input table), san (tools/dev/sanitize_gpu.sh, quick
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
# The carried CuTe/CUTLASS headers, so that the device's build has gla's sm_90a kernels
[ -f .dep/cutlass/include/cute/tensor.hpp ] && extra+=(-DCUTLASS_INCLUDE_DIR=$PWD/.dep/cutlass/include)
if [ "${PREBUILT:-0}" = 1 ]; then
  mkdir -p /tmp/gpu_objs && tar -xJf .dep/gpu_objs.tar.xz -C /tmp/gpu_objs
  extra+=(-DPADDLE_OPS_GPU_OBJECTS=/tmp/gpu_objs -DWITH_TESTING=OFF); targets=(--target _C)
elif [ "${ONLY_C:-0}" = 1 ]; then  # the Python module only (no GoogleTest): the quickest full build
  extra+=(-DWITH_TESTING=OFF); targets=(--target _C)
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
# fla-core from .whl/ and Triton's cache for flagla and flawarm (once a command): TRITON_CACHE_DIR is
# /tmp/triton_cache, where the archive carried as .dev/triton_cache/part.* is unpacked (the cache's
# groups name absolute paths: it must be this directory). TRITON_STORE_BINARY_ONLY=1 (not part of
# Triton's cache key): kernels are stored as their .cubin and .json only, as the packing keeps them.
fla_setup() {
  [ -n "${FLA_SETUP_DONE:-}" ] && return 0
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PYTHONPATH:/tmp/site
  export TRITON_CACHE_DIR=/tmp/triton_cache; mkdir -p $TRITON_CACHE_DIR
  [ "${FLA_CACHE_IR:-0}" = 1 ] || export TRITON_STORE_BINARY_ONLY=1
  if ls .dev/triton_cache/part.* >/dev/null 2>&1; then
    cat .dev/triton_cache/part.* | tar -xJf - -C $TRITON_CACHE_DIR \
      && echo "Triton cache: $(cat .dev/triton_cache/part.* | wc -c) bytes carried, $(find $TRITON_CACHE_DIR -name '*.cubin' | wc -l) kernels"
  fi
  FLA_SETUP_DONE=1
}
# Triton's cache back to $OUT as one xz archive in 15 MiB parts, $OUT/triton_cache/part.*, to carry
# back as .dev/triton_cache/ (the device tool brings back at most 8 files of 16 MiB, 64 MiB in all;
# the seed shape's cache with its IR was 20 MB at xz -3). Triton loads a cached kernel from its .json
# and .cubin alone: the IR (source, ttir, ttgir, llir, ptx) stays behind unless FLA_CACHE_IR=1.
triton_cache_pack() {
  local ex=() n total
  [ "${FLA_CACHE_IR:-0}" = 1 ] || ex=(--exclude='*.source' --exclude='*.ttir' --exclude='*.ttgir' --exclude='*.llir' --exclude='*.ptx')
  rm -rf $OUT/triton_cache; mkdir -p $OUT/triton_cache
  tar -C $TRITON_CACHE_DIR "${ex[@]}" -cf - . | xz -T16 -6 | split -b 15M - $OUT/triton_cache/part.
  n=$(ls $OUT/triton_cache | wc -l); total=$(cat $OUT/triton_cache/part.* | wc -c)
  ls -la $OUT/triton_cache
  echo "Triton cache packed: $n parts, $total bytes in all"
  if [ $n -gt 6 ] || [ $total -gt $(( 62 * 1024 * 1024 )) ]; then
    echo "WARNING: the cache will not all come back (the device tool returns 8 files, 64 MiB in all):"
    echo "  warm fewer shapes a call (FLA_WARM_BENCH_ARGS/GLA_ARGS --only ...)"
  elif [ $total -gt $(( 32 * 1024 * 1024 )) ]; then
    echo "WARNING: over 32 MiB: with the tree (7 MB), .dev/lead/pkg.tar.xz (21 MB) and .whl it passes the 64 MiB"
    echo "  a device call carries; warm fewer shapes a call (FLA_WARM_BENCH_ARGS/GLA_ARGS --only ...)"
  fi
}
for step in "$@"; do
  echo "=== $step"
  case $step in
    test) # cpp_tests and python_tests side by side, pytest over 8 workers where pytest-xdist is there
          # (the H200's image has it): about 325 s after the build, which took the rest of one 600 s
          # device call the first time, so on the device tool run the build alone, then
          # NOBUILD=1 ... test in a second call while the machine is warm (eleventh session)
          python3 -c "import xdist" 2>/dev/null && export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:--n 8 -p no:cacheprovider}"
          ctest --test-dir build-dev -j ${CTEST_J:-2} -V > $OUT/ctest.log 2>&1; echo "ctest rc=$?"
          grep -E "tests passed|Passed|FAILED|[0-9]+ (passed|failed)|Error" $OUT/ctest.log | tail -25 ;;
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
            # Triton's cache (fla_setup: the carried .dev/triton_cache/, or what flawarm left in this
            # command); fla's autotuning, about 6 min a shape from a cold cache, then runs once; the
            # cache is written back to $OUT for the next call to carry
            fla_setup
            timeout $(( ${DEADLINE:-100000} - SECONDS )) python3 tools/bench/bench_gla.py ${GLA_ARGS:-} \
              --json $OUT/bench_gla.json 2>&1 | tail -40
            triton_cache_pack ;;
    flawarm) # fla's autotuning compiled ahead, FLA_WARM_PARTS (14) processes at once: each compiles its
             # share of every kernel's configs (tools/dev/fla_warm.py) in bench_gla.py (--repeat 1
             # --batch 1 FLA_WARM_BENCH_ARGS) and then in the fla comparison tests, into the same cache as
             # flagla's; written back to $OUT like flagla's, for a later flagla to carry, which then
             # only times the configs (docs/testing.md, "GPU"). Leave DEADLINE room for the packing.
             fla_setup
             n=${FLA_WARM_PARTS:-14}; pids=(); rcs=(); t0=$SECONDS
             k0=$(find $TRITON_CACHE_DIR -name '*.cubin' | wc -l)
             for i in $(seq 0 $(( n - 1 ))); do
               ( left=$(( ${DEADLINE:-100000} - SECONDS )); rb=124  # (timeout 0 would mean none)
                 if [ $left -ge 20 ]; then
                   timeout $left python3 tools/dev/fla_warm.py --part $i --parts $n -- bench --repeat 1 --batch 1 \
                     ${FLA_WARM_BENCH_ARGS:-}
                   rb=$?
                 fi
                 echo "flawarm part $i: bench rc=$rb"
                 left=$(( ${DEADLINE:-100000} - SECONDS )); rt=124
                 if [ $left -ge 20 ]; then
                   timeout $left python3 tools/dev/fla_warm.py --part $i --parts $n -- pytest -q -p no:cacheprovider \
                     unittests/python/integrations/test_torch_chunk_gla.py -k matches_fla
                   rt=$?
                 fi
                 echo "flawarm part $i: pytest rc=$rt"
                 [ $rb -ne 0 ] && exit $rb; exit $rt ) > $OUT/flawarm.$i.log 2>&1 &
               pids+=($!)
             done
             for i in $(seq 0 $(( n - 1 ))); do wait ${pids[$i]}; rcs+=($?); done
             echo "flawarm: $n parts in $(( SECONDS - t0 )) s"
             # the device tool brings back at most 8 files: the parts' logs as one
             : > $OUT/flawarm.log
             for i in $(seq 0 $(( n - 1 ))); do
               f=$OUT/flawarm.$i.log
               echo "part $i rc=${rcs[$i]}: $(grep -hoE 'bench rc=[0-9]+' $f), $(grep -hoE 'pytest rc=[0-9]+' $f)," \
                 "configs run (bench+pytest) $(grep -hoE ' ran [0-9]+ configs' $f | grep -oE '[0-9]+' | paste -sd+)," \
                 "pytest: $(grep -E '[0-9]+ (passed|failed|skipped|errors?)' $f | tail -1 | cut -c1-100)"
               [ "${rcs[$i]}" = 0 ] || tail -4 $f | cut -c1-200
               { echo "===== part $i of $n, rc=${rcs[$i]}"; cat $OUT/flawarm.$i.log; } >> $OUT/flawarm.log
               rm -f $OUT/flawarm.$i.log
             done
             echo "compiled kernels (cubin) in $TRITON_CACHE_DIR: $(find $TRITON_CACHE_DIR -name '*.cubin' | wc -l)" \
               "(were $k0), $(du -sh $TRITON_CACHE_DIR | cut -f1)"
             triton_cache_pack ;;
    ncu) ncu --profile-from-start off --section SpeedOfLight --section MemoryWorkloadAnalysis \
           --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
           --section SchedulerStats python3 tools/bench/ncu_cases.py ${NCU_CASES:-gla lcse lcse_grad} > $OUT/ncu.txt 2>&1
         echo "ncu rc=$?"; grep -E "^  [A-Za-z_].*\(|Duration|Memory Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy" $OUT/ncu.txt | head -80 ;;
    ncuinst) # per kernel: time, DRAM and SM throughput, registers, instructions and DRAM bytes per
             # element of its case (tools/dev/ncu_table.py; NCU_CASES as for ncu)
             m=$(python3 -c "import sys; sys.path.insert(0, 'tools/dev'); import ncu_table; print(','.join(ncu_table.METRICS))")
             ncu --profile-from-start off --csv --metrics "$m" python3 tools/bench/ncu_cases.py ${NCU_CASES:-lcse lcse16 lcse64 lcse_grad cumsum} > $OUT/ncu_inst.csv 2>&1
             echo "ncuinst rc=$?"; python3 tools/dev/ncu_table.py $OUT/ncu_inst.csv | tee $OUT/ncu_inst.md | head -90 ;;
    badinput) python3 -m pytest -q unittests/python/test_bad_input_table.py 2>&1 | tail -5 ;;
    san) PADDLE_OPS_SANITIZE_QUICK=${SAN_QUICK:-1} bash tools/dev/sanitize_gpu.sh build-dev > $OUT/sanitize.log 2>&1; echo "sanitize rc=$?"; grep -E "^===|ERROR SUMMARY|passed|failed" $OUT/sanitize.log | tail -20 ;;
    *) echo "unknown step $step" ;;
  esac
done
