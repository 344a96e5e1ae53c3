// The fp16/bf16 conversions of convert.h: one source, compiled by Highway for each of its targets
// (hwy/foreach_target.h re-includes this file once per target) and chosen at run time
// (cpu_isa.h: the best target in use). Per target:
//   fp16  the hardware's conversion where the target has one (x86 F16C on AVX2 / AVX3, Arm's
//         FCVT on NEON / SVE), rounding to nearest even, with the NaN lanes rewritten to the
//         scalar rule; elsewhere (SSE4, SSSE3, EMU128) the scalar conversions.
//   bf16  round to nearest even in 32-bit integer lanes (add 0x7fff plus the lowest kept bit;
//         Highway 1.0.3's DemoteTo to bfloat16 truncates), a NaN keeping its top bits with the
//         quiet bit set; going up, a shift. EMU128 takes the scalar conversions.
// Vector steps cover whole vectors; the tail of fewer than a vector is scalar.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/funcs/simd/convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format off: highway.h after foreach_target.h
#include "hwy/highway.h"
// clang-format on
#include "kernels/funcs/simd/convert.h"

HWY_BEFORE_NAMESPACE();
namespace phi {
namespace funcs {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_EMU128 || HWY_TARGET == HWY_SCALAR
#define PADDLE_OPS_CONVERT_VECTOR_BF16 0
#else
#define PADDLE_OPS_CONVERT_VECTOR_BF16 1
#endif
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || \
    (HWY_ARCH_ARM_A64 && PADDLE_OPS_CONVERT_VECTOR_BF16)
#define PADDLE_OPS_CONVERT_VECTOR_F16 1
#else
#define PADDLE_OPS_CONVERT_VECTOR_F16 0
#endif

void Float16ToFloatImpl(const dtype::float16* x, float* y, int64_t n) {
  int64_t i = 0;
#if PADDLE_OPS_CONVERT_VECTOR_F16
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  for (; i + N <= n; i += N) {
    const auto h = hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(x + i));
    auto f = hn::PromoteTo(df, h);
    const auto is_nan = hn::IsNaN(f);
    if (!hn::AllFalse(df, is_nan)) {
      // The scalar rule: sign, all-ones exponent and the 10-bit payload moved up, not quieted
      // (the hardware sets the quiet bit of a signaling NaN).
      const auto u = hn::PromoteTo(du32, hn::BitCast(du16, h));
      const auto sign = hn::ShiftLeft<16>(hn::And(u, hn::Set(du32, 0x8000u)));
      const auto pay = hn::ShiftLeft<13>(hn::And(u, hn::Set(du32, 0x3ffu)));
      const auto bits = hn::Or(hn::Or(sign, pay), hn::Set(du32, 0x7f800000u));
      f = hn::IfThenElse(is_nan, hn::BitCast(df, bits), f);
    }
    hn::StoreU(f, df, y + i);
  }
#endif
  baseline::Float16ToFloat(x + i, y + i, n - i);
}

void FloatToFloat16Impl(const float* x, dtype::float16* y, int64_t n) {
  int64_t i = 0;
#if PADDLE_OPS_CONVERT_VECTOR_F16
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const hn::Rebind<int16_t, decltype(df)> di16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  for (; i + N <= n; i += N) {
    const auto h = hn::BitCast(di16, hn::DemoteTo(dh, hn::LoadU(df, x + i)));
    // A NaN (quiet after the conversion) becomes sign | 0x7e00, as the scalar conversion makes it.
    const auto is_nan = hn::Gt(hn::And(h, hn::Set(di16, 0x7fff)), hn::Set(di16, 0x7c00));
    const auto r = hn::IfThenElse(is_nan, hn::And(h, hn::Set(di16, static_cast<int16_t>(0xfe00))), h);
    hn::StoreU(r, di16, reinterpret_cast<int16_t*>(y + i));
  }
#endif
  baseline::FloatToFloat16(x + i, y + i, n - i);
}

void BFloat16ToFloatImpl(const dtype::bfloat16* x, float* y, int64_t n) {
  int64_t i = 0;
#if PADDLE_OPS_CONVERT_VECTOR_BF16
  const hn::ScalableTag<uint32_t> du32;
  const hn::Rebind<uint16_t, decltype(du32)> du16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(du32));
  for (; i + N <= n; i += N) {
    const auto u = hn::PromoteTo(du32, hn::LoadU(du16, reinterpret_cast<const uint16_t*>(x + i)));
    hn::StoreU(hn::ShiftLeft<16>(u), du32, reinterpret_cast<uint32_t*>(y + i));
  }
#endif
  baseline::BFloat16ToFloat(x + i, y + i, n - i);
}

void FloatToBFloat16Impl(const float* x, dtype::bfloat16* y, int64_t n) {
  int64_t i = 0;
#if PADDLE_OPS_CONVERT_VECTOR_BF16
  const hn::ScalableTag<int32_t> di32;
  const hn::Rebind<uint16_t, decltype(di32)> du16;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di32));
  const auto one = hn::Set(di32, 1), round = hn::Set(di32, 0x7fff), quiet = hn::Set(di32, 0x40);
  const auto abs_mask = hn::Set(di32, 0x7fffffff), inf = hn::Set(di32, 0x7f800000);
  for (; i + N <= n; i += N) {
    const auto u = hn::LoadU(di32, reinterpret_cast<const int32_t*>(x + i));
    // Logical shifts of the bits: the sign bit must not spread (the lanes are signed only for the
    // NaN compare and the narrowing below).
    const auto top = hn::BitCast(di32, hn::ShiftRight<16>(hn::BitCast(hn::RebindToUnsigned<decltype(di32)>(), u)));
    const auto sum = hn::Add(hn::Add(u, round), hn::And(top, one));
    auto r = hn::BitCast(di32, hn::ShiftRight<16>(hn::BitCast(hn::RebindToUnsigned<decltype(di32)>(), sum)));
    r = hn::IfThenElse(hn::Gt(hn::And(u, abs_mask), inf), hn::Or(top, quiet), r);
    // Every lane is in [0, 0xffff]: the saturating narrowing keeps it as it is.
    hn::StoreU(hn::DemoteTo(du16, r), du16, reinterpret_cast<uint16_t*>(y + i));
  }
#endif
  baseline::FloatToBFloat16(x + i, y + i, n - i);
}

#undef PADDLE_OPS_CONVERT_VECTOR_F16
#undef PADDLE_OPS_CONVERT_VECTOR_BF16

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace funcs
}  // namespace phi
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace phi {
namespace funcs {
namespace simd {

// Out of line (not inlined into the targets' tails): the scalar fp16 loop measured 17 % slower
// inlined into EMU128's code than as its own function.
namespace baseline {
HWY_NOINLINE void Float16ToFloat(const dtype::float16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = dtype::float16::BitsToFloat(x[i].x);
}
HWY_NOINLINE void FloatToFloat16(const float* x, dtype::float16* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i].x = dtype::float16::FloatToBits(x[i]);
}
HWY_NOINLINE void BFloat16ToFloat(const dtype::bfloat16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = dtype::bfloat16::BitsToFloat(x[i].x);
}
HWY_NOINLINE void FloatToBFloat16(const float* x, dtype::bfloat16* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i].x = dtype::bfloat16::FloatToBits(x[i]);
}
}  // namespace baseline

HWY_EXPORT(Float16ToFloatImpl);
HWY_EXPORT(FloatToFloat16Impl);
HWY_EXPORT(BFloat16ToFloatImpl);
HWY_EXPORT(FloatToBFloat16Impl);

void Float16ToFloat(const dtype::float16* x, float* y, int64_t n) { PADDLE_OPS_HWY_DISPATCH(Float16ToFloatImpl)(x, y, n); }
void FloatToFloat16(const float* x, dtype::float16* y, int64_t n) { PADDLE_OPS_HWY_DISPATCH(FloatToFloat16Impl)(x, y, n); }
void BFloat16ToFloat(const dtype::bfloat16* x, float* y, int64_t n) { PADDLE_OPS_HWY_DISPATCH(BFloat16ToFloatImpl)(x, y, n); }
void FloatToBFloat16(const float* x, dtype::bfloat16* y, int64_t n) { PADDLE_OPS_HWY_DISPATCH(FloatToBFloat16Impl)(x, y, n); }

}  // namespace simd
}  // namespace funcs
}  // namespace phi
#endif  // HWY_ONCE
