// AVX-512 blocks of the CPU scan engine (scan_simd_avx512.h). Built with the AVX-512 F/BW/VL/DQ
// flags and -ffp-contract=off (CMakeLists.txt, as every <name>_avx512.cc) and called only from the
// AVX2 kernels when the run-time dispatch says AVX-512 is in use.
#include "kernels/funcs/simd/gcc_avx512.h"  // first: the warning it silences comes from <immintrin.h>

#include <immintrin.h>

#include "kernels/funcs/cpu/scan_simd_avx512.h"
#include "kernels/funcs/cpu/scan_simd_sum_rows.h"

#if !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__)
#error "scan_simd_avx512.cc must be compiled with -mavx512f -mavx512dq -mavx512vl"
#endif

namespace phi {
namespace funcs {
namespace simd {
namespace avx512 {
namespace {

using Pair = CompensatedSum<double>;

// A vector of 8 doubles (or 8 floats) as its two halves of 4.
PADDLE_OPS_VINLINE __m256d LowHalf(__m512d v) { return _mm512_castpd512_pd256(v); }
PADDLE_OPS_VINLINE __m256d HighHalf(__m512d v) { return _mm512_extractf64x4_pd(v, 1); }
PADDLE_OPS_VINLINE __m128 LowHalf(__m256 v) { return _mm256_castps256_ps128(v); }
PADDLE_OPS_VINLINE __m128 HighHalf(__m256 v) { return _mm256_extractf128_ps(v, 1); }

// The 8-lane operations of SegmentedSumBlock (scan_simd_sum_rows.h): 8 segments, the steps of
// segments 0-3 and 4-7 moved by the 4-lane transposes and joined into one vector.
struct SumLanes8 {
  using V = __m512d;
  static constexpr int kLanes = 8;
  static V Zero() { return _mm512_setzero_pd(); }
  static V Add(V a, V b) { return _mm512_add_pd(a, b); }
  static V Sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V DropNaN(V v) { return _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(v, v, _CMP_ORD_Q), v); }
  static void Store(double* p, V v) { _mm512_store_pd(p, v); }
  static V Load(const double* p) { return _mm512_load_pd(p); }
  template <bool kRev, typename T>
  static void LoadSteps(const T* p, int64_t seg, int j, V v[4]) {
    __m256d lo[4], hi[4];
    LoadSteps4<kRev>(p, seg, j, lo);
    LoadSteps4<kRev>(kRev ? p - 4 * seg : p + 4 * seg, seg, j, hi);
    for (int i = 0; i < 4; ++i) v[i] = _mm512_insertf64x4(_mm512_castpd256_pd512(lo[i]), hi[i], 1);
  }
  template <bool kRev, typename T, typename R>
  static void StoreSteps(T* p, int64_t seg, int j, R r[4]) {
    decltype(LowHalf(r[0])) lo[4], hi[4];
    for (int i = 0; i < 4; ++i) {
      lo[i] = LowHalf(r[i]);
      hi[i] = HighHalf(r[i]);
    }
    StoreSteps4<kRev>(p, seg, j, lo);
    StoreSteps4<kRev>(kRev ? p - 4 * seg : p + 4 * seg, seg, j, hi);
  }
  // hi + lo rounded once: to double, the nearest; to float, through the nearest double, except
  // where that double is a float tie (its 29 bits below float's last are 1000...0) and hi + lo
  // is not: those lanes are redone exactly (RoundCompensated), as in scan_simd_avx2.cc.
  static V RoundPair(V hi, V lo, const double*) { return _mm512_add_pd(hi, lo); }
  static __m256 RoundPair(V hi, V lo, const float*) {
    const __m512d d = _mm512_add_pd(hi, lo);
    const __m256 f = _mm512_cvtpd_ps(d);
    const __mmask8 tie = _mm512_cmpeq_epi64_mask(
        _mm512_and_si512(_mm512_castpd_si512(d), _mm512_set1_epi64(0x1FFFFFFFLL)), _mm512_set1_epi64(0x10000000LL));
    if (__builtin_expect(tie == 0, 1)) return f;
    alignas(64) double h[8], l[8];
    alignas(32) float r[8];
    _mm512_store_pd(h, hi);
    _mm512_store_pd(l, lo);
    _mm256_store_ps(r, f);
    RedoFloatTies<8>(h, l, tie, r);
    return _mm256_load_ps(r);
  }
};

}  // namespace

template <bool kStore, bool kRev, typename T>
Pair SumRowBlock(const T* p, T* o, int64_t seg, const Pair& base, bool exclusive) {
  return SegmentedSumBlock<SumLanes8, kStore, kRev>(p, o, seg, base, exclusive);
}

#define PADDLE_OPS_AVX512_SUM_BLOCK(S, R, T) \
  template Pair SumRowBlock<S, R, T>(const T*, T*, int64_t, const Pair&, bool);
#define PADDLE_OPS_AVX512_SUM_BLOCKS(T)        \
  PADDLE_OPS_AVX512_SUM_BLOCK(false, false, T) \
  PADDLE_OPS_AVX512_SUM_BLOCK(false, true, T)  \
  PADDLE_OPS_AVX512_SUM_BLOCK(true, false, T)  \
  PADDLE_OPS_AVX512_SUM_BLOCK(true, true, T)
PADDLE_OPS_AVX512_SUM_BLOCKS(float)
PADDLE_OPS_AVX512_SUM_BLOCKS(double)
#undef PADDLE_OPS_AVX512_SUM_BLOCKS
#undef PADDLE_OPS_AVX512_SUM_BLOCK

}  // namespace avx512
}  // namespace simd
}  // namespace funcs
}  // namespace phi
