// Vector conversions between float32 and the 16-bit floating types, run-time dispatched by
// instruction set (cpu_isa.h):
//   avx512   fp16: AVX-512F vcvtph2ps / vcvtps2ph, 16 lanes; bf16: AVX512_BF16 vcvtne2ps2bf16,
//            32 lanes (its inputs with a zero exponent field, which the instruction flushes to
//            zero, go through the integer path below); bf16 -> float32 is a shift.
//   avx2     fp16: F16C, 8 lanes; bf16: round to nearest even in 32-bit integer lanes (add
//            0x7fff plus the lowest kept bit), 16 lanes per step; bf16 -> float32 a shift.
//   baseline the scalar conversions of paddle_ops/common/{float16,bfloat16}.h.
// Every path gives bitwise the scalar conversions' results, NaNs included (fp16: a NaN keeps
// its sign and becomes 0x7e00 going down, and keeps its payload unquieted going up; bf16: the
// payload's top bits with the quiet bit set going down); unittests/cpp/test_convert.cc checks
// all 2^16 16-bit inputs and a large set of float32 ones on every path the CPU has.
// The arrays may not overlap. n may be any count (the vector paths finish with masked or
// scalar steps).
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

// The dispatched entry points (CpuIsaInUse(), looked up per call).
PADDLE_OPS_CONVERT_DECLARE()

// Each path on its own (tests compare them); avx2:: and avx512:: exist only where CMake builds
// them, and may be called only where CpuIsaSupported() reaches them.
namespace baseline {
PADDLE_OPS_CONVERT_DECLARE()
}  // namespace baseline
namespace avx2 {
PADDLE_OPS_CONVERT_DECLARE()
}  // namespace avx2
namespace avx512 {
PADDLE_OPS_CONVERT_DECLARE()
}  // namespace avx512

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
