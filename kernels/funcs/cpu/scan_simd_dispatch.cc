// Run-time choice of the SIMD scan kernels (scan_simd.h), on the instruction-set dispatch that the
// other CPU kernels share (kernels/funcs/simd/cpu_isa.h): the AVX2 kernels (scan_simd_avx2.cc)
// run when the set in use (the CPU's, capped by the flag PADDLE_OPS_CPU_ISA) is AVX2 or wider;
// with AVX-512 in use they take its 16-lane / 8-double-lane blocks (scan_simd_avx512.cc) where
// those exist. This file is compiled for the baseline target; PADDLE_OPS_CPU_ISA_AVX2 is defined
// by CMake when the per-ISA translation units are built.
#include "kernels/funcs/cpu/scan_simd.h"

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "kernels/funcs/simd/scan_cumsum.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {

bool CpuScanSimdCompiledAndSupported() { return simd::CpuIsaSupported() >= simd::CpuIsa::kAvx2; }

namespace simd {

namespace {
#if defined(PADDLE_OPS_CPU_ISA_AVX2)
// The call with the instruction set in use now, or false for the generic engine.
bool Wide(const ScanCall& c, ScanCall* wide) {
  if (!CpuScanSimdEnabled()) return false;
  const CpuIsa isa = CpuIsaInUse();
  if (isa < CpuIsa::kAvx2) return false;
  *wide = c;
  wide->avx512 = isa >= CpuIsa::kAvx512;
  return true;
}
#define PADDLE_OPS_SIMD_CALL(fn, ...) \
  ScanCall w;                         \
  return Wide(c, &w) && avx2::fn(__VA_ARGS__, w)
#else
#define PADDLE_OPS_SIMD_CALL(fn, ...) return false
#endif
}  // namespace

template <typename T>
bool LogcumsumexpScan(const T* x, T* out, const ScanCall& c) {
  PADDLE_OPS_SIMD_CALL(LogcumsumexpScan<T>, x, out);
}
template <typename T>
bool LogcumsumexpGradScan(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanCall& c) {
  PADDLE_OPS_SIMD_CALL(LogcumsumexpGradScan<T>, x, out, out_grad, x_grad);
}
// cumsum is one Highway source for every target (kernels/funcs/simd/scan_cumsum.cc), chosen by
// the target in use; it leaves the fallback target (PADDLE_OPS_CPU_ISA=baseline) to the generic
// engine, as SetCpuScanSimdEnabled(false) does.
template <typename T>
bool CumsumScan(const T* x, T* out, const ScanCall& c) {
  return CpuScanSimdSwitchedOn() && CumsumVector(x, out, c.layout, c.exclusive, c.reverse);
}

PADDLE_OPS_SIMD_SCAN_INSTANTIATE()
template bool CumsumScan<float>(const float*, float*, const ScanCall&);
template bool CumsumScan<double>(const double*, double*, const ScanCall&);
template bool CumsumScan<dtype::float16>(const dtype::float16*, dtype::float16*, const ScanCall&);
template bool CumsumScan<dtype::bfloat16>(const dtype::bfloat16*, dtype::bfloat16*, const ScanCall&);
#undef PADDLE_OPS_SIMD_CALL

}  // namespace simd
}  // namespace funcs
}  // namespace phi
