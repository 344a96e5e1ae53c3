// SIMD fast paths of the CPU scan engine, by operator: plain entry points over raw buffers and a
// scan layout (scan_simd_dispatch.cc), each forwarding to one Highway source compiled for every
// target (kernels/funcs/simd/scan_cumsum.h, scan_logcumsumexp.h) and chosen at run time by the
// target in use (kernels/funcs/simd/cpu_isa.h; the flag PADDLE_OPS_CPU_ISA caps it, `baseline` /
// `emu128` forces the generic engine). Each returns false when it does not take the call (the
// fallback target, SIMD switched off by SetCpuScanSimdEnabled, or a case it leaves to the generic
// path); the caller then runs the generic engine.
//
// All of them run on the chunked driver (scan_driver.h), so they are threaded, split long rows in
// three phases, and give the same bits for any thread count.
#pragma once

#include <cstdint>

#include "kernels/funcs/scan_layout.h"

namespace phi {
namespace funcs {
namespace simd {

struct ScanCall {
  ScanLayout layout;
  bool exclusive;
  bool reverse;
};

//   LogcumsumexpScan: log-sum-exp (docs/spec.md §1): float32 and 16-bit types in float lanes
//     (float exp and log, float-float sums, double once per block; float64 lanes near 0 and for
//     special blocks); float64 is double throughout.
//   LogcumsumexpGradScan: gradient of logcumsumexp, the reverse gated recurrence of docs/spec.md
//     §1 in double lanes (float outputs: gates as 1 + expm1 and exp(x - o) in float lanes).
//     c.reverse is the direction of the gradient's scan (the opposite of the forward's).
//   CumsumScan: double-double sums in double lanes (float32 and 16-bit types, float64 rows and
//     float64 columns in groups of 8; other float64 columns and integers stay generic).
// T: float, double, float16, bfloat16.
template <typename T>
bool LogcumsumexpScan(const T* x, T* out, const ScanCall& c);
template <typename T>
bool LogcumsumexpGradScan(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanCall& c);
template <typename T>
bool CumsumScan(const T* x, T* out, const ScanCall& c);

}  // namespace simd
}  // namespace funcs
}  // namespace phi
