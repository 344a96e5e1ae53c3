// Run-time choice of the SIMD scan kernels (scan_simd.h): each is one Highway source compiled for
// every target (kernels/funcs/simd/scan_cumsum.cc, scan_logcumsumexp.cc), called through its
// dispatch table at the target in use (kernels/funcs/simd/cpu_isa.h). The fallback target (EMU128:
// PADDLE_OPS_CPU_ISA=baseline, or a CPU with no vector target) and SetCpuScanSimdEnabled(false)
// leave the call to the generic engine.
#include "kernels/funcs/cpu/scan_simd.h"

#include "hwy/targets.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "kernels/funcs/simd/scan_cumsum.h"
#include "kernels/funcs/simd/scan_logcumsumexp.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {

bool CpuScanSimdCompiledAndSupported() {
  return (simd::CpuTargetsSupported() & ~static_cast<int64_t>(HWY_EMU128 | HWY_SCALAR)) != 0;
}

namespace simd {

template <typename T>
bool LogcumsumexpScan(const T* x, T* out, const ScanCall& c) {
  return CpuScanSimdSwitchedOn() && LogcumsumexpVector(x, out, c.layout, c.exclusive, c.reverse, c.init);
}
template <typename T>
bool LogcumsumexpTotals(const T* x, const ScanCall& c, LineState* totals) {
  return CpuScanSimdSwitchedOn() && LogcumsumexpTotalsVector(x, c.layout, c.reverse, totals);
}
template <typename T>
bool LogcumsumexpGradScan(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanCall& c) {
  return CpuScanSimdSwitchedOn() && LogcumsumexpGradVector(x, out, out_grad, x_grad, c.layout, c.exclusive, c.reverse);
}
template <typename T>
bool CumsumScan(const T* x, T* out, const ScanCall& c) {
  return CpuScanSimdSwitchedOn() && CumsumVector(x, out, c.layout, c.exclusive, c.reverse, c.init);
}
template <typename T>
bool CumsumTotals(const T* x, const ScanCall& c, LineState* totals) {
  return CpuScanSimdSwitchedOn() && CumsumTotalsVector(x, c.layout, c.reverse, totals);
}

#define PADDLE_OPS_SIMD_SCAN_INSTANTIATE(T)                                                 \
  template bool LogcumsumexpScan<T>(const T*, T*, const ScanCall&);                         \
  template bool LogcumsumexpGradScan<T>(const T*, const T*, const T*, T*, const ScanCall&); \
  template bool CumsumScan<T>(const T*, T*, const ScanCall&);                               \
  template bool LogcumsumexpTotals<T>(const T*, const ScanCall&, LineState*);               \
  template bool CumsumTotals<T>(const T*, const ScanCall&, LineState*);
PADDLE_OPS_SIMD_SCAN_INSTANTIATE(float)
PADDLE_OPS_SIMD_SCAN_INSTANTIATE(double)
PADDLE_OPS_SIMD_SCAN_INSTANTIATE(dtype::float16)
PADDLE_OPS_SIMD_SCAN_INSTANTIATE(dtype::bfloat16)
#undef PADDLE_OPS_SIMD_SCAN_INSTANTIATE

}  // namespace simd
}  // namespace funcs
}  // namespace phi
