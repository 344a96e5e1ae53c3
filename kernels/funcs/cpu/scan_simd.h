// SIMD fast paths of the CPU scan engine, by operator: plain entry points over raw buffers
// and a scan layout, compiled for AVX2 + FMA in their own translation unit
// (scan_simd_avx2.cc, built with -mavx2 -mfma -mf16c when the PADDLE_OPS_CPU_SIMD CMake option
// is on) and chosen at run time (scan_simd_dispatch.cc) by the instruction-set dispatch of
// kernels/funcs/simd/cpu_isa.h (the flag PADDLE_OPS_CPU_ISA caps it: baseline forces the generic
// engine, avx2 the AVX2 kernels, avx512 the AVX2 kernels with their AVX-512 blocks of
// scan_simd_avx512.h). Each returns false when it does not take the call (no such CPU, SIMD
// disabled, or a type it leaves to the generic path); the caller then runs the generic engine.
//
// All of them run on the chunked driver (scan_driver.h), so they are threaded, split long
// rows in three phases, and give the same bits for any thread count.
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
  // Set by the dispatcher: AVX-512 is in use, so the AVX2 kernels run their AVX-512 blocks
  // (scan_simd_avx512.h) where they have them. Fixed for the whole call, so a chunk's reduce and
  // storing passes take the same blocks and the totals agree bitwise.
  bool avx512 = false;
};

// The entry points, written once for the two sets that have them: the dispatcher's (namespace
// simd, below: what the engine calls) and the AVX2 kernels' (namespace simd::avx2, defined in
// scan_simd_avx2.cc), which the dispatcher forwards to.
//   LogcumsumexpScan: log-sum-exp (docs/spec.md §1): float32 and 16-bit types in float lanes
//     (float exp and log, float-float sums, double once per block; float64 lanes near 0 and
//     for special blocks); float64 is double throughout.
//   LogcumsumexpGradScan: gradient of logcumsumexp, the reverse gated recurrence of
//     docs/spec.md §1 in double lanes (float outputs: gates as 1 + expm1 and exp(x - o) in
//     float lanes). c.reverse is the direction of the gradient's scan (the opposite of the
//     forward's).
#define PADDLE_OPS_SIMD_SCAN_DECLARE()                                          \
  template <typename T>                                                         \
  bool LogcumsumexpScan(const T* x, T* out, const ScanCall& c);                 \
  template <typename T>                                                         \
  bool LogcumsumexpGradScan(const T* x, const T* out, const T* out_grad, T* x_grad, const ScanCall& c);

// Both sets are instantiated for the same types, T: float, double, float16, bfloat16 (the
// file that expands this includes their headers).
#define PADDLE_OPS_SIMD_SCAN_INSTANTIATE_TYPE(T)                                            \
  template bool LogcumsumexpScan<T>(const T*, T*, const ScanCall&);                         \
  template bool LogcumsumexpGradScan<T>(const T*, const T*, const T*, T*, const ScanCall&);
#define PADDLE_OPS_SIMD_SCAN_INSTANTIATE()              \
  PADDLE_OPS_SIMD_SCAN_INSTANTIATE_TYPE(float)          \
  PADDLE_OPS_SIMD_SCAN_INSTANTIATE_TYPE(double)         \
  PADDLE_OPS_SIMD_SCAN_INSTANTIATE_TYPE(dtype::float16) \
  PADDLE_OPS_SIMD_SCAN_INSTANTIATE_TYPE(dtype::bfloat16)

PADDLE_OPS_SIMD_SCAN_DECLARE()
// CumsumScan: double-double sums in double lanes (float32 and 16-bit types, float64 rows and
// float64 columns in groups of 8; other float64 columns and integers stay generic), one Highway
// source for every vector target (kernels/funcs/simd/scan_cumsum.h), the dispatcher's only.
template <typename T>
bool CumsumScan(const T* x, T* out, const ScanCall& c);

namespace avx2 {
PADDLE_OPS_SIMD_SCAN_DECLARE()
}  // namespace avx2

}  // namespace simd
}  // namespace funcs
}  // namespace phi
