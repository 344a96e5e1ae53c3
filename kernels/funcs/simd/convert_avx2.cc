// The AVX2 + F16C conversions of convert.h (built with -mavx2 -mfma -mf16c; called only when
// cpu_isa.cc found those on the CPU). Tails of fewer than a vector take the scalar path.
#include <immintrin.h>

#include "kernels/funcs/simd/convert.h"

namespace phi {
namespace funcs {
namespace simd {
namespace avx2 {

namespace {
// float32 bits of 8 fp16 NaNs as the scalar conversion makes them: sign, all-ones exponent and
// the 10-bit payload moved up, not quieted (vcvtph2ps sets the quiet bit of a signaling NaN).
inline __m256 HalfNanBits(__m128i h) {
  const __m256i u = _mm256_cvtepu16_epi32(h);
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x8000)), 16);
  const __m256i pay = _mm256_slli_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x3ff)), 13);
  return _mm256_castsi256_ps(_mm256_or_si256(_mm256_or_si256(sign, pay), _mm256_set1_epi32(0x7f800000)));
}

// bf16 bits (in the low 16 bits of each 32-bit lane) of 8 floats: round to nearest even; a NaN
// keeps its top bits with the quiet bit set.
inline __m256i BFloat16Bits(__m256 f) {
  const __m256i u = _mm256_castps_si256(f);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb), 16);
  const __m256i nan = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
  const __m256i is_nan =
      _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  return _mm256_blendv_epi8(rounded, nan, is_nan);
}
}  // namespace

void Float16ToFloat(const dtype::float16* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    const __m256 f = _mm256_cvtph_ps(h);
    const __m256 is_nan = _mm256_cmp_ps(f, f, _CMP_UNORD_Q);
    _mm256_storeu_ps(y + i, _mm256_blendv_ps(f, HalfNanBits(h), is_nan));
  }
  baseline::Float16ToFloat(x + i, y + i, n - i);
}

void FloatToFloat16(const float* x, dtype::float16* y, int64_t n) {
  const __m128i abs_mask = _mm_set1_epi16(0x7fff), inf = _mm_set1_epi16(0x7c00), payload = _mm_set1_epi16(0x01ff);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    // A NaN (quiet after the instruction) becomes sign | 0x7e00, as the scalar conversion makes it.
    const __m128i is_nan = _mm_cmpgt_epi16(_mm_and_si128(h, abs_mask), inf);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), _mm_andnot_si128(_mm_and_si128(is_nan, payload), h));
  }
  baseline::FloatToFloat16(x + i, y + i, n - i);
}

void BFloat16ToFloat(const dtype::bfloat16* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), _mm256_slli_epi32(u, 16));
  }
  baseline::BFloat16ToFloat(x + i, y + i, n - i);
}

void FloatToBFloat16(const float* x, dtype::bfloat16* y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i lo = BFloat16Bits(_mm256_loadu_ps(x + i));
    const __m256i hi = BFloat16Bits(_mm256_loadu_ps(x + i + 8));
    // packus works per 128-bit lane: [lo0-3 hi0-3 lo4-7 hi4-7]; the permute restores the order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), packed);
  }
  baseline::FloatToBFloat16(x + i, y + i, n - i);
}

}  // namespace avx2
}  // namespace simd
}  // namespace funcs
}  // namespace phi
