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

// A line's state as it crosses into and out of the kernels (a carry-in per line, a line's total):
//   logcumsumexp: (a, b) = (m, s), the value m + log(s) (none: (-inf, 0); NaN: m NaN);
//   cumsum: the double-double a + b.
struct LineState {
  double a;
  double b;
};

struct ScanCall {
  ScanLayout layout;
  bool exclusive;
  bool reverse;
  const LineState* init = nullptr;  // a carry-in per line (line = outer index * inner + column), or none
};

//   LogcumsumexpScan: log-sum-exp (docs/spec.md §1): float32 and 16-bit types in float lanes
//     (float exp and log, float-float sums, double once per block; float64 lanes near 0 and for
//     special blocks); float64 is double throughout.
//   LogcumsumexpGradScan: gradient of logcumsumexp, the reverse gated recurrence of docs/spec.md
//     §1 in double lanes (float outputs: gates as 1 + expm1, below 1/2 as exp, and exp(x - o) in float lanes).
//     c.reverse is the direction of the gradient's scan (the opposite of the forward's).
//   CumsumScan: double-double sums in double lanes (float32 and 16-bit types, float64 rows and
//     float64 columns in groups of 8; other float64 columns and integers stay generic).
// The forward scans start each line from c.init where it is given (the gradient takes none).
// T: float, double, float16, bfloat16.
template <typename T>
bool LogcumsumexpScan(const T* x, T* out, const ScanCall& c);
template <typename T>
bool LogcumsumexpGradScan(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanCall& c);
template <typename T>
bool CumsumScan(const T* x, T* out, const ScanCall& c);
// Each line's total (outer * inner states; the layout's length > 0) from the same chunk totals as
// the scans fold, in the same order whatever the thread count; the same cases as the scans.
template <typename T>
bool LogcumsumexpTotals(const T* x, const ScanCall& c, LineState* totals);
template <typename T>
bool CumsumTotals(const T* x, const ScanCall& c, LineState* totals);

}  // namespace simd
}  // namespace funcs
}  // namespace phi
