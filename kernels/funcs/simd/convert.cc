// The baseline (scalar) conversions and the run-time dispatch of convert.h. Compiled for the
// baseline target; PADDLE_OPS_CPU_ISA_AVX2 / _AVX512 say which vector paths CMake built.
#include "kernels/funcs/simd/convert.h"

namespace phi {
namespace funcs {
namespace simd {

namespace baseline {
void Float16ToFloat(const dtype::float16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = dtype::float16::BitsToFloat(x[i].x);
}
void FloatToFloat16(const float* x, dtype::float16* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i].x = dtype::float16::FloatToBits(x[i]);
}
void BFloat16ToFloat(const dtype::bfloat16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = dtype::bfloat16::BitsToFloat(x[i].x);
}
void FloatToBFloat16(const float* x, dtype::bfloat16* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i].x = dtype::bfloat16::FloatToBits(x[i]);
}
}  // namespace baseline

#if defined(PADDLE_OPS_CPU_ISA_AVX512)
#define PADDLE_OPS_CONVERT_AVX512(fn, ...) \
  case CpuIsa::kAvx512:                    \
    return avx512::fn(__VA_ARGS__);
#else
#define PADDLE_OPS_CONVERT_AVX512(fn, ...)
#endif
#if defined(PADDLE_OPS_CPU_ISA_AVX2)
#define PADDLE_OPS_CONVERT_AVX2(fn, ...) \
  case CpuIsa::kAvx2:                    \
    return avx2::fn(__VA_ARGS__);
#else
#define PADDLE_OPS_CONVERT_AVX2(fn, ...)
#endif
#define PADDLE_OPS_CONVERT_DISPATCH(fn, ...)    \
  switch (CpuIsaInUse()) {                      \
    PADDLE_OPS_CONVERT_AVX512(fn, __VA_ARGS__)  \
    PADDLE_OPS_CONVERT_AVX2(fn, __VA_ARGS__)    \
    default:                                    \
      return baseline::fn(__VA_ARGS__);         \
  }

void Float16ToFloat(const dtype::float16* x, float* y, int64_t n) { PADDLE_OPS_CONVERT_DISPATCH(Float16ToFloat, x, y, n) }
void FloatToFloat16(const float* x, dtype::float16* y, int64_t n) { PADDLE_OPS_CONVERT_DISPATCH(FloatToFloat16, x, y, n) }
void BFloat16ToFloat(const dtype::bfloat16* x, float* y, int64_t n) { PADDLE_OPS_CONVERT_DISPATCH(BFloat16ToFloat, x, y, n) }
void FloatToBFloat16(const float* x, dtype::bfloat16* y, int64_t n) { PADDLE_OPS_CONVERT_DISPATCH(FloatToBFloat16, x, y, n) }

#undef PADDLE_OPS_CONVERT_DISPATCH
#undef PADDLE_OPS_CONVERT_AVX2
#undef PADDLE_OPS_CONVERT_AVX512

}  // namespace simd
}  // namespace funcs
}  // namespace phi
