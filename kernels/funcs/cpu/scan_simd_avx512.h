// AVX-512 blocks of the CPU scan engine's kernels (scan_simd_avx512.cc, built with the AVX-512
// flags of the per-ISA translation units): called from the AVX2 kernels of scan_simd_avx2.cc when
// the dispatcher has set ScanCall::avx512 (kernels/funcs/simd/cpu_isa.h says AVX-512 is in use),
// never otherwise.
#pragma once

#include <cstdint>

#include "kernels/funcs/scan_functors.h"

namespace phi {
namespace funcs {
namespace simd {
// The result of an all-float logcumsumexp block (scan_simd_lanes.h).
struct LseFloatBlockResult {
  double sum;      // the block's terms, summed (against its max M)
  double first_p;  // P of the block's first step
  bool near_zero;  // some output is within kLseNearZero of 0 (storing only)
};

namespace avx512 {

// logcumsumexp of one float block of n = 128 steps in 16 float lanes (16 segments of 8 steps):
// LseFloatBlockF of scan_simd_lanes.h at 16 lanes; the arguments and the result are those
// of the 8-lane block of scan_simd_avx2.cc (LseBlock).
template <bool kStore>
LseFloatBlockResult LseFloatBlock16(const float* xb, float* ob, int n, float M, double s, double a, double b, double r);

}  // namespace avx512
}  // namespace simd
}  // namespace funcs
}  // namespace phi
