// gla (docs/spec.md §5): the chunked form on the CPU, forward and backward of one head, computing
// in float (float32 and the 16-bit types; float64 stays on the recurrent form of recurrent.h), and
// the whole-call entry points of chunk_cpu.h. One source, compiled by Highway for each of its
// targets (hwy/foreach_target.h re-includes this file once per target) and chosen at run time by
// the target in use (kernels/funcs/simd/cpu_isa.h), as convert.cc and scan_cumsum.cc are. The
// small matrix products are our own fixed register tiles (Gemm below), the exps Highway's
// contrib/math Exp (1 ulp) with inf and NaN kept as std::exp keeps them.
//
// Chunks of kGlaCpuChunk steps; B_r = sum_{s <= r} gk_s inside the chunk (summed in double, each
// gate raised to kGlaCpuGateFloor first, which keeps -inf and huge gates exact: chunk_cpu.h),
// Btot its last row, S the state at the chunk's start. With qs = scale q:
//   o_r   = (qs_r * exp(B_r)) S + sum_{s <= r} A[r, s] v_s,  A[r, s] = sum_i qs_ri k_si exp(B_ri - B_si)
//   S'    = exp(Btot)[:, None] * S + (k * exp(Btot - B))^T v
// A's off-diagonal 16-step blocks are matrix products of q and k scaled against one reference
// row per secondary chunk (the cumulative decay just before it), so every exponent is <= 0
// when gk <= 0; the diagonal blocks take exp(B_ri - B_si) as the running product
// exp(gk_{s+1}) ... exp(gk_r) (each factor <= 1 when gk <= 0).
// Backward, with dS the gradient of the state after the chunk and dA = do v^T (causal):
//   dq_r  = scale (exp(B_r) * (S do_r) + sum_{s <= r} dA[r, s] k_s exp(B_r - B_s))
//   dk_s  = exp(Btot - B_s) * (dS v_s) + sum_{r >= s} dA[r, s] qs_r exp(B_r - B_s)
//   dv    = A^T do + (k * exp(Btot - B)) dS,   dS_before = exp(Btot)[:, None] * dS + (qs * exp(B))^T do
// and dgk summed within each chunk (ChunkGateGrad: exp(Btot) sum_j S dS, the earlier steps' k dk
// from dS, and the reverse sum of the rest of q dq - k dk, each step's own terms left out,
// restarting from 0 at a gate whose factor is 0); dgk_0 = sum_j dh0 * h0. The backward keeps the
// states before the chunks and dS transposed (S^T, dS^T), so that S do_r and dS v_s are plain
// products and sum_j S dS runs along rows. The per-head computation is sequential in a fixed order,
// so results do not depend on the thread count; they do depend on the target (vector widths and
// tiles group the sums differently), each within the spec's bounds.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gla/chunk_cpu.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// clang-format off: highway.h after foreach_target.h
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
// clang-format on
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/funcs/simd/convert.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "kernels/gla/chunk_cpu.h"
#include "kernels/gla/recurrent.h"
#include "kernels/util/omp_exception.h"
#include "paddle_ops/core/cpu_threads.h"

HWY_BEFORE_NAMESPACE();
namespace phi {
namespace funcs {
namespace gla_cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- the vector steps ------------------------------------------------------------------------
// Highway's vectors on the SIMD targets. The fallback target (HWY_SCALAR with GCC before 12.3,
// whose EMU128 Highway marks broken; EMU128 elsewhere) has one lane or emulated ones: there the
// same steps run on the compiler's 4-float vectors (GCC / Clang vector extensions: SSE2 on any
// x86-64, NEON on aarch64), with an exp of our own.
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
typedef float VF __attribute__((vector_size(16)));
typedef int32_t VI __attribute__((vector_size(16)));
constexpr int kTileVectors = 3;  // 16 registers (as on AVX2 below)
HWY_INLINE int64_t Lanes() { return 4; }
HWY_INLINE VF VLoad(const float* p) {
  VF v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
HWY_INLINE void VStore(VF v, float* p) { std::memcpy(p, &v, sizeof(v)); }
HWY_INLINE VF VSet(float a) { return VF{a, a, a, a}; }
HWY_INLINE VF VZero() { return VF{0.f, 0.f, 0.f, 0.f}; }
HWY_INLINE VF VAdd(VF a, VF b) { return a + b; }
HWY_INLINE VF VSub(VF a, VF b) { return a - b; }
HWY_INLINE VF VMul(VF a, VF b) { return a * b; }
HWY_INLINE VF VFma(VF a, VF b, VF c) { return a * b + c; }
HWY_INLINE float VSum(VF v) { return (v[0] + v[2]) + (v[1] + v[3]); }
// mask ? a : b, the mask a comparison's lanes (all ones or zero).
HWY_INLINE VF VSelect(VI mask, VF a, VF b) { return (VF)((mask & (VI)a) | (~mask & (VI)b)); }
HWY_INLINE VF Pow2(VI e) { return (VF)((e + 127) << 23); }  // 2^e for -126 <= e <= 127
// exp in lanes as std::exp: x = n ln 2 + r (|r| <= ln 2 / 2, n to nearest, ln 2 in two parts),
// exp(r) by a degree-7 polynomial (Cephes' expf coefficients), times 2^n in two factors (so
// that n from -150 to 128 stays in range: subnormal results and overflow to inf come out of
// the multiplies); 0 below -104, +inf above float's range, a NaN kept. Within 0.97 ulp of expl
// on [-87, 88.7] (2^20 random arguments).
HWY_INLINE VF VExp(VF x) {
  const VF xc = VSelect(x < VSet(-104.f), VSet(-104.f), VSelect(x > VSet(89.f), VSet(89.f), x));
  const VF big = VSet(12582912.f);  // 1.5 * 2^23: adding it rounds to an integer
  const VF n = (xc * VSet(1.44269504088896341f) + big) - big;
  VF r = xc - n * VSet(0.693359375f);
  r = r - n * VSet(-2.12194440e-4f);
  VF p = VSet(1.9875691500e-4f);
  p = p * r + VSet(1.3981999507e-3f);
  p = p * r + VSet(8.3334519073e-3f);
  p = p * r + VSet(4.1665795894e-2f);
  p = p * r + VSet(1.6666665459e-1f);
  p = p * r + VSet(5.0000001201e-1f);
  p = p * (r * r) + r + VSet(1.f);
  const VI ni = __builtin_convertvector(n, VI);
  const VI n1 = ni >> 1;
  VF y = p * Pow2(n1) * Pow2(ni - n1);
  y = VSelect(x < VSet(-104.f), VZero(), y);
  y = VSelect(x > VSet(89.f), VSet(std::numeric_limits<float>::infinity()), y);
  return VSelect(x != x, x, y);
}
// f[i] = float(a[i] - b[i]) (b null: a[i]) for i < n, then exp.
inline void ExpDiff(const double* a, const double* b, int64_t n, float* f) {
  if (b) {
    for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(a[i] - b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) f[i] = static_cast<float>(a[i]);
  }
  for (int64_t i = 0; i < n; i += 4) VStore(VExp(VLoad(f + i)), f + i);
}
// out[i] = prev[i] + g[i] in double (prev null: g[i]) for i < n.
inline void AddInDouble(const double* prev, const float* g, int64_t n, double* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = (prev ? prev[i] : 0.0) + static_cast<double>(g[i]);
}
// out[i] = prev[i] + k[i] u[i] in double for i < n.
inline void AddProductInDouble(const double* prev, const float* k, const float* u, int64_t n, double* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = prev[i] + static_cast<double>(k[i]) * static_cast<double>(u[i]);
}
// In double for i < n: sum[i] += q[i] dq[i] - k[i] dk[i], or 0 where e[i] = 0; then
// out[i] = float(base[i] + pre[i] + sum[i]).
inline void GateGradRow(const float* q, const float* dq, const float* k, const float* dk, const float* e,
                        const double* base, const double* pre, int64_t n, double* sum, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const double a = sum[i] + (static_cast<double>(q[i]) * static_cast<double>(dq[i]) -
                               static_cast<double>(k[i]) * static_cast<double>(dk[i]));
    sum[i] = e[i] == 0.f ? 0.0 : a;
    out[i] = static_cast<float>(base[i] + pre[i] + sum[i]);
  }
}
#else
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using DD = hn::ScalableTag<double>;
// Vectors per register tile row: 4 where the target has 32 vector registers (AVX-512, Arm),
// else 3 (16 registers: 12 sums, 3 rows of B and a broadcast).
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3) || HWY_ARCH_ARM_A64
constexpr int kTileVectors = 4;
#else
constexpr int kTileVectors = 3;
#endif
HWY_INLINE int64_t Lanes() { return static_cast<int64_t>(hn::Lanes(DF())); }
HWY_INLINE VF VLoad(const float* p) { return hn::LoadU(DF(), p); }
HWY_INLINE void VStore(VF v, float* p) { hn::StoreU(v, DF(), p); }
HWY_INLINE VF VSet(float a) { return hn::Set(DF(), a); }
HWY_INLINE VF VZero() { return hn::Zero(DF()); }
HWY_INLINE VF VAdd(VF a, VF b) { return hn::Add(a, b); }
HWY_INLINE VF VSub(VF a, VF b) { return hn::Sub(a, b); }
HWY_INLINE VF VMul(VF a, VF b) { return hn::Mul(a, b); }
HWY_INLINE VF VFma(VF a, VF b, VF c) { return hn::MulAdd(a, b, c); }
HWY_INLINE float VSum(VF v) { return hn::GetLane(hn::SumOfLanes(DF(), v)); }
// exp in lanes as std::exp: Highway's Exp (1 ulp; 0 below -104), +inf above float's range, a
// NaN kept.
HWY_INLINE VF VExp(VF x) {
  const DF d;
  VF y = hn::Exp(d, x);
  y = hn::IfThenElse(hn::Gt(x, hn::Set(d, 88.8f)), hn::Set(d, std::numeric_limits<float>::infinity()), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}
// f[i] = exp(float(a[i] - b[i])) (b null: a[i]) for i < n (n a multiple of the lanes).
inline void ExpDiff(const double* a, const double* b, int64_t n, float* f) {
  const DD dd;
  const hn::Rebind<float, DD> dh;
  const int64_t nd = static_cast<int64_t>(hn::Lanes(dd));
  for (int64_t i = 0; i < n; i += nd) {
    auto x = hn::LoadU(dd, a + i);
    if (b) x = hn::Sub(x, hn::LoadU(dd, b + i));
    hn::StoreU(hn::DemoteTo(dh, x), dh, f + i);
  }
  for (int64_t i = 0; i < n; i += Lanes()) VStore(VExp(VLoad(f + i)), f + i);
}
// out[i] = prev[i] + g[i] in double (prev null: g[i]) for i < n (a multiple of the lanes).
inline void AddInDouble(const double* prev, const float* g, int64_t n, double* out) {
  const DD dd;
  const hn::Rebind<float, DD> dh;
  const int64_t nd = static_cast<int64_t>(hn::Lanes(dd));
  for (int64_t i = 0; i < n; i += nd) {
    auto x = hn::PromoteTo(dd, hn::LoadU(dh, g + i));
    if (prev) x = hn::Add(x, hn::LoadU(dd, prev + i));
    hn::StoreU(x, dd, out + i);
  }
}
// out[i] = prev[i] + k[i] u[i] in double for i < n (a multiple of the lanes; the products exact).
inline void AddProductInDouble(const double* prev, const float* k, const float* u, int64_t n, double* out) {
  const DD dd;
  const hn::Rebind<float, DD> dh;
  const int64_t nd = static_cast<int64_t>(hn::Lanes(dd));
  for (int64_t i = 0; i < n; i += nd) {
    const auto ku = hn::Mul(hn::PromoteTo(dd, hn::LoadU(dh, k + i)), hn::PromoteTo(dd, hn::LoadU(dh, u + i)));
    hn::StoreU(hn::Add(hn::LoadU(dd, prev + i), ku), dd, out + i);
  }
}
// In double for i < n (a multiple of the lanes): sum[i] += q[i] dq[i] - k[i] dk[i] (the products
// exact), or 0 where e[i] = 0; then out[i] = float(base[i] + pre[i] + sum[i]).
inline void GateGradRow(const float* q, const float* dq, const float* k, const float* dk, const float* e,
                        const double* base, const double* pre, int64_t n, double* sum, float* out) {
  const DD dd;
  const hn::Rebind<float, DD> dh;
  const int64_t nd = static_cast<int64_t>(hn::Lanes(dd));
  for (int64_t i = 0; i < n; i += nd) {
    auto load = [&](const float* p) { return hn::PromoteTo(dd, hn::LoadU(dh, p + i)); };
    const auto term = hn::Sub(hn::Mul(load(q), load(dq)), hn::Mul(load(k), load(dk)));
    auto a = hn::Add(hn::LoadU(dd, sum + i), term);
    a = hn::IfThenZeroElse(hn::Eq(load(e), hn::Zero(dd)), a);
    hn::StoreU(a, dd, sum + i);
    const auto total = hn::Add(hn::Add(hn::LoadU(dd, base + i), hn::LoadU(dd, pre + i)), a);
    hn::StoreU(hn::DemoteTo(dh, total), dh, out + i);
  }
}
#endif

inline int64_t RoundUpToLanes(int64_t n) { return (n + Lanes() - 1) / Lanes() * Lanes(); }

// n elements of a vector's buffer starting at a 64-byte boundary (vector loads that never cross
// a cache line: unaligned rows cost the recurrent form 20-40 % on AVX2 / AVX-512).
template <typename F>
F* Aligned(std::vector<F>* v, int64_t n) {
  const size_t pad = 64 / sizeof(F);
  if (v->size() < static_cast<size_t>(n) + pad) v->resize(static_cast<size_t>(n) + pad);
  const auto p = reinterpret_cast<uintptr_t>(v->data());
  return reinterpret_cast<F*>((p + 63) & ~uintptr_t{63});
}

// A row-major float matrix whose rows are padded to whole vectors (ld, a multiple of the lanes)
// and start at 64-byte boundaries (where the lanes fill one), so that every row operation runs
// on whole vectors. The padding columns hold finite values (0 where loaded, and what the
// whole-vector operations make of them); they reach no real column. Not copied (p points into
// buf).
template <typename F>
struct Matrix {
  int64_t rows = 0, cols = 0, ld = 0;
  std::vector<F> buf;
  F* p = nullptr;
  Matrix() = default;
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  void Resize(int64_t r, int64_t c, int64_t ld_cols) {
    rows = r, cols = c, ld = RoundUpToLanes(ld_cols);
    p = Aligned(&buf, r * ld);
  }
  void Resize(int64_t r, int64_t c) { Resize(r, c, c); }
  F* Row(int64_t r) { return p + r * ld; }
  const F* Row(int64_t r) const { return p + r * ld; }
  F& operator()(int64_t r, int64_t c) { return p[r * ld + c]; }
  F operator()(int64_t r, int64_t c) const { return p[r * ld + c]; }
  void SetZero() { std::fill(p, p + rows * ld, F(0)); }
};
using Mat = Matrix<float>;

// ---- element-wise steps (whole vectors over a padded row) -----------------------------------
// y[i] = x[i] * m[i] (or y[i] += x[i] * m[i] when add) for i < n.
inline void MulRow(const float* x, const float* m, int64_t n, float* y, bool add = false) {
  for (int64_t i = 0; i < n; i += Lanes()) {
    const VF p = VMul(VLoad(x + i), VLoad(m + i));
    VStore(add ? VAdd(VLoad(y + i), p) : p, y + i);
  }
}

// x[i] = sum_{j < m} a[j * lda + i] b[j * ldb + i] for i < n (a multiple of the lanes), each in
// order of j.
inline void ColumnDots(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t n, int64_t m, float* x) {
  for (int64_t i = 0; i < n; i += Lanes()) VStore(VZero(), x + i);
  for (int64_t j = 0; j < m; ++j) {  // row by row: both matrices read in order
    const float *aj = a + j * lda, *bj = b + j * ldb;
    for (int64_t i = 0; i < n; i += Lanes()) VStore(VFma(VLoad(aj + i), VLoad(bj + i), VLoad(x + i)), x + i);
  }
}

// y[i] *= a for i < n.
inline void ScaleRow(float a, int64_t n, float* y) {
  const VF av = VSet(a);
  for (int64_t i = 0; i < n; i += Lanes()) VStore(VMul(VLoad(y + i), av), y + i);
}

// y[i] = exp(y[i]) for i < n.
inline void ExpRow(int64_t n, float* y) {
  for (int64_t i = 0; i < n; i += Lanes()) VStore(VExp(VLoad(y + i)), y + i);
}

// out[j] = sum_i x[r0 + j, i] y[i] f[j, i] for j < g <= 4 (each one vector sum, then its lanes:
// a fixed order per target), the four sums side by side.
template <typename M>
inline void Dot3Rows(const M& x, int64_t r0, int64_t g, const float* y, const M& f, int64_t n, float* out) {
  const int64_t j1 = std::min<int64_t>(1, g - 1), j2 = std::min<int64_t>(2, g - 1), j3 = g - 1;
  const float *x0 = x.Row(r0), *x1 = x.Row(r0 + j1), *x2 = x.Row(r0 + j2), *x3 = x.Row(r0 + j3);
  const float *f0 = f.Row(0), *f1 = f.Row(j1), *f2 = f.Row(j2), *f3 = f.Row(j3);
  VF s0 = VZero(), s1 = s0, s2 = s0, s3 = s0;
  for (int64_t i = 0; i < n; i += Lanes()) {
    const VF yi = VLoad(y + i);
    s0 = VFma(VMul(VLoad(x0 + i), yi), VLoad(f0 + i), s0);
    s1 = VFma(VMul(VLoad(x1 + i), yi), VLoad(f1 + i), s1);
    s2 = VFma(VMul(VLoad(x2 + i), yi), VLoad(f2 + i), s2);
    s3 = VFma(VMul(VLoad(x3 + i), yi), VLoad(f3 + i), s3);
  }
  out[0] = VSum(s0), out[1] = VSum(s1), out[2] = VSum(s2), out[3] = VSum(s3);
}

// ---- the small matrix products --------------------------------------------------------------
// An operand read by element: a(i, k) = p[i * rs + k * cs] (rs = ld, cs = 1 for a row-major
// matrix; rs = 1, cs = ld for its transpose).
struct Operand {
  const float* p;
  int64_t rs, cs;
  const float* At(int64_t i, int64_t k) const { return p + i * rs + k * cs; }
};

template <int NV>
HWY_INLINE void LoadTileRow(const float* c, bool acc, VF& c0, VF& c1, VF& c2, VF& c3) {
  const int64_t n = Lanes();
  c0 = acc ? VLoad(c) : VZero();
  if constexpr (NV > 1) c1 = acc ? VLoad(c + n) : VZero();
  if constexpr (NV > 2) c2 = acc ? VLoad(c + 2 * n) : VZero();
  if constexpr (NV > 3) c3 = acc ? VLoad(c + 3 * n) : VZero();
}
template <int NV>
HWY_INLINE void StoreTileRow(float* c, VF c0, VF c1, VF c2, VF c3) {
  const int64_t n = Lanes();
  VStore(c0, c);
  if constexpr (NV > 1) VStore(c1, c + n);
  if constexpr (NV > 2) VStore(c2, c + 2 * n);
  if constexpr (NV > 3) VStore(c3, c + 3 * n);
}
template <int NV>
HWY_INLINE void FmaTileRow(float a, VF b0, VF b1, VF b2, VF b3, VF& c0, VF& c1, VF& c2, VF& c3) {
  const VF av = VSet(a);
  c0 = VFma(av, b0, c0);
  if constexpr (NV > 1) c1 = VFma(av, b1, c1);
  if constexpr (NV > 2) c2 = VFma(av, b2, c2);
  if constexpr (NV > 3) c3 = VFma(av, b3, c3);
}

// One register tile: C[i, j] (+)= sum_{k0 <= k < k1} a(i, k) b[k * ldb + j] for MR rows (1 or 4)
// and NV vectors of columns; a, b and c at the tile's first row and column.
template <int MR, int NV>
HWY_NOINLINE void Tile(Operand a, int64_t k0, int64_t k1, const float* b, int64_t ldb, float* c, int64_t ldc,
                       bool acc) {
  static_assert(MR == 1 || MR == 4, "tiles of 1 or 4 rows");
  const int64_t n = Lanes();
  VF c00 = VZero(), c01 = c00, c02 = c00, c03 = c00, c10 = c00, c11 = c00, c12 = c00, c13 = c00;
  VF c20 = c00, c21 = c00, c22 = c00, c23 = c00, c30 = c00, c31 = c00, c32 = c00, c33 = c00;
  LoadTileRow<NV>(c, acc, c00, c01, c02, c03);
  if constexpr (MR > 1) {
    LoadTileRow<NV>(c + ldc, acc, c10, c11, c12, c13);
    LoadTileRow<NV>(c + 2 * ldc, acc, c20, c21, c22, c23);
    LoadTileRow<NV>(c + 3 * ldc, acc, c30, c31, c32, c33);
  }
  for (int64_t k = k0; k < k1; ++k) {
    const float* bk = b + k * ldb;
    const VF b0 = VLoad(bk);
    const VF b1 = NV > 1 ? VLoad(bk + n) : b0;
    const VF b2 = NV > 2 ? VLoad(bk + 2 * n) : b0;
    const VF b3 = NV > 3 ? VLoad(bk + 3 * n) : b0;
    const float* ak = a.At(0, k);
    FmaTileRow<NV>(ak[0], b0, b1, b2, b3, c00, c01, c02, c03);
    if constexpr (MR > 1) {
      FmaTileRow<NV>(ak[a.rs], b0, b1, b2, b3, c10, c11, c12, c13);
      FmaTileRow<NV>(ak[2 * a.rs], b0, b1, b2, b3, c20, c21, c22, c23);
      FmaTileRow<NV>(ak[3 * a.rs], b0, b1, b2, b3, c30, c31, c32, c33);
    }
  }
  StoreTileRow<NV>(c, c00, c01, c02, c03);
  if constexpr (MR > 1) {
    StoreTileRow<NV>(c + ldc, c10, c11, c12, c13);
    StoreTileRow<NV>(c + 2 * ldc, c20, c21, c22, c23);
    StoreTileRow<NV>(c + 3 * ldc, c30, c31, c32, c33);
  }
}

// Which k each row i of a product takes: all of [0, K); k <= i (a lower triangular a, zero above
// its diagonal: those terms are left out, not multiplied by 0); or k >= i (an upper triangular a).
enum class Band { kFull, kLower, kUpper };

// Rows [i, i + MR) of C, columns [j, j + NV vectors), k in [k0, k1) (none: C = 0 unless acc).
template <int MR, int NV>
HWY_INLINE void TileAt(Operand a, int64_t i, int64_t j, int64_t k0, int64_t k1, const float* b, int64_t ldb, Mat* c,
                       bool acc) {
  if (k1 <= k0 && acc) return;
  Tile<MR, NV>(Operand{a.At(i, 0), a.rs, a.cs}, k0, k1, b + j, ldb, c->Row(i) + j, c->ld, acc);
}

// Every row of C in columns [j, j + NV vectors): tiles of 4 rows over the k all of them take,
// then each row's own k of a band, then the last rows one by one. One column panel at a time,
// so that B's panel stays in cache across the row tiles.
template <int NV>
void GemmPanel(Operand a, int64_t j, const float* b, int64_t ldb, int64_t K, Mat* c, bool acc, Band band) {
  const int64_t M = c->rows;
  int64_t i = 0;
  for (; i + 4 <= M; i += 4) {
    TileAt<4, NV>(a, i, j, band == Band::kUpper ? i + 3 : 0, band == Band::kLower ? i + 1 : K, b, ldb, c, acc);
    if (band == Band::kLower) {
      for (int64_t r = i + 1; r < i + 4; ++r) TileAt<1, NV>(a, r, j, i + 1, r + 1, b, ldb, c, true);
    } else if (band == Band::kUpper) {
      for (int64_t r = i; r < i + 3; ++r) TileAt<1, NV>(a, r, j, r, i + 3, b, ldb, c, true);
    }
  }
  for (; i < M; ++i) {
    TileAt<1, NV>(a, i, j, band == Band::kUpper ? i : 0, band == Band::kLower ? i + 1 : K, b, ldb, c, acc);
  }
}

// C = a B (acc: C += a B) for C's rows and every column of its padded width; B row-major with
// ldb >= C's ld (its padding columns multiply into C's).
void Gemm(Operand a, const float* b, int64_t ldb, int64_t K, Mat* c, bool acc, Band band = Band::kFull) {
  const int64_t n = Lanes(), width = c->ld;
  int64_t j = 0;
  for (; j + kTileVectors * n <= width; j += kTileVectors * n) GemmPanel<kTileVectors>(a, j, b, ldb, K, c, acc, band);
  if constexpr (kTileVectors > 2) {
    for (; j + 2 * n <= width; j += 2 * n) GemmPanel<2>(a, j, b, ldb, K, c, acc, band);
  }
  for (; j < width; j += n) GemmPanel<1>(a, j, b, ldb, K, c, acc, band);
}

Operand Rows(const Mat& m, int64_t r0 = 0) { return Operand{m.Row(r0), m.ld, 1}; }
Operand Transposed(const Mat& m, int64_t r0 = 0, int64_t c0 = 0) { return Operand{m.Row(r0) + c0, 1, m.ld}; }

// t = m^T for m's rows and columns, t's rows ld_cols wide (rounded up to whole vectors), its
// padding columns 0.
void Transpose(const Mat& m, int64_t ld_cols, Mat* t) {
  t->Resize(m.cols, m.rows, ld_cols);
  for (int64_t j = 0; j < m.cols; ++j) {
    float* tj = t->Row(j);
    for (int64_t i = 0; i < m.rows; ++i) tj[i] = m(i, j);
    std::fill(tj + m.rows, tj + t->ld, 0.f);
  }
}

// ---- loading --------------------------------------------------------------------------------
// dst[0, n) = src[0, n) converted (a copy for float, else the run-time dispatched conversions
// between float and the 16-bit types: bitwise the scalar ones, rounding to nearest even going
// down).
template <typename From, typename To>
inline void CopyRow(const From* src, int64_t n, To* dst) {
  if constexpr (std::is_same<From, float>::value && std::is_same<To, float>::value) {
    int64_t i = 0;
    for (; i + Lanes() <= n; i += Lanes()) VStore(VLoad(src + i), dst + i);
    for (; i < n; ++i) dst[i] = src[i];
  } else if constexpr (std::is_same<From, To>::value) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(To));
  } else {
    simd::Convert(src, dst, n);
  }
}
// A row of length n loaded as float into a padded row of width ld, the padding 0.
template <typename T>
inline void LoadRow(const T* src, int64_t n, int64_t ld, float* dst) {
  CopyRow(src, n, dst);
  for (int64_t i = n; i < ld; ++i) dst[i] = 0.f;
}

// g[i] = max(g[i], kGlaCpuGateFloor) for i < n, a NaN kept (chunk_cpu.h says why).
inline void RaiseToFloor(float* g, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (g[i] < kGlaCpuGateFloor) g[i] = kGlaCpuGateFloor;
  }
}

// One chunk of one head, loaded as float, with its cumulative decays and scores.
struct Chunk {
  int64_t L = 0, Dk = 0, ldk = 0;
  Mat q, k, v;            // q already multiplied by scale
  Mat ed, ek, eg;         // exp(B), exp(Btot - B), exp(gk)
  Mat qd, kd;             // qs * exp(B), k * exp(Btot - B)
  Mat A;                  // causal scores (row r, column s <= r; zero above the diagonal)
  Matrix<double> B;       // [L, Dk] cumulative decays
  Mat eb;                 // exp(Btot), one row of Dk
  Mat f;                  // 4 rows of Dk: exp(B_r - B_s) on the diagonal blocks

  // full = false loads only what the state's advance needs (k, v, kd, eb).
  template <typename T>
  void Load(const GlaShape& s, int64_t bh, int64_t t0, int64_t len, const T* Q, const T* K, const T* V,
            const T* G, float scale, bool full = true) {
    L = len, Dk = s.Dk;
    const int64_t Dv = s.Dv;
    q.Resize(L, Dk), k.Resize(L, Dk), v.Resize(L, Dv), eg.Resize(L, Dk), B.Resize(L, Dk);
    ldk = q.ld;
    for (int64_t r = 0; r < L; ++r) {
      const int64_t rk = s.QkRow(bh, t0 + r), rv = s.VRow(bh, t0 + r);
      if (full) {
        LoadRow(Q + rk, Dk, ldk, q.Row(r));
        ScaleRow(scale, ldk, q.Row(r));
      }
      LoadRow(K + rk, Dk, ldk, k.Row(r));
      LoadRow(G + rk, Dk, ldk, eg.Row(r));
      RaiseToFloor(eg.Row(r), Dk);
      LoadRow(V + rv, Dv, v.ld, v.Row(r));
      // B_r = B_{r-1} + gk_r, in double.
      AddInDouble(r > 0 ? B.Row(r - 1) : nullptr, eg.Row(r), ldk, B.Row(r));
    }
    ed.Resize(L, Dk), ek.Resize(L, Dk), kd.Resize(L, Dk), eb.Resize(1, Dk), f.Resize(4, Dk);
    const double* Bt = B.Row(L - 1);
    ExpDiff(Bt, nullptr, ldk, eb.Row(0));
    for (int64_t r = 0; r < L; ++r) {
      ExpDiff(Bt, B.Row(r), ldk, ek.Row(r));
      MulRow(k.Row(r), ek.Row(r), ldk, kd.Row(r));
    }
    if (!full) return;
    qd.Resize(L, Dk);
    for (int64_t r = 0; r < L; ++r) {
      ExpDiff(B.Row(r), nullptr, ldk, ed.Row(r));
      MulRow(q.Row(r), ed.Row(r), ldk, qd.Row(r));
      ExpRow(ldk, eg.Row(r));
    }
  }

  // For every column c of the diagonal block [a0, a1), its rows r >= c in groups of up to 4
  // from r0: f's rows j < g hold exp(B_r - B_c) = exp(gk_{c+1}) ... exp(gk_r) for r = r0 + j
  // (running products of factors <= 1 when gk <= 0); A[r, c] = sum_i qs_ri k_ci f_ri; then
  // fn(r0, g, c), f's rows still there.
  template <typename Fn>
  void DiagonalPairs(int64_t a0, int64_t a1, Fn&& fn) {
    float dots[4];
    for (int64_t c = a0; c < a1; ++c) {
      for (int64_t r0 = c; r0 < a1; r0 += 4) {
        const int64_t g = std::min<int64_t>(4, a1 - r0);
        for (int64_t j = 0; j < g; ++j) {
          if (r0 + j == c) {
            std::fill(f.Row(j), f.Row(j) + ldk, 1.f);
          } else {
            MulRow(f.Row(j > 0 ? j - 1 : 3), eg.Row(r0 + j), ldk, f.Row(j));
          }
        }
        Dot3Rows(q, r0, g, k.Row(c), f, ldk, dots);
        for (int64_t j = 0; j < g; ++j) A(r0 + j, c) = dots[j];
        fn(r0, g, c);
      }
    }
  }
  // The reference of secondary chunk a (rows a0 to a1, a0 > 0): B at row a0 - 1. ea =
  // exp(B_r - ref) for its rows, qa = qs * ea; e = exp(ref - B_s) for s < a0, ks = k * e.
  void Referenced(int64_t a0, int64_t a1, Mat* ea, Mat* qa, Mat* e, Mat* ks) const {
    const double* ref = B.Row(a0 - 1);
    ea->Resize(a1 - a0, Dk), qa->Resize(a1 - a0, Dk);
    for (int64_t r = a0; r < a1; ++r) {
      ExpDiff(B.Row(r), ref, ldk, ea->Row(r - a0));
      MulRow(q.Row(r), ea->Row(r - a0), ldk, qa->Row(r - a0));
    }
    e->Resize(a0, Dk), ks->Resize(a0, Dk);
    for (int64_t s = 0; s < a0; ++s) {
      ExpDiff(ref, B.Row(s), ldk, e->Row(s));
      MulRow(k.Row(s), e->Row(s), ldk, ks->Row(s));
    }
  }

  // The causal scores A (zero above the diagonal); the 16 x 16 blocks on the diagonal only
  // when asked for (the backward fills them in its own pass over those pairs). The products
  // write whole vectors: a block's padding columns land right of it, on the diagonal block
  // filled after it.
  void Scores(Mat* ea, Mat* qa, Mat* e, Mat* ks, Mat* ksT, Mat* blk, bool diagonal) {
    A.Resize(L, L, kGlaCpuChunk);
    A.SetZero();
    for (int64_t a0 = 0; a0 < L; a0 += kGlaCpuSub) {
      const int64_t a1 = std::min(L, a0 + kGlaCpuSub);
      if (a0 > 0) {
        Referenced(a0, a1, ea, qa, e, ks);
        Transpose(*ks, ks->rows, ksT);
        blk->Resize(a1 - a0, a0);
        Gemm(Rows(*qa), ksT->Row(0), ksT->ld, Dk, blk, false);
        for (int64_t r = a0; r < a1; ++r) CopyRow(blk->Row(r - a0), a0, A.Row(r));
      }
      if (!diagonal) continue;
      DiagonalPairs(a0, a1, [](int64_t, int64_t, int64_t) {});
    }
  }
};

// Per-thread workspace of the chunked form.
struct Work {
  Chunk c;
  Mat S, dS, o, ea, qa, e, ks, ksT, blk, dO, vT, dA, dq, dk, dv, t1, kdT;
  std::vector<float> states;  // backward: S^T before every chunk, and after the last
  Mat dks, acc;               // backward: dk's part from the gradient after the chunk; dgk's rows
  Matrix<double> pre, gsum;   // backward, ChunkGateGrad: prefix sums of k dks; exp(Btot) S dS, the in-chunk sum
};

inline int64_t NumChunks(int64_t T) { return (T + kGlaCpuChunk - 1) / kGlaCpuChunk; }

// S = h0 (or 0), [Dk, Dv]; transposed: S^T, [Dv, Dk].
inline void InitState(const GlaShape& s, const float* h0, bool transposed, Mat* S) {
  const int64_t Dk = s.Dk, Dv = s.Dv;
  if (transposed) {
    S->Resize(Dv, Dk);
  } else {
    S->Resize(Dk, Dv);
  }
  S->SetZero();
  if (!h0) return;
  for (int64_t i = 0; i < Dk; ++i) {
    for (int64_t j = 0; j < Dv; ++j) {
      if (transposed) {
        (*S)(j, i) = h0[i * Dv + j];
      } else {
        (*S)(i, j) = h0[i * Dv + j];
      }
    }
  }
}

// S <- exp(Btot)[:, None] * S + x^T y (x: [L, Dk], y: [L, Dv]); the state's advance is x = kd,
// y = v, the backward's dS before a chunk x = qd, y = do.
inline void DecayAndAdd(const float* eb, const Mat& x, const Mat& y, int64_t L, Mat* S) {
  for (int64_t i = 0; i < S->rows; ++i) ScaleRow(eb[i], S->ld, S->Row(i));
  Gemm(Transposed(x), y.Row(0), y.ld, L, S, true);
}
// The same for S^T: S^T <- S^T * exp(Btot)[None, :] + y^T x.
inline void DecayAndAddTransposed(const float* eb, const Mat& x, const Mat& y, int64_t L, Mat* ST) {
  for (int64_t j = 0; j < ST->rows; ++j) MulRow(ST->Row(j), eb, ST->ld, ST->Row(j));
  Gemm(Transposed(y), x.Row(0), x.ld, L, ST, true);
}

template <typename T>
void ChunkedForwardHead(const GlaShape& s, int64_t bh, const T* q, const T* k, const T* v, const T* g,
                        const float* h0, float scale, T* o, float* final_state, Work* w) {
  const int64_t Dk = s.Dk, Dv = s.Dv;
  InitState(s, h0, false, &w->S);
  Chunk& c = w->c;
  for (int64_t t0 = 0; t0 < s.T; t0 += kGlaCpuChunk) {
    c.Load(s, bh, t0, std::min(kGlaCpuChunk, s.T - t0), q, k, v, g, scale);
    c.Scores(&w->ea, &w->qa, &w->e, &w->ks, &w->ksT, &w->blk, true);
    w->o.Resize(c.L, Dv);
    Gemm(Rows(c.qd), w->S.Row(0), w->S.ld, Dk, &w->o, false);
    Gemm(Rows(c.A), c.v.Row(0), c.v.ld, c.L, &w->o, true, Band::kLower);
    for (int64_t r = 0; r < c.L; ++r) CopyRow(w->o.Row(r), Dv, o + s.VRow(bh, t0 + r));
    DecayAndAdd(c.eb.Row(0), c.kd, c.v, c.L, &w->S);
  }
  if (final_state) {
    for (int64_t i = 0; i < Dk; ++i) CopyRow(w->S.Row(i), Dv, final_state + i * Dv);
  }
}

// gk's gradient of one chunk's steps into w->acc's rows, summed within the chunk: with u_s = k_s
// times dk_s's part from the gradient after the chunk (k_s exp(Btot - B_s) (dS v_s)) and w_s =
// q_s dq_s - k_s times the rest of dk_s (each without step s's own term: they cancel),
//   dgk_r = exp(Btot) sum_j (S * dS)[:, j] + sum_{s < r} u_s + sum_{s >= r} w_s,
// which is exp(gk_r) sum_j h_{r-1} dS_r written out over the chunk (S the state before it, dS the
// gradient after it, both kept transposed: ST, w->dS). The reverse sum of q dq - k dk carried
// across the chunks (the recurrent form's) reaches the same value only through cancellation: the
// final state's share and the last step's k dk, both of the size of k v dS, leave a result
// exp(gk) times smaller in a strongly decayed channel, with their float rounding in every earlier
// step (docs/spec.md §5). Here no part holds such a term; the sums run in double over exact
// products of the float terms. A gate whose factor is 0 restarts the in-chunk sum (dgk = 0 there:
// recurrent.h); the other two parts are exactly 0 at and before it (their decays span it:
// exp(<= kGlaCpuGateFloor) = 0).
void ChunkGateGrad(const Chunk& c, const float* ST, int64_t Dv, Work* w) {
  const int64_t L = c.L, Dk = c.Dk, ldk = c.ldk;
  w->gsum.Resize(2, Dk);
  double* f0 = w->gsum.Row(0);
  double* in_chunk = w->gsum.Row(1);
  std::fill(in_chunk, in_chunk + ldk, 0.0);
  w->acc.Resize(L, Dk);
  float* sdS = w->acc.Row(0);  // sum_j (S * dS)[:, j], before acc's rows are written
  ColumnDots(ST, ldk, w->dS.Row(0), w->dS.ld, ldk, Dv, sdS);
  const float* eb = c.eb.Row(0);
  for (int64_t i = 0; i < ldk; ++i) f0[i] = i < Dk ? static_cast<double>(eb[i]) * static_cast<double>(sdS[i]) : 0.0;
  w->pre.Resize(L, Dk);
  std::fill(w->pre.Row(0), w->pre.Row(0) + ldk, 0.0);
  for (int64_t r = 1; r < L; ++r) AddProductInDouble(w->pre.Row(r - 1), c.k.Row(r - 1), w->dks.Row(r - 1), ldk, w->pre.Row(r));
  for (int64_t r = L - 1; r >= 0; --r) {
    GateGradRow(c.q.Row(r), w->dq.Row(r), c.k.Row(r), w->dk.Row(r), c.eg.Row(r), f0, w->pre.Row(r), ldk, in_chunk,
                w->acc.Row(r));
  }
}

template <typename T>
void ChunkedBackwardHead(const GlaShape& s, int64_t bh, const T* q, const T* k, const T* v, const T* g,
                         const float* h0, const T* dout, const float* dfinal, float scale, T* dq, T* dk,
                         T* dv, T* dg, float* dh0, Work* w) {
  const int64_t Dk = s.Dk, Dv = s.Dv, NC = NumChunks(s.T);
  Chunk& c = w->c;
  // Forward: S^T before every chunk and after the last.
  InitState(s, h0, true, &w->S);
  const int64_t SS = Dv * w->S.ld;
  float* states = Aligned(&w->states, (NC + 1) * SS);
  for (int64_t n = 0; n < NC; ++n) {
    const int64_t t0 = n * kGlaCpuChunk;
    std::copy(w->S.Row(0), w->S.Row(0) + SS, states + n * SS);
    c.Load(s, bh, t0, std::min(kGlaCpuChunk, s.T - t0), q, k, v, g, scale, false);
    DecayAndAddTransposed(c.eb.Row(0), c.kd, c.v, c.L, &w->S);
  }
  InitState(s, dfinal, true, &w->dS);  // dS^T, as S^T
  for (int64_t n = NC - 1; n >= 0; --n) {
    const int64_t t0 = n * kGlaCpuChunk, L = std::min(kGlaCpuChunk, s.T - t0);
    c.Load(s, bh, t0, L, q, k, v, g, scale);
    c.Scores(&w->ea, &w->qa, &w->e, &w->ks, &w->ksT, &w->blk, false);
    const int64_t ldk = c.ldk;
    w->dO.Resize(L, Dv);
    for (int64_t r = 0; r < L; ++r) LoadRow(dout + s.VRow(bh, t0 + r), Dv, w->dO.ld, w->dO.Row(r));
    Transpose(c.v, kGlaCpuChunk, &w->vT);  // as wide as dA's rows
    // dA = do v^T.
    w->dA.Resize(L, L, kGlaCpuChunk);
    Gemm(Rows(w->dO), w->vT.Row(0), w->vT.ld, Dv, &w->dA, false);
    // dq / scale and dk without each step's own term: first from the state before the chunk
    // (do S^T, S^T kept) and from the gradient after it (v dS^T into dks, dS^T kept).
    const float* ST = states + n * SS;
    w->dq.Resize(L, Dk);
    Gemm(Rows(w->dO), ST, ldk, Dv, &w->dq, false);
    for (int64_t r = 0; r < L; ++r) MulRow(w->dq.Row(r), c.ed.Row(r), ldk, w->dq.Row(r));
    w->dks.Resize(L, Dk);
    Gemm(Rows(c.v), w->dS.Row(0), w->dS.ld, Dv, &w->dks, false);
    for (int64_t r = 0; r < L; ++r) MulRow(w->dks.Row(r), c.ek.Row(r), ldk, w->dks.Row(r));
    w->dk.Resize(L, Dk);
    w->dk.SetZero();
    // Then from the other steps of the chunk: blocks below the diagonal through each secondary
    // chunk's reference, the diagonal blocks pair by pair (which also fills A there).
    for (int64_t a0 = 0; a0 < L; a0 += kGlaCpuSub) {
      const int64_t a1 = std::min(L, a0 + kGlaCpuSub);
      if (a0 > 0) {
        c.Referenced(a0, a1, &w->ea, &w->qa, &w->e, &w->ks);
        // dq rows of a: exp(B_r - ref) * (dA ks); dk rows s < a0: exp(ref - B_s) * (dA^T qa).
        w->t1.Resize(a1 - a0, Dk);
        Gemm(Rows(w->dA, a0), w->ks.Row(0), w->ks.ld, a0, &w->t1, false);
        for (int64_t r = a0; r < a1; ++r) MulRow(w->t1.Row(r - a0), w->ea.Row(r - a0), ldk, w->dq.Row(r), true);
        w->t1.Resize(a0, Dk);
        Gemm(Transposed(w->dA, a0), w->qa.Row(0), w->qa.ld, a1 - a0, &w->t1, false);
        for (int64_t r = 0; r < a0; ++r) MulRow(w->t1.Row(r), w->e.Row(r), ldk, w->dk.Row(r), true);
      }
      c.DiagonalPairs(a0, a1, [&](int64_t r0, int64_t g, int64_t cc) {
        const float* kc = c.k.Row(cc);
        float* dkc = w->dk.Row(cc);
        for (int64_t r = std::max(r0, cc + 1); r < r0 + g; ++r) {
          const float* qr = c.q.Row(r);
          const float* f = c.f.Row(r - r0);
          const VF da = VSet(w->dA(r, cc));
          float* dqr = w->dq.Row(r);
          for (int64_t i = 0; i < ldk; i += Lanes()) {
            const VF fi = VMul(da, VLoad(f + i));
            VStore(VFma(fi, VLoad(kc + i), VLoad(dqr + i)), dqr + i);
            VStore(VFma(fi, VLoad(qr + i), VLoad(dkc + i)), dkc + i);
          }
        }
      });
    }
    // dv = A^T do + kd dS, the second as (dS^T kd^T)^T.
    w->dv.Resize(L, Dv);
    Gemm(Transposed(c.A), w->dO.Row(0), w->dO.ld, L, &w->dv, false, Band::kUpper);
    Transpose(c.kd, kGlaCpuChunk, &w->kdT);
    w->t1.Resize(Dv, L, kGlaCpuChunk);
    Gemm(Rows(w->dS), w->kdT.Row(0), w->kdT.ld, Dk, &w->t1, false);
    for (int64_t r = 0; r < L; ++r) {
      float* dvr = w->dv.Row(r);
      for (int64_t j = 0; j < Dv; ++j) dvr[j] += w->t1(j, r);
    }
    // dgk, then the own terms added to dq and dk (and dk's two parts).
    ChunkGateGrad(c, ST, Dv, w);
    for (int64_t r = L - 1; r >= 0; --r) {
      const VF vdo = VSet(w->dA(r, r));
      const VF vscale = VSet(scale);
      const int64_t rk = s.QkRow(bh, t0 + r);
      const float *qr = c.q.Row(r), *kr = c.k.Row(r), *dksr = w->dks.Row(r);
      float *dqr = w->dq.Row(r), *dkr = w->dk.Row(r);
      for (int64_t i = 0; i < ldk; i += Lanes()) {
        const VF qi = VLoad(qr + i), ki = VLoad(kr + i);
        VStore(VMul(VFma(ki, vdo, VLoad(dqr + i)), vscale), dqr + i);
        VStore(VFma(qi, vdo, VAdd(VLoad(dksr + i), VLoad(dkr + i))), dkr + i);
      }
      CopyRow(w->acc.Row(r), Dk, dg + rk);
      CopyRow(dqr, Dk, dq + rk);
      CopyRow(dkr, Dk, dk + rk);
      CopyRow(w->dv.Row(r), Dv, dv + s.VRow(bh, t0 + r));
    }
    // dS^T before the chunk.
    DecayAndAddTransposed(c.eb.Row(0), c.qd, w->dO, L, &w->dS);
  }
  if (dh0) {
    for (int64_t i = 0; i < Dk; ++i) {
      for (int64_t j = 0; j < Dv; ++j) dh0[i * Dv + j] = w->dS(j, i);
    }
  }
  if (s.T > 0) {
    const int64_t rk = s.QkRow(bh, 0);
    float* acc = w->acc.Row(0);
    for (int64_t i = 0; i < Dk; ++i) {
      float sum = 0;
      if (h0) {
        for (int64_t j = 0; j < Dv; ++j) sum += w->dS(j, i) * h0[i * Dv + j];
      }
      acc[i] = sum;
    }
    CopyRow(acc, Dk, dg + rk);
  }
}

// The recurrent form of one head (recurrent.h) compiled into this target's code: flatten inlines
// it here, so it runs with this target's instructions (its out-of-line copy, built without them,
// is the baseline code's).
template <typename T, typename Acc>
__attribute__((flatten)) void RecurrentForwardHead(const GlaData<T>& d, int64_t bh, int64_t off, Acc scale,
                                                   Acc* work) {
  GlaRecurrentForwardHead<T, Acc>(d.s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, scale, d.o,
                                  d.final_state ? d.final_state + off : nullptr, work);
}
// The recurrent backward's wide rows (GlaRecurrentBackwardHeadWide): in float32, a channel with a
// gate below kGlaCpuStrongGate in this head keeps its state, dq's sum and dS v in double, which
// holds its gk gradient to 1e-5 (docs/spec.md §5); the other channels, and the other dtypes
// (float64; the 16-bit types within their 4e-3), run all in Acc. The reverse sums of gk's
// gradient are double for float32 either way.
template <typename T, typename Acc>
using RecurrentWide = typename std::conditional<std::is_same<T, float>::value, double, Acc>::type;
template <typename T, typename Acc>
struct RecurrentGradWork {
  std::vector<Acc> acc;
  std::vector<RecurrentWide<T, Acc>> wide;
  std::vector<unsigned char> strong;
};
template <typename T, typename Acc>
__attribute__((flatten)) void RecurrentBackwardHead(const GlaGradData<T>& d, int64_t bh, int64_t off, Acc scale,
                                                    RecurrentGradWork<T, Acc>* w) {
  using Wide = RecurrentWide<T, Acc>;
  const GlaShape& s = d.s;
  const int64_t Dk = s.Dk, Dv = s.Dv;
  GlaBackwardRows<Acc, Wide> r;
  r.S = Aligned(&w->acc, 2 * Dk * Dv + 3 * Dv);
  r.dS = r.S + Dk * Dv;
  r.row = r.dS + Dk * Dv;
  r.vr = r.row + Dv;
  r.dr = r.vr + Dv;
  Wide* wide = Aligned(&w->wide, Dk * Dv + s.T * Dk + Dk);
  r.Sw = nullptr;
  r.strong = nullptr;
  if (std::is_same<T, float>::value) {
    w->strong.assign(static_cast<size_t>(Dk), 0);
    for (int64_t t = 0; t < s.T; ++t) {
      const T* gt = d.g + s.QkRow(bh, t);
      for (int64_t i = 0; i < Dk; ++i) w->strong[i] |= static_cast<float>(gt[i]) < kGlaCpuStrongGate;
    }
    r.Sw = wide;
    r.strong = w->strong.data();
  }
  r.qdq = wide + Dk * Dv;
  r.acc = r.qdq + s.T * Dk;
  GlaRecurrentBackwardHeadWide<T, Acc, Wide>(s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, d.dout,
                                             d.dfinal ? d.dfinal + off : nullptr, scale, d.dq, d.dk, d.dv, d.dg,
                                             d.dh0 ? d.dh0 + off : nullptr, r);
}

// body(bh, off, work) for every head of d (GlaData or GlaGradData), one head per OpenMP task
// with a workspace per thread: off = bh * the state size (where the head's [Dk, Dv] state
// blocks start). Results do not depend on the thread count (each head is one sequential
// computation). An exception must not leave the parallel region (std::terminate): the first
// one (a workspace the machine cannot hold: std::bad_alloc) is kept, the other heads are
// skipped, and it is thrown again after the region (MemoryError in Python).
template <typename Workspace, typename Data, typename Body>
void ForEachHead(const Data& d, Body body) {
  const int64_t heads = d.s.heads(), state = d.s.StateSize();
  OmpExceptionKeeper keep;
#pragma omp parallel num_threads(CpuNumThreads())
  {
    Workspace w;
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < heads; ++bh) keep.Run([&] { body(bh, bh * state, &w); });
  }
  keep.Rethrow();
}

// The chunked form takes heads with Dk, Dv >= 1; a zero-size head dim has nothing to compute and
// runs the recurrent form's loops, which give zeros.
inline bool HasHeadDims(const GlaShape& s) { return s.Dk > 0 && s.Dv > 0; }

// A whole call: the chunked form (not for float64) or the recurrent one.
template <typename T>
void ForwardCall(const GlaData<T>& d, double scale, bool chunked) {
  using Acc = typename GlaAccType<T>::type;
  if constexpr (!std::is_same<T, double>::value) {
    if (chunked && HasHeadDims(d.s)) {
      return ForEachHead<Work>(d, [&](int64_t bh, int64_t off, Work* w) {
        ChunkedForwardHead<T>(d.s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, static_cast<float>(scale),
                              d.o, d.final_state ? d.final_state + off : nullptr, w);
      });
    }
  }
  using Vec = std::vector<Acc>;
  ForEachHead<Vec>(d, [&](int64_t bh, int64_t off, Vec* w) {
    RecurrentForwardHead<T, Acc>(d, bh, off, static_cast<Acc>(scale), Aligned(w, d.s.ForwardWork()));
  });
}

template <typename T>
void BackwardCall(const GlaGradData<T>& d, double scale, bool chunked) {
  using Acc = typename GlaAccType<T>::type;
  if constexpr (!std::is_same<T, double>::value) {
    if (chunked && HasHeadDims(d.s)) {
      return ForEachHead<Work>(d, [&](int64_t bh, int64_t off, Work* w) {
        ChunkedBackwardHead<T>(d.s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, d.dout,
                               d.dfinal ? d.dfinal + off : nullptr, static_cast<float>(scale), d.dq, d.dk, d.dv,
                               d.dg, d.dh0 ? d.dh0 + off : nullptr, w);
      });
    }
  }
  using W = RecurrentGradWork<T, Acc>;
  ForEachHead<W>(d, [&](int64_t bh, int64_t off, W* w) {
    RecurrentBackwardHead<T, Acc>(d, bh, off, static_cast<Acc>(scale), w);
  });
}

// The dispatch tables' entries (HWY_EXPORT takes a plain function name), one per type.
#define PADDLE_OPS_GLA_CPU_ENTRIES(T, Name)                                                         \
  void Forward##Name(const GlaData<T>& d, double scale, bool chunked) { ForwardCall<T>(d, scale, chunked); } \
  void Backward##Name(const GlaGradData<T>& d, double scale, bool chunked) { BackwardCall<T>(d, scale, chunked); }
PADDLE_OPS_GLA_CPU_ENTRIES(float, F32)
PADDLE_OPS_GLA_CPU_ENTRIES(double, F64)
PADDLE_OPS_GLA_CPU_ENTRIES(dtype::float16, F16)
PADDLE_OPS_GLA_CPU_ENTRIES(dtype::bfloat16, BF16)
#undef PADDLE_OPS_GLA_CPU_ENTRIES

}  // namespace HWY_NAMESPACE
}  // namespace gla_cpu
}  // namespace funcs
}  // namespace phi
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace phi {
namespace funcs {
namespace gla_cpu {

HWY_EXPORT(ForwardF32);
HWY_EXPORT(ForwardF64);
HWY_EXPORT(ForwardF16);
HWY_EXPORT(ForwardBF16);
HWY_EXPORT(BackwardF32);
HWY_EXPORT(BackwardF64);
HWY_EXPORT(BackwardF16);
HWY_EXPORT(BackwardBF16);

#define PADDLE_OPS_GLA_CPU_DISPATCH(T, Name)                                                   \
  template <>                                                                                  \
  void Forward<T>(const GlaData<T>& d, double scale, bool chunked) {                           \
    PADDLE_OPS_HWY_DISPATCH(Forward##Name)(d, scale, chunked);                                 \
  }                                                                                            \
  template <>                                                                                  \
  void Backward<T>(const GlaGradData<T>& d, double scale, bool chunked) {                      \
    PADDLE_OPS_HWY_DISPATCH(Backward##Name)(d, scale, chunked);                                \
  }
PADDLE_OPS_GLA_CPU_DISPATCH(float, F32)
PADDLE_OPS_GLA_CPU_DISPATCH(double, F64)
PADDLE_OPS_GLA_CPU_DISPATCH(dtype::float16, F16)
PADDLE_OPS_GLA_CPU_DISPATCH(dtype::bfloat16, BF16)
#undef PADDLE_OPS_GLA_CPU_DISPATCH

}  // namespace gla_cpu
}  // namespace funcs
}  // namespace phi
#endif  // HWY_ONCE
