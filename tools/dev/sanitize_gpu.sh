#!/usr/bin/env bash
# compute-sanitizer over the GPU test suite (run on the GPU machine): memcheck (with leak
# check) and racecheck over the GoogleTest GPU tests and a pytest subset (below; the large
# samples and the > 2^31-element cases are left out: hours under the sanitizer). Exits
# non-zero on any finding.
#
#   bash tools/dev/sanitize_gpu.sh [build-dir]       (default build-dev: a build with WITH_GPU=ON)
#
# Set PADDLE_OPS_SANITIZE_QUICK=1 for a shorter pytest subset (logcumsumexp and cumsum only).
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build-dev}
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$CS" ] || { echo "compute-sanitizer not found"; exit 2; }
[ -x "$BUILD/paddle_ops_cpp_tests" ] || { echo "no $BUILD/paddle_ops_cpp_tests: build with -DWITH_GPU=ON first"; exit 2; }
export PYTHONPATH=$BUILD/python${PYTHONPATH:+:$PYTHONPATH}
export PADDLE_OPS_SKIP_HUGE=1   # the > 2^31-element tests: minutes natively, days under memcheck
# The 2^31 + 3 row of the C++ suite likewise; the rest of the GPU tests run (gtest filter:
# positive patterns, then '-' and the negative ones).
GTEST_FILTER='Gpu*-*Past2To31*'
PYTEST_FILES=(unittests/python/test_gpu_runtime.py unittests/python/test_gpu_limits.py
              unittests/python/test_fuzz_regressions.py unittests/python/test_bad_input_table.py
              unittests/python/test_logcumsumexp_op.py unittests/python/test_cumsum_op.py
              unittests/python/test_pscan_op.py unittests/python/test_right_flood_op.py
              unittests/python/test_repeat_interleave_op.py unittests/python/test_gla_op.py
              unittests/python/test_op_db.py)
# The GPU cases of: the runtime and limits tests, the fuzz regressions, the bad-input table,
# each op's samples (output and gradient against the reference), right_flood's and
# repeat_interleave's GPU tests, and gla's chunked kernels (both versions) against the reference.
PYTEST_K='gpu and not large and (gpu_runtime or gpu_limits or regressions or bad_input or test_output or test_grad_reference or test_right_flood_op or test_repeat_interleave_op or (test_op_db and (RightFlood or RepeatInterleave)) or (test_gla_op and (forward_and_grads or strong_decays or chunked_versions)))'
if [ "${PADDLE_OPS_SANITIZE_QUICK:-0}" = 1 ]; then
  PYTEST_FILES=(unittests/python/test_gpu_runtime.py unittests/python/test_logcumsumexp_op.py unittests/python/test_cumsum_op.py
                unittests/python/test_op_db.py)
  PYTEST_K="$PYTEST_K and not (test_op_db and (Pscan or RightFlood or RepeatInterleave))"
fi
# The out-of-memory tests fill the device on purpose; memcheck reports each failed cudaMalloc
# as an API error, so they run under racecheck only.
status=0
run() {
  local tool=$1; shift
  echo "=== compute-sanitizer --tool $tool $*"
  local t0=$SECONDS
  "$CS" --tool "$tool" --error-exitcode 99 --print-limit 20 "$@"
  local rc=$?
  echo "=== $tool: exit $rc ($((SECONDS - t0)) s)"
  [ $rc -eq 0 ] || status=1
}
run memcheck --leak-check full "$BUILD/paddle_ops_cpp_tests" --gtest_filter="$GTEST_FILTER:*OutOfMemory*"
run racecheck "$BUILD/paddle_ops_cpp_tests" --gtest_filter="$GTEST_FILTER"
run memcheck --target-processes all python3 -m pytest -q -x "${PYTEST_FILES[@]}" -k "$PYTEST_K and not out_of_memory"
run racecheck --target-processes all python3 -m pytest -q -x "${PYTEST_FILES[@]}" -k "$PYTEST_K"
[ $status -eq 0 ] && echo "compute-sanitizer: no findings" || echo "compute-sanitizer: FINDINGS (see above)"
exit $status
