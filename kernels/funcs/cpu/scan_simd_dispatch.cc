// Run-time choice of the SIMD scan kernels (scan_simd.h). This file is compiled for the
// baseline x86-64 (or any other) target; the AVX2 kernels live in scan_simd_avx2.cc, built
// only when PADDLE_OPS_CPU_SIMD_AVX2 is defined by CMake, and called only when the CPU has
// AVX2 and FMA.
#include "kernels/funcs/cpu/scan_simd.h"

#include "kernels/funcs/cpu/scan_runtime.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {

bool CpuScanSimdCompiledAndSupported() {
#if defined(PADDLE_OPS_CPU_SIMD_AVX2) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

namespace simd {

#if defined(PADDLE_OPS_CPU_SIMD_AVX2)
#define PADDLE_OPS_SIMD_CALL(fn, ...) (CpuScanSimdEnabled() && avx2::fn(__VA_ARGS__))
#else
#define PADDLE_OPS_SIMD_CALL(fn, ...) false
#endif

template <typename T>
bool LogcumsumexpScan(const T* x, T* out, const ScanCall& c) {
  return PADDLE_OPS_SIMD_CALL(LogcumsumexpScan<T>, x, out, c);
}
template <typename T>
bool LogcumsumexpGradScan(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanCall& c) {
  return PADDLE_OPS_SIMD_CALL(LogcumsumexpGradScan<T>, x, out, out_grad, x_grad, c);
}
template <typename T>
bool CumsumScan(const T* x, T* out, const ScanCall& c) {
  return PADDLE_OPS_SIMD_CALL(CumsumScan<T>, x, out, c);
}

PADDLE_OPS_SIMD_SCAN_INSTANTIATE()
#undef PADDLE_OPS_SIMD_CALL

}  // namespace simd
}  // namespace funcs
}  // namespace phi
