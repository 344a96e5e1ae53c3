// The AVX-512 conversions of convert.h (built with AVX-512 F/BW/VL/DQ/BF16 and F16C; called only
// when cpu_isa.cc found those on the CPU). Tails are masked loads and stores.
#include "kernels/funcs/simd/gcc_avx512.h"  // first: the warning it silences comes from <immintrin.h>

#include <immintrin.h>

#include "kernels/funcs/simd/convert.h"

namespace phi {
namespace funcs {
namespace simd {
namespace avx512 {

namespace {
inline __mmask16 Mask16(int64_t left) {
  return left >= 16 ? __mmask16(0xffff) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
}

// 16 floats from 16 fp16 (bits in h); NaNs as the scalar conversion makes them (sign, all-ones
// exponent, the payload moved up and not quieted; vcvtph2ps quiets a signaling NaN).
inline __m512 HalfToFloat(__m256i h) {
  const __m512 f = _mm512_cvtph_ps(h);
  const __mmask16 is_nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
  if (is_nan == 0) return f;
  const __m512i u = _mm512_cvtepu16_epi32(h);
  const __m512i sign = _mm512_slli_epi32(_mm512_and_si512(u, _mm512_set1_epi32(0x8000)), 16);
  const __m512i pay = _mm512_slli_epi32(_mm512_and_si512(u, _mm512_set1_epi32(0x3ff)), 13);
  const __m512i bits = _mm512_or_si512(_mm512_or_si512(sign, pay), _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_mov_ps(f, is_nan, _mm512_castsi512_ps(bits));
}

// 16 fp16 from 16 floats, round to nearest even; a NaN becomes sign | 0x7e00.
inline __m256i FloatToHalf(__m512 f) {
  const __m256i h = _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __mmask16 is_nan = _mm256_cmpgt_epi16_mask(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(0x7c00));
  return _mm256_mask_blend_epi16(is_nan, h, _mm256_and_si256(h, _mm256_set1_epi16(short(0xfe00))));
}

// bf16 bits of 16 floats in integer lanes: round to nearest even, a NaN keeps its top bits with
// the quiet bit set (the scalar rule; used where vcvtne2ps2bf16 would flush a subnormal).
inline __m256i BFloat16Bits(__m512 f) {
  const __m512i u = _mm512_castps_si512(f);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb), 16);
  const __mmask16 is_nan =
      _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  r = _mm512_mask_mov_epi32(r, is_nan, _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40)));
  return _mm512_cvtepi32_epi16(r);
}

// Lanes whose exponent field is zero but which are not ±0: float32 subnormals.
inline __mmask16 Subnormal(__m512 f) {
  const __m512i u = _mm512_castps_si512(f);
  return _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7f800000)) &
         _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x7fffffff));
}
}  // namespace

void Float16ToFloat(const dtype::float16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Mask16(n - i);
    const __m256i h = _mm256_maskz_loadu_epi16(m, x + i);
    _mm512_mask_storeu_ps(y + i, m, HalfToFloat(h));
  }
}

void FloatToFloat16(const float* x, dtype::float16* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Mask16(n - i);
    _mm256_mask_storeu_epi16(y + i, m, FloatToHalf(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

void BFloat16ToFloat(const dtype::bfloat16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Mask16(n - i);
    const __m512i u = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, x + i));
    _mm512_mask_storeu_epi32(y + i, m, _mm512_slli_epi32(u, 16));
  }
}

void FloatToBFloat16(const float* x, dtype::bfloat16* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 32) {
    const __mmask16 m0 = Mask16(n - i), m1 = Mask16(n - i - 16);
    const __m512 a = _mm512_maskz_loadu_ps(m0, x + i), b = _mm512_maskz_loadu_ps(m1, x + i + 16);
    __m512i r = (__m512i)_mm512_cvtne2ps_pbh(b, a);
    if ((Subnormal(a) | Subnormal(b)) != 0) {
      // vcvtne2ps2bf16 reads subnormal inputs as zero; the scalar rule rounds them.
      r = _mm512_inserti64x4(_mm512_castsi256_si512(BFloat16Bits(a)), BFloat16Bits(b), 1);
    }
    _mm512_mask_storeu_epi16(y + i, (__mmask32(m1) << 16) | m0, r);
  }
}

}  // namespace avx512
}  // namespace simd
}  // namespace funcs
}  // namespace phi
