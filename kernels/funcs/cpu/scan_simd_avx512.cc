// AVX-512 blocks of the CPU scan engine (scan_simd_avx512.h). Built with the AVX-512 F/BW/VL/DQ
// flags and -ffp-contract=off (CMakeLists.txt, as every <name>_avx512.cc) and called only from the
// AVX2 kernels when the run-time dispatch says AVX-512 is in use.
#include "kernels/funcs/simd/gcc_avx512.h"  // first: the warning it silences comes from <immintrin.h>

#include <immintrin.h>

#include "kernels/funcs/cpu/scan_simd_avx512.h"
#include "kernels/funcs/cpu/scan_simd_lanes.h"

namespace phi {
namespace funcs {
namespace simd {
namespace {

// The 16 float lanes of scan_simd_lanes.h: the same operations as scan_simd_avx2.cc's
// FloatLanes8, lane for lane (Rcp: 14 bits instead of 12; it only scales a correction
// below 2^-24 of the output).
struct FloatLanes16 {
  using V = __m512;
  static constexpr int kLanes = 16;
  static __m512 Set(float v) { return _mm512_set1_ps(v); }
  static __m512 Load(const float* p) { return _mm512_load_ps(p); }
  static void Store(float* p, __m512 v) { _mm512_store_ps(p, v); }
  static __m512 Add(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
  static __m512 Sub(__m512 a, __m512 b) { return _mm512_sub_ps(a, b); }
  static __m512 Mul(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
  static __m512 Fmadd(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
  static __m512 Fnmadd(__m512 a, __m512 b, __m512 c) { return _mm512_fnmadd_ps(a, b, c); }
  static __m512 Max(__m512 a, __m512 b) { return _mm512_max_ps(a, b); }
  static __m512 Min(__m512 a, __m512 b) { return _mm512_min_ps(a, b); }
  static __m512 Abs(__m512 v) { return _mm512_abs_ps(v); }
  static __m512 RoundNearest(__m512 v) { return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static __m512 Pow2(__m512 m) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(m), _mm512_set1_epi32(127)), 23));
  }
  static __m512 Rcp(__m512 v) { return _mm512_rcp14_ps(v); }
  static __m512 ZeroBelow(__m512 t, __m512 d, __m512 low) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(d, low, _CMP_GE_OQ), t);
  }
  static void SplitSqrt2(__m512 p, __m512* f, __m512* e) {
    const __m512i bits = _mm512_castps_si512(p);
    *f = _mm512_castsi512_ps(
        _mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi32(0x007FFFFF)), _mm512_set1_epi32(0x3F800000)));
    *e = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_srli_epi32(bits, 23), _mm512_set1_epi32(127)));
    const __mmask16 big = _mm512_cmp_ps_mask(*f, _mm512_set1_ps(1.41421356f), _CMP_GT_OQ);
    *f = _mm512_mask_mul_ps(*f, big, *f, _mm512_set1_ps(0.5f));
    *e = _mm512_mask_add_ps(*e, big, *e, _mm512_set1_ps(1.0f));
  }
};

}  // namespace
}  // namespace simd
}  // namespace funcs
}  // namespace phi


#if !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__)
#error "scan_simd_avx512.cc must be compiled with -mavx512f -mavx512dq -mavx512vl"
#endif

namespace phi {
namespace funcs {
namespace simd {
namespace avx512 {

template <bool kStore>
LseFloatBlockResult LseFloatBlock16(const float* xb, float* ob, int n, float M, double s, double a, double b, double r) {
  return LseFloatBlockF<FloatLanes16, kStore>(xb, ob, n, M, s, a, b, r);
}
template LseFloatBlockResult LseFloatBlock16<false>(const float*, float*, int, float, double, double, double, double);
template LseFloatBlockResult LseFloatBlock16<true>(const float*, float*, int, float, double, double, double, double);

}  // namespace avx512
}  // namespace simd
}  // namespace funcs
}  // namespace phi
