// Vector conversions between float32 and the 16-bit floating types on Highway (convert.cc: one
// source for every target, the best target in use chosen per call; cpu_isa.h, the flag
// PADDLE_OPS_CPU_ISA caps it). Every path gives bitwise the scalar conversions' results of
// paddle_ops/common/{float16,bfloat16}.h, NaNs included (fp16: a NaN keeps its sign and becomes
// 0x7e00 going down, and keeps its payload unquieted going up; bf16: round to nearest even, a NaN
// keeps the payload's top bits with the quiet bit set); unittests/cpp/test_convert.cc checks all
// 2^16 16-bit inputs and a large set of float32 ones on every target the CPU has.
// The arrays may not overlap; n may be any count.
#pragma once

#include <cstdint>

#include "kernels/funcs/simd/cpu_isa.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {
namespace simd {

#define PADDLE_OPS_CONVERT_DECLARE()                                       \
  void Float16ToFloat(const dtype::float16* x, float* y, int64_t n);      \
  void FloatToFloat16(const float* x, dtype::float16* y, int64_t n);      \
  void BFloat16ToFloat(const dtype::bfloat16* x, float* y, int64_t n);    \
  void FloatToBFloat16(const float* x, dtype::bfloat16* y, int64_t n);

// The dispatched entry points (CpuTargetsInUse(), looked up per call).
PADDLE_OPS_CONVERT_DECLARE()

// The scalar conversions (the reference; the vector paths' tails).
namespace baseline {
PADDLE_OPS_CONVERT_DECLARE()
}  // namespace baseline

// y[i] = To(x[i]) for the pairs above (one of From, To float, the other a 16-bit type).
template <typename From, typename To>
inline void Convert(const From* x, To* y, int64_t n);
template <>
inline void Convert(const dtype::float16* x, float* y, int64_t n) { Float16ToFloat(x, y, n); }
template <>
inline void Convert(const float* x, dtype::float16* y, int64_t n) { FloatToFloat16(x, y, n); }
template <>
inline void Convert(const dtype::bfloat16* x, float* y, int64_t n) { BFloat16ToFloat(x, y, n); }
template <>
inline void Convert(const float* x, dtype::bfloat16* y, int64_t n) { FloatToBFloat16(x, y, n); }

}  // namespace simd
}  // namespace funcs
}  // namespace phi
