// The gla backward (docs/spec.md §5) for 16-bit q, k, v, do (gk 16-bit or float32) on sm_90a, in
// three kernels parallel over heads and state tiles or over heads and chunks (mma.sync m16n8k16
// on ldmatrix fragments, float32 accumulation):
//
//   BwdStateKernel<false>  grid (head, Dk tile of 64 rows, Dv tile of 128 columns; 64 or 32
//                          where wider tiles leave SMs idle: StateTiles), 4 warps, chunks in
//                          order: the state tile of H_c before each chunk c, stored (work space),
//                          then H <- e^P_last * H + (k e^(P_last - P))^T V;
//   BwdStateKernel<true>   the same in reverse: dh_c, the gradient of the state at chunk c's end
//                          from the steps after it, stored, then dh <- e^P_last * dh +
//                          (scale q e^P)^T dO; at the end dh0;
//   BwdChunkKernel         grid (head, chunk), one block of 256 threads per chunk: dq, dk, dv and
//                          gk_grad of the chunk's steps from H_c, dh_c (all of Dv in the block:
//                          no partial sums across blocks).
//
// P is the in-chunk inclusive cumulative sum of gk per key channel i; every exponent of the state
// kernels is a direct prefix or suffix sum of the gates (<= 0 for gk <= 0, a -inf an exact 0), so
// they need no mode. The chunk kernel, per chunk of C = 32 steps (m = 15 the reference row), in
// the factored ("safe") mode, every |P_t - P_m| <= SafeRange:
//   Qd = scale q e^(P - P_m), Kd = k e^(P_m - P),  dA = dO V^T (t, s),  A = Qd Kd^T (s >= t)
//   dq'  = e^(P - P_m) * (dO (e^P_m H_c)^T + strict(dA) Kd)          (then + scale dA_tt k_t)
//   dk'  = e^(P_m - P) * (V (e^(P_last - P_m) dh_c)^T + strict(dA)^T Qd) (then + scale dA_tt q_t)
//   dv   = Kd (e^(P_last - P_m) dh_c) + incl(A)^T dO
// and in a chunk with a wider decay range (strong, -inf or -1e30 gates) the element-wise mode: the
// factors direct prefix/suffix sums, the in-chunk terms element by element from cumulative sums of
// the gates clamped at -100 (as the forward's other mode).
//
// gk_grad: with D_t = sum_j dS_t S_t (row i; S_t the state after step t, dS_t its gradient),
// gk_grad_t = D_t - k_t dk_t and D_{t-1} = gk_grad_t + q_{t-1} dq_{t-1}, so inside chunk c
//   gk_grad_t = F_c + sum_{s >= t} (q_s dq'_s - k_s dk'_s),  F_c = sum_j dh_c H_{c+1}
//             = e^P_last sum_j dh_c H_c + sum_s u_s,  u_s = k_s e^(P_last - P_s) (V dh_c^T)_s,
// which the kernel takes as F0 + sum_{s < t} u_s + sum_{s >= t} w_s (w = q dq' - k times dk' less
// its u part): each chunk is anchored at its own end (no carry across chunks and no cancellation
// over more than one chunk); a zero factor e^gk = 0 at step t' >= t restarts the sum there as the
// recurrent form does (gk_grad_t' = 0). gk_grad_0 = sum_j dh0 h0 (0 without h0).
//
// Memory: the states are stored in the inputs' 16-bit type (StateT; float32 in a test build);
// the tiles come by cp.async (the state passes load chunk n+1 while using chunk n). The
// state passes store whole 32-byte sectors (16-bit: 16-byte row pieces after a quad transpose
// of the mma fragments; 4-byte pairs wrote half sectors and held the passes at ~1.5 TB/s), run
// their gate pass on every thread (a channel pair and a segment of the chunk each) and take two
// barriers a chunk. In
// the chunk kernel's raw path (16-bit states) H_c and dh_c enter the products as stored (one
// product each; their row scalings e^P_m, e^(P_last - P_m) on the outputs, and on Kd for dv),
// otherwise scaled and split hi/lo as below. Seed shape (B32 T2048 H4 Dk128 Dv256), per pass:
// state / dh pass 34 GFLOP (hi/lo) and >= 0.81 GB each, chunk kernel 88 GFLOP (10.7 M per
// chunk) and >= 1.88 GB (docs/benchmarks.md has the H200 times and the fraction of roofline).
//
// Accuracy (tools/dev/harness/gla/bwd_emulation.cc runs these kernels on the CPU): Qd, Kd (and
// the scaled states of the float32 / split test builds) enter the products as hi/lo pairs of
// 16-bit operands (x = hi + lo, the products take hi*y + lo*y); dA, A and the inputs are single. Deterministic: no atomics;
// every sum has a fixed order.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/util/gpu_cp_async.cuh"

// The oldest architecture the kernels' bodies are compiled for: sm_80 (mma.sync, ldmatrix,
// cp.async) in the harness; the library defines 900 (it runs them on sm_90a only, and its builds
// for sm_80/86/89 then carry empty bodies).
#ifndef GLA_BWD_MIN_ARCH
#define GLA_BWD_MIN_ARCH 800
#endif

namespace gla_sm90_bwd {

constexpr int kC = 32;                 // steps per chunk
constexpr int kRefRow = kC / 2 - 1;    // the factored mode's reference row
constexpr int kThreads = 256;          // the chunk kernel's 8 warps
constexpr int kStateThreads = 128;     // the state kernels' 4 warps
constexpr float kClampGate = 100.f;    // the element-wise mode's gate clamp

template <class E>
__host__ __device__ constexpr float SafeRange() {  // as the forward: bfloat16 e^32, float16 e^6
  return std::is_same<E, __half>::value ? 6.f : 32.f;
}

// The call, in elements (strides as gla_sm90::FwdArgs: row t, head h, batch b; the last dim
// contiguous). gk and gk_grad are E or float32 (the G template argument).
struct BwdArgs {
  int B = 0, H = 0, T = 0, Dk = 0, Dv = 0;
  int64_t qk_st = 0, qk_sh = 0, qk_sb = 0;
  int64_t v_st = 0, v_sh = 0, v_sb = 0;
  const void *q = nullptr, *k = nullptr, *v = nullptr, *g = nullptr, *dout = nullptr;
  const float* h0 = nullptr;      // [B, H, Dk, Dv] or null
  const float* dfinal = nullptr;  // [B, H, Dk, Dv] or null
  void *dq = nullptr, *dk = nullptr, *dv = nullptr, *dg = nullptr;
  float* dh0 = nullptr;           // [B, H, Dk, Dv] or null
  float* work = nullptr;          // BwdWorkBytes<E>(*this) bytes: H_c, then dh_c, [B*H, chunks, Dk, Dv] of StateT<E>
  float scale = 1.f;
  int force_other_mode = 0;       // testing: every chunk takes the element-wise mode
};

__host__ __device__ inline int64_t BwdChunks(const BwdArgs& a) { return (int64_t(a.T) + 31) / 32; }
// The elements of one set of states (H_c or dh_c) in the work space.
__host__ __device__ inline int64_t BwdStateElems(const BwdArgs& a) { return int64_t(a.B) * a.H * BwdChunks(a) * a.Dk * a.Dv; }

// ---- 16-bit helpers and the warp product --------------------------------------------------------
template <class E>
__device__ __forceinline__ E ToE(float x);
template <>
__device__ __forceinline__ __nv_bfloat16 ToE<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __half ToE<__half>(float x) {
  return __float2half_rn(x);
}
template <class X>
__device__ __forceinline__ float ToF(X x) {
  return float(x);
}
template <>
__device__ __forceinline__ float ToF<float>(float x) {
  return x;
}
template <class G>
__device__ __forceinline__ G ToOut(float x) {
  return ToE<G>(x);
}
template <>
__device__ __forceinline__ float ToOut<float>(float x) {
  return x;
}

template <class E>
__device__ __forceinline__ uint32_t Pack(E lo, E hi) {
  return uint32_t(reinterpret_cast<const uint16_t&>(lo)) | (uint32_t(reinterpret_cast<const uint16_t&>(hi)) << 16);
}

// Two 16-bit values of a 32-bit word as floats (the low half first).
template <class E>
__device__ __forceinline__ float2 Unpair(uint32_t w) {
  if constexpr (std::is_same<E, __nv_bfloat16>::value) {
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
  } else {
    const uint16_t lo = uint16_t(w & 0xffffu), hi = uint16_t(w >> 16);
    return make_float2(float(reinterpret_cast<const E&>(lo)), float(reinterpret_cast<const E&>(hi)));
  }
}
// d[0], d[1] = a, b rounded to E: one 32-bit store where d is 4-byte aligned (`pair`).
template <class E>
__device__ __forceinline__ void StorePair(E* d, float a, float b, bool pair) {
  if (pair) {
    *reinterpret_cast<uint32_t*>(d) = Pack<E>(ToE<E>(a), ToE<E>(b));
  } else {
    d[0] = ToE<E>(a), d[1] = ToE<E>(b);
  }
}

template <class E>
__device__ __forceinline__ void Mma16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
#ifdef GLA_BWD_HOST_EMULATION  // tools/dev/harness/gla/bwd_emulation.cc: the warp's product on the host
  EmuMma16816(d, a, b0, b1);
  return;
#endif
  if constexpr (std::is_same<E, __half>::value) {
#ifndef GLA_BWD_HOST_EMULATION
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
  } else {
#ifndef GLA_BWD_HOST_EMULATION
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
  }
}

// Operands in shared memory, loaded by ldmatrix: RowK stored with its k index contiguous (A (m, k)
// at p[m * ld + k], B (k, n) at p[n * ld + k]), ColK with m or n contiguous (A (m, k) at
// p[k * ld + m], B (k, n) at p[k * ld + n], loaded transposed); ld, the base and the tile
// offsets multiples of 8 elements. Other operands are callables f(m, k) / f(k, n) returning
// 16-bit values (the masked ones), loaded element by element.
template <class E>
struct RowK {
  const E* p;
  int ld;
};
template <class E>
struct ColK {
  const E* p;
  int ld;
};

// Four 8 x 8 16-bit matrices, lanes 8q .. 8q + 7 giving the rows of matrix q; r[q] of lane L
// holds matrix q's (row L / 4, cols 2 (L % 4) + 0, 1), or with trans its (rows 2 (L % 4) + 0, 1,
// col L / 4).
template <bool kTrans, class E>
__device__ __forceinline__ void Ldsm4(uint32_t (&r)[4], const E* row) {
#ifdef GLA_BWD_HOST_EMULATION
  EmuLdmatrix(r, row, kTrans);
#else
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a));
  }
#endif
}

// The A fragment of rows m0 .. m0 + 15, k0 .. k0 + 15 (mma's register order).
template <class E>
__device__ __forceinline__ void LoadA(uint32_t (&a)[4], const RowK<E>& f, int m0, int k0) {
  const int l = threadIdx.x & 31;
  Ldsm4<false>(a, f.p + (m0 + (l & 7) + 8 * ((l >> 3) & 1)) * f.ld + k0 + 8 * (l >> 4));
}
template <class E>
__device__ __forceinline__ void LoadA(uint32_t (&a)[4], const ColK<E>& f, int m0, int k0) {
  const int l = threadIdx.x & 31;
  Ldsm4<true>(a, f.p + (k0 + (l & 7) + 8 * (l >> 4)) * f.ld + m0 + 8 * ((l >> 3) & 1));
}
template <class E, class F>
__device__ __forceinline__ void LoadA(uint32_t (&a)[4], const F& f, int m0, int k0) {
  const int l = threadIdx.x & 31, r = m0 + (l >> 2), k = k0 + 2 * (l & 3);
  a[0] = Pack<E>(f(r, k), f(r, k + 1));
  a[1] = Pack<E>(f(r + 8, k), f(r + 8, k + 1));
  a[2] = Pack<E>(f(r, k + 8), f(r, k + 9));
  a[3] = Pack<E>(f(r + 8, k + 8), f(r + 8, k + 9));
}
// The B fragments of cols n0 .. n0 + 15 (two n blocks), k0 .. k0 + 15: b[0], b[1] the first
// block's, b[2], b[3] the second's.
template <class E>
__device__ __forceinline__ void LoadB2(uint32_t (&b)[4], const RowK<E>& f, int n0, int k0) {
  const int l = threadIdx.x & 31;
  Ldsm4<false>(b, f.p + (n0 + (l & 7) + 8 * (l >> 4)) * f.ld + k0 + 8 * ((l >> 3) & 1));
}
template <class E>
__device__ __forceinline__ void LoadB2(uint32_t (&b)[4], const ColK<E>& f, int n0, int k0) {
  const int l = threadIdx.x & 31;
  Ldsm4<true>(b, f.p + (k0 + (l & 7) + 8 * ((l >> 3) & 1)) * f.ld + n0 + 8 * (l >> 4));
}
template <class E, class F>
__device__ __forceinline__ void LoadB2(uint32_t (&b)[4], const F& f, int n0, int k0) {
  const int l = threadIdx.x & 31, n = n0 + (l >> 2), k = k0 + 2 * (l & 3);
  b[0] = Pack<E>(f(k, n), f(k + 1, n));
  b[1] = Pack<E>(f(k + 8, n), f(k + 9, n));
  b[2] = Pack<E>(f(k, n + 8), f(k + 1, n + 8));
  b[3] = Pack<E>(f(k + 8, n + 8), f(k + 9, n + 8));
}

// acc[MI][NI] (the warp's tile at rows m0.., cols n0.., 16 x 8 each, NI even) += A (m, k) B (k, n)
// over k in [0, K), K a multiple of 16. Fragment of lane (g = lane / 4, c = lane % 4):
// acc[mi][ni][e] is (m0 + 16 mi + g + 8 (e / 2), n0 + 8 ni + 2 c + e % 2). With kA2, A is the sum
// of two operands fa1 + fa2 (a hi/lo pair), with kB2 B is fb1 + fb2: the other operand's
// fragment loaded once for both (per k step the first's products, then the second's, into the
// same accumulators).
template <class E, bool kA2, bool kB2, int MI, int NI, class FA1, class FA2, class FB1, class FB2>
__device__ __forceinline__ void WarpMmaSum(float (&acc)[MI][NI][4], int m0, int n0, int K, const FA1& fa1, const FA2& fa2,
                                           const FB1& fb1, const FB2& fb2) {
  static_assert(NI % 2 == 0, "n blocks in pairs");
  static_assert(!(kA2 && kB2), "one operand pair");
#pragma unroll 1  // (unrolled by 2: slower on the H200, 2026-11-29)
  for (int k0 = 0; k0 < K; k0 += 16) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      uint32_t a1[4], a2[4];
      LoadA<E>(a1, fa1, m0 + 16 * mi, k0);
      if constexpr (kA2) LoadA<E>(a2, fa2, m0 + 16 * mi, k0);
#pragma unroll
      for (int np = 0; np < NI / 2; ++np) {
        uint32_t b1[4], b2[4];
        LoadB2<E>(b1, fb1, n0 + 16 * np, k0);
        if constexpr (kB2) LoadB2<E>(b2, fb2, n0 + 16 * np, k0);
        Mma16816<E>(acc[mi][2 * np], a1, b1[0], b1[1]);
        Mma16816<E>(acc[mi][2 * np + 1], a1, b1[2], b1[3]);
        if constexpr (kA2) {
          Mma16816<E>(acc[mi][2 * np], a2, b1[0], b1[1]);
          Mma16816<E>(acc[mi][2 * np + 1], a2, b1[2], b1[3]);
        }
        if constexpr (kB2) {
          Mma16816<E>(acc[mi][2 * np], a1, b2[0], b2[1]);
          Mma16816<E>(acc[mi][2 * np + 1], a1, b2[2], b2[3]);
        }
      }
    }
  }
}
template <class E, int MI, int NI, class FA, class FB>
__device__ __forceinline__ void WarpMma(float (&acc)[MI][NI][4], int m0, int n0, int K, const FA& fa, const FB& fb) {
  WarpMmaSum<E, false, false>(acc, m0, n0, K, fa, fa, fb, fb);
}
template <class E, int MI, int NI, class FA1, class FA2, class FB>  // (A1 + A2) B
__device__ __forceinline__ void WarpMmaA2(float (&acc)[MI][NI][4], int m0, int n0, int K, const FA1& fa1, const FA2& fa2,
                                          const FB& fb) {
  WarpMmaSum<E, true, false>(acc, m0, n0, K, fa1, fa2, fb, fb);
}
template <class E, int MI, int NI, class FA, class FB1, class FB2>  // A (B1 + B2)
__device__ __forceinline__ void WarpMmaB2(float (&acc)[MI][NI][4], int m0, int n0, int K, const FA& fa, const FB1& fb1,
                                          const FB2& fb2) {
  WarpMmaSum<E, false, true>(acc, m0, n0, K, fa, fa, fb1, fb2);
}

template <int MI, int NI>
__device__ __forceinline__ void Zero(float (&acc)[MI][NI][4]) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.f;
}

// fn(row, col, value&) over the warp's fragment elements.
template <int MI, int NI, class Fn>
__device__ __forceinline__ void ForEach(float (&acc)[MI][NI][4], int m0, int n0, Fn&& fn) {
  const int lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) fn(m0 + 16 * mi + g + 8 * (e >> 1), n0 + 8 * ni + 2 * c + (e & 1), acc[mi][ni][e]);
}

// ---- the rows of a chunk -------------------------------------------------------------------------
// The rows [t0, t0 + C) of a [.., D] tensor of X (16-bit or float) into shared memory (row stride
// ld elements), zeros past T and past D (D and the row stride multiples of 16 bytes); NTHR threads,
// asynchronous (cp.async; the caller commits and waits). A thread keeps one column (NTHR a multiple
// of the row's pieces) and steps its row and its source pointer.
template <int NTHR, int DMAX, class X>
__device__ __forceinline__ void LoadTileAsync(X* dst, int ld, const X* base, int64_t st, int t0, int T, int D) {
  constexpr int kV = 16 / int(sizeof(X)), kVecs = DMAX / kV, kRows = NTHR / kVecs;
  static_assert(NTHR % kVecs == 0, "a thread per column piece");
  const int r0 = int(threadIdx.x) / kVecs, c = (int(threadIdx.x) % kVecs) * kV;
  const bool cok = c < D;
  const X* src = base + int64_t(t0 + r0) * st + c;
  const int64_t step = int64_t(kRows) * st;
#pragma unroll
  for (int r = r0; r < kC; r += kRows, src += step) {
    const bool ok = cok && t0 + r < T;
    phi::funcs::CpAsync16OrZero(dst + r * ld + c, ok ? src : base, ok);
  }
}

struct HeadOffsets {
  int64_t qk, v;
};
__device__ __forceinline__ HeadOffsets Offsets(const BwdArgs& p, int bh) {
  const int b = bh / p.H, h = bh - b * p.H;
  return {int64_t(b) * p.qk_sb + int64_t(h) * p.qk_sh, int64_t(b) * p.v_sb + int64_t(h) * p.v_sh};
}

// ---- the state kernels ---------------------------------------------------------------------------
__device__ __forceinline__ void Store2(float* d, float a, float b) { *reinterpret_cast<float2*>(d) = make_float2(a, b); }
// 16 bytes of a state row (elements of X: float, or the 16-bit type) as floats.
template <class X>
__device__ __forceinline__ void Unpack16(const uint4& x, float (&f)[4]) {
  static_assert(std::is_same<X, float>::value, "four floats");
  f[0] = __uint_as_float(x.x), f[1] = __uint_as_float(x.y), f[2] = __uint_as_float(x.z), f[3] = __uint_as_float(x.w);
}
template <class X>
__device__ __forceinline__ void Unpack16(const uint4& x, float (&f)[8]) {
  const uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const float2 v = Unpair<X>(w[c]);
    f[2 * c] = v.x, f[2 * c + 1] = v.y;
  }
}

// The states' type in the work space: the inputs' 16-bit type (half the bytes of float32; the
// chunk kernel's raw path takes them as they are), float32 wherever GLA_BWD_F32_STATES is defined.
// float16 states have float16's range (65504), as the sm_90a forward's state operand (one float16
// of the scaled state) has; before 2026-11-29 (seventh session) float16 inputs kept float32 states,
// whose scaled hi/lo float16 pairs in the chunk kernel had the same limit.
template <class E>
using StateT =
#ifdef GLA_BWD_F32_STATES
    float;
#else
    E;
#endif

// The work space of a call with E inputs: both sets of states.
template <class E>
inline int64_t BwdWorkBytes(const BwdArgs& a) {
  return 2 * BwdStateElems(a) * int64_t(sizeof(StateT<E>));
}

// A state kernel's configuration: blocks of 4 warps over a [DK, BV] tile of the state (rows i0 ..
// i0 + DK - 1, columns j0 .. j0 + BV - 1), grid heads x Dk tiles x Dv tiles (rows are independent:
// row i takes key channel i's gates and k or q column alone).
template <class E_, class G_, int DK_, int BV_>
struct StateKernel {
  using E = E_;
  using G = G_;
  using ST = StateT<E>;
  static constexpr int DK = DK_, BV = BV_;
  static constexpr int kLdK = DK + 8, kLdV = BV + 8;
  static constexpr int kMI = DK / 4 / 16;  // 4 warps over the rows of the [DK, BV] tile
  static_assert(BV % 32 == 0, "whole 32-column groups (the quad transpose of the stores)");
  struct Smem {
    E x[2][kC * kLdK];  // the chunk's k (q), raw, then its scaled operand's hi part (two chunks)
    E y[2][kC * kLdV];  // v (do), the tile's columns
    G g[2][kC * DK];    // the gates
    E xl[kC * kLdK];    // the scaled operand's lo part
    float dec[DK];      // e^P_last per key channel
  };
  static constexpr int kSmemBytes = int(sizeof(Smem));
  __host__ __device__ static int64_t Blocks(const BwdArgs& a) {
    return int64_t(a.B) * a.H * ((a.Dk + DK - 1) / DK) * ((a.Dv + BV - 1) / BV);
  }
};

// The 4 x 4 transpose of 32-bit words across the four lanes of a quad (c = lane % 4): w[j] of
// lane s becomes w[s] of lane j (two exchanges of two words each).
__device__ __forceinline__ void QuadTranspose(uint32_t (&w)[4], int c) {
  const bool b0 = c & 1, b1 = (c & 2) != 0;
  // Lanes c, c ^ 1 swap the words whose index differs from c in bit 0 ...
  const uint32_t r0 = __shfl_xor_sync(0xffffffffu, b0 ? w[0] : w[1], 1);
  const uint32_t r1 = __shfl_xor_sync(0xffffffffu, b0 ? w[2] : w[3], 1);
  const uint32_t k0 = b0 ? w[1] : w[0], k1 = b0 ? w[3] : w[2];
  // ... leaving words c & 1 (p: of the sources (c & 2) + 0, + 1) and 2 + (c & 1) (q); then lanes
  // c, c ^ 2 swap the pair whose index differs from c in bit 1.
  const uint32_t p0 = b0 ? r0 : k0, p1 = b0 ? k0 : r0, q0 = b0 ? r1 : k1, q1 = b0 ? k1 : r1;
  const uint32_t r2 = __shfl_xor_sync(0xffffffffu, b1 ? p0 : q0, 2);
  const uint32_t r3 = __shfl_xor_sync(0xffffffffu, b1 ? p1 : q1, 2);
  const uint32_t m0 = b1 ? q0 : p0, m1 = b1 ? q1 : p1;
  w[0] = b1 ? r2 : m0, w[1] = b1 ? r3 : m1, w[2] = b1 ? m0 : r2, w[3] = b1 ? m1 : r3;
}

// Two gates (channels c, c + 1) of a row as floats.
__device__ __forceinline__ float2 Gate2(const float* g) { return *reinterpret_cast<const float2*>(g); }
template <class G>
__device__ __forceinline__ float2 Gate2(const G* g) {
  return Unpair<G>(*reinterpret_cast<const uint32_t*>(g));
}

// The state kernels' gate pass, on every thread: thread i takes the channel pair 2 (i / S), + 1
// and the C / S steps of segment i % S (S = 2 kStateThreads / DK segments, in adjacent lanes),
// its gates in registers; the segments' gate totals are exchanged by shuffles (each thread adds
// the others' in a fixed order). Writes channel c's operand column in place as hi/lo, k e^(gates
// t+1 .. C-1) or scale q e^(gates 0 .. t), and e^P_last.
template <class K, bool kRev>
__device__ __forceinline__ void StateGatePass(typename K::Smem& sm, int b, float scale) {
  using E = typename K::E;
  constexpr int DK = K::DK, kPairs = DK / 2, kSeg = kStateThreads / kPairs, kLen = kC / kSeg;
  static_assert(kStateThreads % kPairs == 0 && kC % kSeg == 0 && (kSeg & (kSeg - 1)) == 0, "segments");
  const int i = threadIdx.x, seg = i % kSeg, c0 = 2 * (i / kSeg), t0 = seg * kLen;
  float2 gr[kLen];
  float tot0 = 0.f, tot1 = 0.f;
#pragma unroll
  for (int j = 0; j < kLen; ++j) {
    gr[j] = Gate2(sm.g[b] + (t0 + j) * DK + c0);
    tot0 += gr[j].x, tot1 += gr[j].y;
  }
  float run0 = 0.f, run1 = 0.f;  // the other segments' gates: before this one (kRev) or after it
#pragma unroll
  for (int o = 1; o < kSeg; ++o) {
    const float a0 = __shfl_xor_sync(0xffffffffu, tot0, o), a1 = __shfl_xor_sync(0xffffffffu, tot1, o);
    if (kRev ? (seg ^ o) < seg : (seg ^ o) > seg) run0 += a0, run1 += a1;
  }
  E* x = sm.x[b];
  const float s = kRev ? scale : 1.f;
#pragma unroll
  for (int jj = 0; jj < kLen; ++jj) {
    const int j = kRev ? jj : kLen - 1 - jj, o = (t0 + j) * K::kLdK + c0;
    if (kRev) run0 += gr[j].x, run1 += gr[j].y;
    const float2 xv = Unpair<E>(*reinterpret_cast<const uint32_t*>(x + o));
    const float v0 = xv.x * s * __expf(run0), v1 = xv.y * s * __expf(run1);
    if (!kRev) run0 += gr[j].x, run1 += gr[j].y;
    const E h0 = ToE<E>(v0), h1 = ToE<E>(v1);
    *reinterpret_cast<uint32_t*>(x + o) = Pack<E>(h0, h1);
    *reinterpret_cast<uint32_t*>(sm.xl + o) = Pack<E>(ToE<E>(v0 - float(h0)), ToE<E>(v1 - float(h1)));
  }
  if (seg == (kRev ? kSeg - 1 : 0)) sm.dec[c0] = __expf(run0), sm.dec[c0 + 1] = __expf(run1);
}

// rev = false: H_c before each chunk c (from h0), H <- e^P_last H + (k e^(P_last - P))^T V.
// rev = true: dh_c after each chunk c (from dfinal), dh <- e^P_last dh + (scale q e^P)^T dO; dh0.
// The next chunk's tiles load (cp.async) while this one's are used.
template <class K, bool kRev>
__global__ void __launch_bounds__(kStateThreads, 4) BwdStateKernel(const BwdArgs p) {
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= GLA_BWD_MIN_ARCH) || defined(GLA_BWD_HOST_EMULATION)
  using E = typename K::E;
  using G = typename K::G;
  using ST = typename K::ST;
  constexpr int DK = K::DK, BV = K::BV;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  typename K::Smem& sm = *reinterpret_cast<typename K::Smem*>(smem_raw);
  const int nv = (p.Dv + BV - 1) / BV, nk = (p.Dk + DK - 1) / DK;
  const int bh = blockIdx.x / (nk * nv), tile = blockIdx.x - bh * (nk * nv), kt = tile / nv;
  const int i0 = kt * DK, j0 = (tile - kt * nv) * BV, dk = p.Dk - i0;  // the tile's origin; rows left in Dk
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int m0 = warp * (DK / 4);
  const HeadOffsets ho = Offsets(p, bh);
  const int NT = (p.T + kC - 1) / kC;
  const int64_t ss = int64_t(p.Dk) * p.Dv, so = int64_t(bh) * ss + int64_t(i0) * p.Dv;  // so: the tile's row i0
  ST* out = reinterpret_cast<ST*>(p.work) + (kRev ? BwdStateElems(p) : 0) + int64_t(bh) * NT * ss + int64_t(i0) * p.Dv;
  const E* xs = static_cast<const E*>(kRev ? p.q : p.k) + ho.qk + i0;
  const E* ys = static_cast<const E*>(kRev ? p.dout : p.v) + ho.v + j0;
  const G* gs = static_cast<const G*>(p.g) + ho.qk + i0;
  const float* init = kRev ? p.dfinal : p.h0;
  auto issue = [&](int step) {  // chunk `step` (in this kernel's order) into buffer step % 2
    const int t0 = (kRev ? NT - 1 - step : step) * kC, b = step & 1;
    LoadTileAsync<kStateThreads, DK>(sm.x[b], K::kLdK, xs, p.qk_st, t0, p.T, dk);
    LoadTileAsync<kStateThreads, BV>(sm.y[b], K::kLdV, ys, p.v_st, t0, p.T, p.Dv - j0);
    LoadTileAsync<kStateThreads, DK>(sm.g[b], DK, gs, p.qk_st, t0, p.T, dk);
    phi::funcs::CpAsyncCommit();
  };
  issue(0);

  float S[K::kMI][BV / 8][4];
  ForEach(S, m0, 0, [&](int r, int c, float& x) {
    x = (init != nullptr && r < dk && j0 + c < p.Dv) ? init[so + int64_t(r) * p.Dv + j0 + c] : 0.f;
  });
  // Stores the tile (rows < Dk, columns < Dv) at dst (its row i0). 16-bit: 16-byte row pieces,
  // the four lanes of a quad exchanging their pairs (QuadTranspose) so that lane c holds columns 8c
  // .. 8c + 7 of each 32 (a warp's store writes whole 32-byte sectors: pairs wrote half sectors);
  // float: pairs (8 bytes a lane, whole sectors).
  auto store = [&](auto* dst) {
    using D = std::remove_pointer_t<decltype(dst)>;
    const int g = lane >> 2, c = lane & 3;
#pragma unroll
    for (int mi = 0; mi < K::kMI; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = m0 + 16 * mi + g + 8 * h;
        if constexpr (sizeof(D) == 2) {
#pragma unroll
          for (int q = 0; q < BV / 32; ++q) {
            uint32_t w[4];
#pragma unroll
            for (int jn = 0; jn < 4; ++jn) w[jn] = Pack<D>(ToE<D>(S[mi][4 * q + jn][2 * h]), ToE<D>(S[mi][4 * q + jn][2 * h + 1]));
            QuadTranspose(w, c);
            const int col = j0 + 32 * q + 8 * c;
            if (r < dk && col < p.Dv) *reinterpret_cast<uint4*>(dst + int64_t(r) * p.Dv + col) = make_uint4(w[0], w[1], w[2], w[3]);
          }
        } else {
#pragma unroll
          for (int ni = 0; ni < BV / 8; ++ni) {
            const int col = j0 + 8 * ni + 2 * c;
            if (r < dk && col < p.Dv) Store2(dst + int64_t(r) * p.Dv + col, S[mi][ni][2 * h], S[mi][ni][2 * h + 1]);
          }
        }
      }
  };

  for (int step = 0; step < NT; ++step) {
    const int n = kRev ? NT - 1 - step : step, b = step & 1;
    store(out + int64_t(n) * ss);
    phi::funcs::CpAsyncWait<0>();
    __syncthreads();  // chunk `step` in buffer b; every thread past the last step's products (buffer b ^ 1, xl, dec free)
    if (step + 1 < NT) issue(step + 1);
    StateGatePass<K, kRev>(sm, b, p.scale);
    __syncthreads();
    ForEach(S, m0, 0, [&](int r, int, float& x) { x *= sm.dec[r]; });
    const ColK<E> fb{sm.y[b], K::kLdV};
#ifdef GLA_BWD_UNFUSED
    WarpMma<E>(S, m0, 0, kC, ColK<E>{sm.x[b], K::kLdK}, fb);
    WarpMma<E>(S, m0, 0, kC, ColK<E>{sm.xl, K::kLdK}, fb);
#else
    WarpMmaA2<E>(S, m0, 0, kC, ColK<E>{sm.x[b], K::kLdK}, ColK<E>{sm.xl, K::kLdK}, fb);
#endif
  }
  if (kRev && p.dh0 != nullptr) store(p.dh0 + so);
#endif
}

// The state kernels' tiles of a configuration: 64 rows (key channels) by W = 128 columns (64 where
// DV is 64), 64 or 32, the first whose grid has a block for every SM (a narrower tile repeats the
// gate pass and the k / q and gate loads for more column tiles, a wider one leaves SMs idle). H200,
// one pass (docs/benchmarks.md, 2026-11-29 sixth session): seed B32 H4 Dk128 Dv256 64 x 128 0.28
// ms (128 x 64 0.31); B4 H16 D128 64 x 64 (256 blocks) 0.124 against 64 x 32 0.153 and 64 x 128
// (128 blocks) 0.158; B8 H8 D64 64 x 32 (128 blocks) 0.052 against 64 x 64 (64 blocks) 0.057.
template <class E, class G, int DV>
struct StateTiles {
  using W = StateKernel<E, G, 64, (DV >= 128 ? 128 : 64)>;
  using M = StateKernel<E, G, 64, 64>;
  using N = StateKernel<E, G, 64, 32>;
};

// ---- the chunk kernel: configuration and shared memory -------------------------------------------
template <class E_, class G_, int DK_, int DV_>
struct BwdKernel {
  using E = E_;
  using G = G_;
  using ST = StateT<E>;
  // The raw path: states of the inputs' type (bfloat16) enter the products as they are, their row
  // scalings applied to the products' outputs (and to Kd for dv); else scaled and split hi/lo.
#ifdef GLA_BWD_SPLIT_STATES
  static constexpr bool kRaw = false;
#else
  static constexpr bool kRaw = std::is_same<ST, E>::value;
#endif
  static constexpr int DK = DK_, DV = DV_;
  static_assert(DK == 64 || DK == 128, "DK is 64 or 128");
  static_assert(DV == 64 || DV == 128 || DV == 256, "DV is 64, 128 or 256");
  static constexpr int SV = DV < 128 ? DV : 128;  // columns of a state slab in shared memory
  static constexpr int kSlabs = DV / SV;
  static constexpr int kLdK = DK + 8, kLdV = DV + 8, kLdS = SV + 8, kLdC = kC + 8;
  // The float [kC, DK] arrays' row stride: 8 past DK, so a fragment's rows (g = lane / 4) fall in
  // distinct bank groups (a stride of DK put all 8 rows of a fragment access in one bank).
  static constexpr int kLdF = DK + 8;
  // dv's [C, SV] slab in kDvParts column parts: one (a warp tile of 16 x SV / 4, each A fragment
  // of Kd used for SV / 32 column blocks) unless a test build defines GLA_BWD_DV_PARTS.
#ifdef GLA_BWD_DV_PARTS
  static constexpr int kDvParts = SV >= 128 ? GLA_BWD_DV_PARTS : 1;
#else
  static constexpr int kDvParts = 1;
#endif
  static constexpr int kCkN = DK / 4 / 8, kCvN = SV / kDvParts / 4 / 8;

  struct Smem {
    E q[kC * kLdK], ql[kC * kLdK];   // raw q, then Qd hi / lo
    E k[kC * kLdK], kl[kC * kLdK];   // raw k, then Kd hi / lo
    E v[kC * kLdV], o[kC * kLdV];    // v, do
    E slab[2][DK * kLdS];  // a slab of the scaled state H_c or dh_c (hi / lo); the raw path's two slab buffers
    E dA[kC * kLdC], A[kC * kLdC];  // dA strict lower (zeros on and above the diagonal)
    float ea[kC * kLdF], eb[kC * kLdF], pc[kC * kLdF], term[kC * kLdF];  // ea then u; term: w
    float diag[kC];                   // dA_tt
    float vsf[DK], vsr[DK], dec[DK], rowdot[DK], first[DK];
  };
  static constexpr int kSmemBytes = int(sizeof(Smem));
};

// The gate pass of one chunk: thread i < Dk owns key channel i, whose C gates are gl (registers);
// writes the factors e^alpha (Qd) and e^beta (Kd), in the element-wise mode the clamped cumulative
// gates (sm.pc) over the raw ones, the states' row scalings (vsf of H_c, vsr of dh_c) and
// e^P_last; returns whether the chunk takes the factored mode (the same in every thread).
template <class K>
__device__ __forceinline__ bool GatePass(typename K::Smem& sm, bool own, int force_other, const float (&gl)[kC]) {
  constexpr int kLdF = K::kLdF;
  const int i = threadIdx.x;
  float ref = 0.f, post = 0.f;
  bool ok = true;
  if (own) {
    float run = 0.f;
#pragma unroll
    for (int t = kRefRow; t >= 0; --t) {  // a_t = -(gates t+1 .. m)
      ok = ok && fabsf(run) <= SafeRange<typename K::E>();
      run += gl[t];
    }
    ref = run;
    run = 0.f;
#pragma unroll
    for (int t = kRefRow + 1; t < kC; ++t) {  // a_t = gates m+1 .. t
      run += gl[t];
      ok = ok && fabsf(run) <= SafeRange<typename K::E>();
    }
    post = run;
  }
  const bool safe = __syncthreads_and(ok) && !force_other;
  if (own) {
    sm.dec[i] = __expf(ref + post);
    if (safe) {
      float run = 0.f;
#pragma unroll
      for (int t = kRefRow; t >= 0; --t) {
        sm.ea[t * kLdF + i] = __expf(-run);
        sm.eb[t * kLdF + i] = __expf(run);
        run += gl[t];
      }
      run = 0.f;
#pragma unroll
      for (int t = kRefRow + 1; t < kC; ++t) {
        run += gl[t];
        sm.ea[t * kLdF + i] = __expf(run);
        sm.eb[t * kLdF + i] = __expf(-run);
      }
      sm.vsf[i] = __expf(ref);
      sm.vsr[i] = __expf(post);
    } else {
      float suf = 0.f;
#pragma unroll
      for (int t = kC - 1; t >= 0; --t) {
        sm.eb[t * kLdF + i] = __expf(suf);  // gates t+1 .. C-1
        suf += gl[t];
      }
      float pre = 0.f, pcs = 0.f;
#pragma unroll
      for (int t = 0; t < kC; ++t) {
        const float gt = gl[t];
        pre += gt;
        pcs += fmaxf(gt, -kClampGate);
        sm.ea[t * kLdF + i] = __expf(pre);  // gates 0 .. t
        sm.pc[t * kLdF + i] = pcs;
      }
      sm.vsf[i] = sm.vsr[i] = 1.f;
    }
  }
  return safe;
}

// Qd = scale q e^alpha and Kd = k e^beta as hi/lo pairs, in place (rows past T are zeros).
template <class K>
__device__ __forceinline__ void ScaleOperands(typename K::Smem& sm, float scale) {
  using E = typename K::E;
  constexpr int DK = K::DK, ld = K::kLdK, kLdF = K::kLdF, kP = DK / 2;
  for (int e = threadIdx.x; e < kC * kP; e += kThreads) {  // element pairs (t, i), (t, i + 1)
    const int t = e / kP, i = 2 * (e - t * kP), o = t * ld + i;
    const float2 q = Unpair<E>(*reinterpret_cast<const uint32_t*>(sm.q + o));
    const float2 k = Unpair<E>(*reinterpret_cast<const uint32_t*>(sm.k + o));
    const float2 ea = *reinterpret_cast<const float2*>(sm.ea + t * kLdF + i);
    const float2 eb = *reinterpret_cast<const float2*>(sm.eb + t * kLdF + i);
    const float qd0 = q.x * scale * ea.x, qd1 = q.y * scale * ea.y;
    const float kd0 = k.x * eb.x, kd1 = k.y * eb.y;
    const E qh0 = ToE<E>(qd0), qh1 = ToE<E>(qd1), kh0 = ToE<E>(kd0), kh1 = ToE<E>(kd1);
    *reinterpret_cast<uint32_t*>(sm.q + o) = Pack<E>(qh0, qh1);
    *reinterpret_cast<uint32_t*>(sm.ql + o) = Pack<E>(ToE<E>(qd0 - float(qh0)), ToE<E>(qd1 - float(qh1)));
    *reinterpret_cast<uint32_t*>(sm.k + o) = Pack<E>(kh0, kh1);
    *reinterpret_cast<uint32_t*>(sm.kl + o) = Pack<E>(ToE<E>(kd0 - float(kh0)), ToE<E>(kd1 - float(kh1)));
  }
}

// dA = dO V^T (t, s) into shared memory (16-bit) and its diagonal (float).
template <class K>
__device__ __forceinline__ void ComputeDA(typename K::Smem& sm) {
  using E = typename K::E;
  // 16 x 16 per warp: warps 0-3 over Dv's first half, 4-7 over its second, summed in order.
  const int warp = threadIdx.x / 32, wq = warp & 3, half = warp >> 2, wm = wq >> 1, wn = wq & 1;
  float acc[1][2][4];
  Zero(acc);
  WarpMma<E>(acc, wm * 16, wn * 16, K::DV / 2, RowK<E>{sm.o + half * (K::DV / 2), K::kLdV},
             RowK<E>{sm.v + half * (K::DV / 2), K::kLdV});
  float* part = sm.term;  // [2][kC][kC] float scratch (free here)
  ForEach(acc, wm * 16, wn * 16, [&](int t, int s, float& x) { part[half * kC * kC + t * kC + s] = x; });
  __syncthreads();
  for (int e = threadIdx.x; e < kC * kC; e += kThreads) {
    const int t = e / kC, s = e - t * kC;
    const float x = part[e] + part[kC * kC + e];
    sm.dA[t * K::kLdC + s] = ToE<E>(s < t ? x : 0.f);  // strict lower: the products' operand as it is
    if (t == s) sm.diag[t] = x;
  }
  __syncthreads();  // part is scratch of the next step
}

// The state slabs of the chunk kernel: slab `sl` (SV columns) of a state [Dk, Dv] of the work
// space (src) into sm.slab[0] / sm.slab[1], row i scaled by vs[i], as hi/lo pairs (zeros past Dk and Dv).
// Issue() loads the first kPre of each thread's 16-byte pieces into registers (the next slab,
// while the current one's products run), Store() converts them and loads the rest. With `other`
// (a second state), rowdot[i] += sum over the slab's columns of src * other (unscaled), in a
// fixed order.
template <class K>
struct SlabPipe {
  using E = typename K::E;
  using ST = typename K::ST;
  static constexpr int V = 16 / int(sizeof(ST));  // elements per 16-byte load
  static constexpr int R = K::SV / V;  // loads per slab row (a power of 2, <= 32: one warp's lanes)
  static constexpr int kIter = K::DK * R / kThreads, kPre = kIter < 8 ? kIter : 8;
  static constexpr int kRows = kThreads / R;  // rows per pass: piece b of a thread is row i0 + b kRows
  static_assert(kIter % kPre == 0, "whole batches");
  uint4 x[kPre], y[kPre];
  // This thread's first row and its column in the slab.
  __device__ __forceinline__ static int Row0() { return int(threadIdx.x) / R; }
  __device__ __forceinline__ static int Col() { return (int(threadIdx.x) % R) * V; }

  __device__ __forceinline__ void Load(int it0, const ST* src, const ST* other, int sl, int Dk, int Dv) {
    const int i0 = Row0() + it0 * kRows, j = sl * K::SV + Col();
    const int64_t off = int64_t(i0) * Dv + j, step = int64_t(kRows) * Dv;
    const bool jin = j < Dv;
#pragma unroll
    for (int b = 0; b < kPre; ++b) {
      const bool in = jin && i0 + b * kRows < Dk;
      x[b] = in ? *reinterpret_cast<const uint4*>(src + off + b * step) : make_uint4(0, 0, 0, 0);
      if (other != nullptr) y[b] = in ? *reinterpret_cast<const uint4*>(other + off + b * step) : make_uint4(0, 0, 0, 0);
    }
  }
  __device__ __forceinline__ void Issue(const ST* src, const ST* other, int sl, int Dk, int Dv) {
    Load(0, src, other, sl, Dk, Dv);
  }
  __device__ __forceinline__ void Store(typename K::Smem& sm, const ST* src, const ST* other, int sl, const float* vs,
                                        int Dk, int Dv, float* rowdot) {
#pragma unroll 1
    for (int it0 = 0; it0 < kIter; it0 += kPre) {
      if (it0 > 0) Load(it0, src, other, sl, Dk, Dv);
#pragma unroll
      for (int b = 0; b < kPre; ++b) {
        const int i = Row0() + (it0 + b) * kRows, jj = Col();
        const float s = vs[i];
        float xf[V];
        Unpack16<ST>(x[b], xf);
        uint32_t h[V / 2], l[V / 2];
#pragma unroll
        for (int c = 0; c < V; c += 2) {
          const float v0 = xf[c] * s, v1 = xf[c + 1] * s;
          const E h0 = ToE<E>(v0), h1 = ToE<E>(v1);
          h[c / 2] = Pack<E>(h0, h1);
          l[c / 2] = Pack<E>(ToE<E>(v0 - float(h0)), ToE<E>(v1 - float(h1)));
        }
        if constexpr (V == 4) {
          *reinterpret_cast<uint2*>(sm.slab[0] + i * K::kLdS + jj) = make_uint2(h[0], h[1]);
          *reinterpret_cast<uint2*>(sm.slab[1] + i * K::kLdS + jj) = make_uint2(l[0], l[1]);
        } else {
          *reinterpret_cast<uint4*>(sm.slab[0] + i * K::kLdS + jj) = make_uint4(h[0], h[1], h[2], h[3]);
          *reinterpret_cast<uint4*>(sm.slab[1] + i * K::kLdS + jj) = make_uint4(l[0], l[1], l[2], l[3]);
        }
        if (other != nullptr) {
          float yf[V];
          Unpack16<ST>(y[b], yf);
          float d = 0.f;
#pragma unroll
          for (int c = 0; c < V; ++c) d += xf[c] * yf[c];
#pragma unroll
          for (int o = R / 2; o >= 1; o /= 2) d += __shfl_xor_sync(0xffffffffu, d, o);
          if (threadIdx.x % R == 0) rowdot[i] += d;
        }
      }
    }
  }
};

// The raw path (the work space's states of the inputs' type): slab `sl` of a state by cp.async
// into dst as it is (one commit group), and sum over the slab's columns of a raw slab in shared
// memory times the same slab of another state in registers (SlabPipe's pieces).
template <class K>
__device__ __forceinline__ void IssueRawSlab(typename K::E* dst, const typename K::ST* src, int sl, int Dk, int Dv) {
  constexpr int R = K::SV / 8, kRows = kThreads / R;  // a thread keeps one column, steps its row
  static_assert(kThreads % R == 0 && K::DK % kRows == 0, "whole passes");
  const int i0 = int(threadIdx.x) / R, c = (int(threadIdx.x) % R) * 8, j = sl * K::SV + c;
  const bool jok = j < Dv;
  const typename K::ST* s = src + int64_t(i0) * Dv + j;
  const int64_t step = int64_t(kRows) * Dv;
#pragma unroll
  for (int it = 0; it < K::DK / kRows; ++it, s += step) {
    const bool ok = jok && i0 + it * kRows < Dk;
    phi::funcs::CpAsync16OrZero(dst + (i0 + it * kRows) * K::kLdS + c, ok ? s : src, ok);
  }
  phi::funcs::CpAsyncCommit();
}
template <class K>
__device__ __forceinline__ void RawSlabDot(const typename K::E* slab, const SlabPipe<K>& pipe, float* rowdot) {
  using P = SlabPipe<K>;
  static_assert(P::kPre == P::kIter && P::V == 8, "the raw path: 16-bit states, one batch");
#pragma unroll
  for (int b = 0; b < P::kIter; ++b) {
    const int i = P::Row0() + b * P::kRows, jj = P::Col();
    float xf[8], yf[8];
    Unpack16<typename K::E>(*reinterpret_cast<const uint4*>(slab + i * K::kLdS + jj), xf);
    Unpack16<typename K::ST>(pipe.x[b], yf);
    float d = 0.f;
#pragma unroll
    for (int c = 0; c < 8; ++c) d += xf[c] * yf[c];
#pragma unroll
    for (int o = P::R / 2; o >= 1; o /= 2) d += __shfl_xor_sync(0xffffffffu, d, o);
    if (threadIdx.x % P::R == 0) rowdot[i] += d;
  }
}

// Starts the loads of chunk t0's q, k, v, do tiles and raw gates (into sm.term) (cp.async, one
// group).
template <class K>
__device__ __forceinline__ void IssueChunk(typename K::Smem& sm, const BwdArgs& p, const HeadOffsets& ho, int t0) {
  using E = typename K::E;
  using G = typename K::G;
  LoadTileAsync<kThreads, K::DK>(sm.q, K::kLdK, static_cast<const E*>(p.q) + ho.qk, p.qk_st, t0, p.T, p.Dk);
  LoadTileAsync<kThreads, K::DK>(sm.k, K::kLdK, static_cast<const E*>(p.k) + ho.qk, p.qk_st, t0, p.T, p.Dk);
  LoadTileAsync<kThreads, K::DV>(sm.v, K::kLdV, static_cast<const E*>(p.v) + ho.v, p.v_st, t0, p.T, p.Dv);
  LoadTileAsync<kThreads, K::DV>(sm.o, K::kLdV, static_cast<const E*>(p.dout) + ho.v, p.v_st, t0, p.T, p.Dv);
  LoadTileAsync<kThreads, K::DK>(reinterpret_cast<G*>(sm.term), K::DK, static_cast<const G*>(p.g) + ho.qk, p.qk_st,
                                 t0, p.T, p.Dk);
  phi::funcs::CpAsyncCommit();
}

// After IssueChunk's loads (waited for): channel i's gates (thread i < DK) into registers, the
// gate pass, the scaled operands; returns the mode, and in *zero (thread i < DK) bit t set
// where channel i's factor e^gk at step t0 + t is 0 (the reverse sum's restarts).
template <class K>
__device__ bool PrepareChunk(typename K::Smem& sm, const BwdArgs& p, uint32_t* zero) {
  using G = typename K::G;
  const int i = threadIdx.x;
  const bool own = i < K::DK;
  uint32_t z = 0;
  float gl[kC];  // channel i's gates (thread i < DK)
  if (own) {
    const G* graw = reinterpret_cast<const G*>(sm.term) + i;
#pragma unroll
    for (int t = 0; t < kC; ++t) gl[t] = ToF(graw[t * K::DK]);  // zeros past T and Dk
#pragma unroll
    for (int t = 0; t < kC; ++t) z |= uint32_t(__expf(gl[t]) == 0.f) << t;
  }
  *zero = z;
  const bool safe = GatePass<K>(sm, own, p.force_other_mode, gl);
  __syncthreads();
  ScaleOperands<K>(sm, p.scale);
  __syncthreads();
  return safe;
}

// fn(row, col, ni, h) over the element pairs (row, col), (row, col + 1) of a warp tile 16 x 8 NI at
// (m0, n0): acc[0][ni][2 h], acc[0][ni][2 h + 1] (col even).
template <int NI, class Fn>
__device__ __forceinline__ void ForPairs(int m0, int n0, Fn&& fn) {
  const int lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
#pragma unroll
  for (int ni = 0; ni < NI; ++ni)
#pragma unroll
    for (int h = 0; h < 2; ++h) fn(m0 + g + 8 * h, n0 + 8 * ni + 2 * c, ni, h);
}

// Stores a warp tile's results v (as ForEach's acc[0]) as E: rows m0 + .., columns n0 + .. of a
// [.., D] tensor at base (row stride st, element offsets multiples of 8), the rows t0 + row < T,
// the columns < D (D a multiple of 8). With `vec` (base 16-byte aligned) and NI a multiple of 4:
// 16-byte row pieces after a quad transpose (QuadTranspose: lane c then holds columns 8c .. 8c + 7
// of each 32, and a quad writes 64 contiguous bytes); else 4-byte pairs where `pair` allows (a
// warp's pairs filled 18 of each 32-byte sector's bytes on average, Nsight Compute on the seed).
template <class E, int NI>
__device__ __forceinline__ void StoreTile(E* base, int64_t st, int t0, int T, int D, int m0, int n0,
                                          const float (&v)[NI][4], bool vec, bool pair) {
  if constexpr (NI % 4 == 0) {
    if (vec) {
      const int lane = threadIdx.x & 31, g = lane >> 2, c = lane & 3;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = t0 + m0 + g + 8 * h;
#pragma unroll
        for (int q = 0; q < NI / 4; ++q) {
          uint32_t w[4];
#pragma unroll
          for (int jn = 0; jn < 4; ++jn) w[jn] = Pack<E>(ToE<E>(v[4 * q + jn][2 * h]), ToE<E>(v[4 * q + jn][2 * h + 1]));
          QuadTranspose(w, c);
          const int col = n0 + 32 * q + 8 * c;
          if (r < T && col < D) *reinterpret_cast<uint4*>(base + int64_t(r) * st + col) = make_uint4(w[0], w[1], w[2], w[3]);
        }
      }
      return;
    }
  }
  ForPairs<NI>(m0, n0, [&](int t, int j, int ni, int h) {
    if (t0 + t < T && j < D) StorePair<E>(base + int64_t(t0 + t) * st + j, v[ni][2 * h], v[ni][2 * h + 1], pair);
  });
}

// ---- the chunk kernel ------------------------------------------------------------------------------
template <class K>
__global__ void __launch_bounds__(kThreads, 1) BwdChunkKernel(const BwdArgs p) {
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= GLA_BWD_MIN_ARCH) || defined(GLA_BWD_HOST_EMULATION)
  using E = typename K::E;
  using G = typename K::G;
  constexpr int DK = K::DK, SV = K::SV;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  typename K::Smem& sm = *reinterpret_cast<typename K::Smem*>(smem_raw);
  const int NT = (p.T + kC - 1) / kC;
  const int bh = blockIdx.x / NT, n = blockIdx.x - bh * NT, t0 = n * kC;
  const int warp = threadIdx.x / 32, wm = warp / 4, wn = warp % 4, lane = threadIdx.x & 31;
  const HeadOffsets ho = Offsets(p, bh);
  const E* q = static_cast<const E*>(p.q) + ho.qk;
  const E* k = static_cast<const E*>(p.k) + ho.qk;
  G* dg = static_cast<G*>(p.dg) + ho.qk;
  const int64_t ss = int64_t(p.Dk) * p.Dv;
  using ST = typename K::ST;
  const ST* Hc = reinterpret_cast<const ST*>(p.work) + (int64_t(bh) * NT + n) * ss;
  const ST* dHc = reinterpret_cast<const ST*>(p.work) + BwdStateElems(p) + (int64_t(bh) * NT + n) * ss;
  const int ci = threadIdx.x;  // the reverse sum's channel (ci < Dk)
  constexpr int kLdF = K::kLdF;
  // dq, dk, dv stored two elements at a time where their bases allow (element offsets are even).
  const uintptr_t outs = reinterpret_cast<uintptr_t>(p.dq) | reinterpret_cast<uintptr_t>(p.dk) |
                         reinterpret_cast<uintptr_t>(p.dv);
#ifdef GLA_BWD_PAIR_STORES  // (a test build: 4-byte pairs only)
  const bool pair = (outs & 3) == 0, vec = false;
#else
  const bool pair = (outs & 3) == 0, vec = (outs & 15) == 0;  // ... and 16-byte pieces (StoreTile)
#endif

  constexpr int S2 = 2 * K::kSlabs;  // the slabs in order: H_c's, then dh_c's
  auto raw_issue = [&](int s) {
    if (s < K::kSlabs) IssueRawSlab<K>(sm.slab[s & 1], Hc, s, p.Dk, p.Dv);
    else IssueRawSlab<K>(sm.slab[s & 1], dHc, s - K::kSlabs, p.Dk, p.Dv);
  };
  IssueChunk<K>(sm, p, ho, t0);
  SlabPipe<K> pipe;
  if constexpr (K::kRaw) {
    raw_issue(0);
    raw_issue(1);
    pipe.Issue(dHc, nullptr, 0, p.Dk, p.Dv);  // for sum_j dh_c H_c, beside H_c's slab 0
    phi::funcs::CpAsyncWait<2>();
  } else {
    pipe.Issue(Hc, nullptr, 0, p.Dk, p.Dv);
    phi::funcs::CpAsyncWait<0>();
  }
  __syncthreads();
  // The warps' tile of X and Y (16 x DK / 4): raw q, k at its element pairs, before the scaling
  // overwrites them (the epilogues' q_t, k_t).
  const int xm0 = wm * 16, xn0 = wn * (DK / 4);
  uint32_t qraw[K::kCkN][2], kraw[K::kCkN][2];
  ForPairs<K::kCkN>(xm0, xn0, [&](int t, int i, int ni, int h) {
    qraw[ni][h] = *reinterpret_cast<const uint32_t*>(sm.q + t * K::kLdK + i);
    kraw[ni][h] = *reinterpret_cast<const uint32_t*>(sm.k + t * K::kLdK + i);
  });
  uint32_t zero;
  const bool safe = PrepareChunk<K>(sm, p, &zero);
  const bool first_dot = n == 0 && p.h0 != nullptr;
  if (ci < DK) {
    sm.rowdot[ci] = 0.f;
    if (!first_dot) sm.first[ci] = 0.f;
  }
  if (first_dot) {  // gk_grad at t = 0: sum_j dh0 h0, a warp per row, j in order
    for (int r = warp; r < p.Dk; r += kThreads / 32) {
      float d = 0.f;
      for (int j = lane; j < p.Dv; j += 32) d += p.dh0[int64_t(bh) * ss + int64_t(r) * p.Dv + j] * p.h0[int64_t(bh) * ss + int64_t(r) * p.Dv + j];
#pragma unroll
      for (int o = 16; o >= 1; o /= 2) d += __shfl_xor_sync(0xffffffffu, d, o);
      if (lane == 0) sm.first[r] = d;
    }
  }
  ComputeDA<K>(sm);
  {  // A (s, t) = Qd_s . Kd_t for s >= t (hi parts; element-wise in the other mode): 16 x 16 per
     // warp, warps 0-3 over Dk's first half, 4-7 over its second, summed in order.
    if (safe) {
      const int wq = warp & 3, half = warp >> 2, am = (wq >> 1) * 16, an = (wq & 1) * 16;
      float acc[1][2][4];
      Zero(acc);
      WarpMma<E>(acc, am, an, DK / 2, RowK<E>{sm.q + half * (DK / 2), K::kLdK}, RowK<E>{sm.k + half * (DK / 2), K::kLdK});
      float* part = sm.term;  // [2][kC][kC] float scratch (free until w)
      ForEach(acc, am, an, [&](int s, int t, float& x) { part[half * kC * kC + s * kC + t] = x; });
      __syncthreads();
      for (int e = threadIdx.x; e < kC * kC; e += kThreads) {
        const int s = e / kC, t = e - s * kC;
        sm.A[s * K::kLdC + t] = ToE<E>(s >= t ? part[e] + part[kC * kC + e] : 0.f);
      }
    } else {  // element by element (a loop, not unrolled: cold code kept small)
#pragma unroll 1
      for (int e = threadIdx.x; e < kC * kC; e += kThreads) {
        const int s = e / kC, t = e - s * kC;
        float x = 0.f;
        if (s >= t && t0 + s < p.T) {
          float sum = 0.f;
          for (int i = 0; i < p.Dk; ++i)
            sum += float(q[int64_t(t0 + s) * p.qk_st + i]) * float(k[int64_t(t0 + t) * p.qk_st + i]) *
                   __expf(sm.pc[s * kLdF + i] - sm.pc[t * kLdF + i]);
          x = sum * p.scale;
        }
        sm.A[s * K::kLdC + t] = ToE<E>(s >= t ? x + 0.f : 0.f);
      }
    }
  }
  __syncthreads();
  // The element-wise mode's in-chunk terms, each element in a loop (cold code kept out of the
  // epilogues): dq's sum_{s<t} dA_ts k_s e^(pc_t - pc_s) into term (read by the X epilogue before
  // it writes w there; the slab loop's barriers lie between).
  if (!safe) {
#pragma unroll 1
    for (int e = threadIdx.x; e < kC * DK; e += kThreads) {
      const int t = e / DK, i = e - t * DK;
      float intra = 0.f;
      if (t0 + t < p.T && i < p.Dk) {
        const float pt = sm.pc[t * kLdF + i];
        for (int s = 0; s < t; ++s)
          intra += float(sm.dA[t * K::kLdC + s]) * float(k[int64_t(t0 + s) * p.qk_st + i]) * __expf(pt - sm.pc[s * kLdF + i]);
      }
      sm.term[t * kLdF + i] = intra;
    }
  }

  // X = dO (vsf H_c)^T [+ strict(dA) Kd]: warp tile 16 x (DK / 4); dq, and w = q dq'. The raw
  // path: XH = dO H_c^T, XS = strict(dA) Kd, X = vsf XH + XS.
  {
    float X[1][K::kCkN][4], XS[1][K::kCkN][4];
    Zero(X), Zero(XS);
    for (int sl = 0; sl < K::kSlabs; ++sl) {
      const RowK<E> fa{sm.o + sl * SV, K::kLdV};
      if constexpr (K::kRaw) {
        if (sl + 1 < S2) phi::funcs::CpAsyncWait<1>();
        else phi::funcs::CpAsyncWait<0>();
        __syncthreads();
        RawSlabDot<K>(sm.slab[sl & 1], pipe, sm.rowdot);
        if (sl + 1 < K::kSlabs) pipe.Issue(dHc, nullptr, sl + 1, p.Dk, p.Dv);
        WarpMma<E>(X, xm0, xn0, SV, fa, RowK<E>{sm.slab[sl & 1], K::kLdS});
        __syncthreads();
        if (sl + 2 < S2) raw_issue(sl + 2);
      } else {
        pipe.Store(sm, Hc, nullptr, sl, sm.vsf, p.Dk, p.Dv, nullptr);
        __syncthreads();
        if (sl + 1 < K::kSlabs) pipe.Issue(Hc, nullptr, sl + 1, p.Dk, p.Dv);
        else pipe.Issue(dHc, Hc, 0, p.Dk, p.Dv);
        WarpMmaB2<E>(X, xm0, xn0, SV, fa, RowK<E>{sm.slab[0], K::kLdS}, RowK<E>{sm.slab[1], K::kLdS});
        __syncthreads();
      }
    }
    if (safe) {
      const RowK<E> fa{sm.dA, K::kLdC};  // strict(dA) (t, s)
#ifdef GLA_BWD_UNFUSED
      WarpMma<E>(XS, xm0, xn0, kC, fa, ColK<E>{sm.k, K::kLdK});
      WarpMma<E>(XS, xm0, xn0, kC, fa, ColK<E>{sm.kl, K::kLdK});
#else
      WarpMmaB2<E>(XS, xm0, xn0, kC, fa, ColK<E>{sm.k, K::kLdK}, ColK<E>{sm.kl, K::kLdK});
#endif
    }
    float dqv[K::kCkN][4];
    ForPairs<K::kCkN>(xm0, xn0, [&](int t, int i, int ni, int h) {
      float w[2] = {0.f, 0.f};
      dqv[ni][2 * h] = dqv[ni][2 * h + 1] = 0.f;
      if (t0 + t < p.T && i < p.Dk) {  // i even, Dk a multiple of 8: i + 1 < Dk too
        const float2 qf = Unpair<E>(qraw[ni][h]), kf = Unpair<E>(kraw[ni][h]);
        const float qv[2] = {qf.x, qf.y}, kv[2] = {kf.x, kf.y};
        const float2 ea = *reinterpret_cast<const float2*>(sm.ea + t * kLdF + i);
        const float eav[2] = {ea.x, ea.y};
        const float2 in2 = safe ? make_float2(0.f, 0.f) : *reinterpret_cast<const float2*>(sm.term + t * kLdF + i);
        const float inv[2] = {in2.x, in2.y};
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float intra = inv[e];
          const float x = X[0][ni][2 * h + e], xs = XS[0][ni][2 * h + e];
          const float xx = (K::kRaw ? sm.vsf[i + e] * x : x) + xs;
          const float dqp = p.scale * (eav[e] * xx + intra);
          w[e] = qv[e] * dqp;
          dqv[ni][2 * h + e] = dqp + p.scale * sm.diag[t] * kv[e];
        }
      }
      *reinterpret_cast<float2*>(sm.term + t * kLdF + i) = make_float2(w[0], w[1]);
    });
    StoreTile<E>(static_cast<E*>(p.dq) + ho.qk, p.qk_st, t0, p.T, p.Dk, xm0, xn0, dqv, vec, pair);
  }
  __syncthreads();  // ea is u from here
  if (!safe) {  // the element-wise mode's dk' term sum_{s>t} dA_st scale q_s e^(pc_s - pc_t) into ea (u's
                // place, read by the Y epilogue before it writes u; the slab loop's barriers lie between)
#pragma unroll 1
    for (int e = threadIdx.x; e < kC * DK; e += kThreads) {
      const int t = e / DK, i = e - t * DK;
      float intra = 0.f;
      if (t0 + t < p.T && i < p.Dk) {
        const float pt = sm.pc[t * kLdF + i];
        for (int s = t + 1; s < kC && t0 + s < p.T; ++s)
          intra += float(sm.dA[s * K::kLdC + t]) * float(q[int64_t(t0 + s) * p.qk_st + i]) * __expf(sm.pc[s * kLdF + i] - pt);
        intra *= p.scale;
      }
      sm.ea[t * kLdF + i] = intra;
    }
  }
  if constexpr (K::kRaw) {  // Kd <- vsr Kd (hi/lo), dv's operand: k e^(P_last - P)
    constexpr int ld = K::kLdK, kP = DK / 2;
    for (int e = threadIdx.x; e < kC * kP; e += kThreads) {  // element pairs
      const int t = e / kP, i = 2 * (e - t * kP), o = t * ld + i;
      const float2 kh2 = Unpair<E>(*reinterpret_cast<const uint32_t*>(sm.k + o));
      const float2 kl2 = Unpair<E>(*reinterpret_cast<const uint32_t*>(sm.kl + o));
      const float2 vs = *reinterpret_cast<const float2*>(sm.vsr + i);
      const float kd0 = (kh2.x + kl2.x) * vs.x, kd1 = (kh2.y + kl2.y) * vs.y;
      const E h0 = ToE<E>(kd0), h1 = ToE<E>(kd1);
      *reinterpret_cast<uint32_t*>(sm.k + o) = Pack<E>(h0, h1);
      *reinterpret_cast<uint32_t*>(sm.kl + o) = Pack<E>(ToE<E>(kd0 - float(h0)), ToE<E>(kd1 - float(h1)));
    }
    __syncthreads();
  }

  // Ys = V (vsr dh_c)^T, Yi = strict(dA)^T Qd; per slab, dv = Kd (vsr dh_c) + incl(A)^T dO;
  // rowdot = sum_j dh_c H_c. The raw path: Ys = V dh_c^T (scaled by vsr below), dv from the
  // rescaled Kd and dh_c as it is.
  float Ys[1][K::kCkN][4], Yi[1][K::kCkN][4];
  Zero(Ys), Zero(Yi);
  for (int sl = 0; sl < K::kSlabs; ++sl) {
    const E* shi = sm.slab[0];
    if constexpr (K::kRaw) {
      const int s = K::kSlabs + sl;
      if (s + 1 < S2) phi::funcs::CpAsyncWait<1>();
      else phi::funcs::CpAsyncWait<0>();
      __syncthreads();
      shi = sm.slab[s & 1];
    } else {
      pipe.Store(sm, dHc, Hc, sl, sm.vsr, p.Dk, p.Dv, sm.rowdot);
      __syncthreads();
      if (sl + 1 < K::kSlabs) pipe.Issue(dHc, Hc, sl + 1, p.Dk, p.Dv);
    }
    const RowK<E> fv{sm.v + sl * SV, K::kLdV};
    if constexpr (K::kRaw) {
      WarpMma<E>(Ys, xm0, xn0, SV, fv, RowK<E>{shi, K::kLdS});
    } else {
      WarpMmaB2<E>(Ys, xm0, xn0, SV, fv, RowK<E>{shi, K::kLdS}, RowK<E>{sm.slab[1], K::kLdS});
    }
    for (int part = 0; part < K::kDvParts; ++part) {
      float DVa[1][K::kCvN][4];
      Zero(DVa);
      const int vn0 = part * (SV / K::kDvParts) + wn * (SV / K::kDvParts / 4);
      const RowK<E> fkh{sm.k, K::kLdK};
      const ColK<E> fsh{shi, K::kLdS};
#ifdef GLA_BWD_UNFUSED
      WarpMma<E>(DVa, xm0, vn0, DK, fkh, fsh);
      if constexpr (!K::kRaw) WarpMma<E>(DVa, xm0, vn0, DK, fkh, ColK<E>{sm.slab[1], K::kLdS});
      WarpMma<E>(DVa, xm0, vn0, DK, RowK<E>{sm.kl, K::kLdK}, fsh);
#else
      WarpMmaA2<E>(DVa, xm0, vn0, DK, fkh, RowK<E>{sm.kl, K::kLdK}, fsh);  // (Kd hi + lo) dh, dh loaded once
      if constexpr (!K::kRaw) WarpMma<E>(DVa, xm0, vn0, DK, fkh, ColK<E>{sm.slab[1], K::kLdS});
#endif
      WarpMma<E>(DVa, xm0, vn0, kC, ColK<E>{sm.A, K::kLdC}, ColK<E>{sm.o + sl * SV, K::kLdV});
      StoreTile<E>(static_cast<E*>(p.dv) + ho.v + sl * SV, p.v_st, t0, p.T, p.Dv - sl * SV, xm0, vn0, DVa[0], vec, pair);
    }
    __syncthreads();
    if constexpr (K::kRaw) {
      if (K::kSlabs + sl + 2 < S2) raw_issue(K::kSlabs + sl + 2);
    }
  }
  if (safe) {
    const ColK<E> fa{sm.dA, K::kLdC};  // strict(dA)^T (t, s) = dA (s, t)
#ifdef GLA_BWD_UNFUSED
    WarpMma<E>(Yi, xm0, xn0, kC, fa, ColK<E>{sm.q, K::kLdK});
    WarpMma<E>(Yi, xm0, xn0, kC, fa, ColK<E>{sm.ql, K::kLdK});
#else
    WarpMmaB2<E>(Yi, xm0, xn0, kC, fa, ColK<E>{sm.q, K::kLdK}, ColK<E>{sm.ql, K::kLdK});
#endif
  }
  float* u = sm.ea;
  float dkv[K::kCkN][4];
  ForPairs<K::kCkN>(xm0, xn0, [&](int t, int i, int ni, int h) {
    float uu[2] = {0.f, 0.f}, w[2] = {0.f, 0.f};
    dkv[ni][2 * h] = dkv[ni][2 * h + 1] = 0.f;
    if (t0 + t < p.T && i < p.Dk) {
      const float2 qf = Unpair<E>(qraw[ni][h]), kf = Unpair<E>(kraw[ni][h]);
      const float qv[2] = {qf.x, qf.y}, kv[2] = {kf.x, kf.y};
      const float2 eb2 = *reinterpret_cast<const float2*>(sm.eb + t * kLdF + i);
      const float2 w2 = *reinterpret_cast<const float2*>(sm.term + t * kLdF + i);
      const float ebv[2] = {eb2.x, eb2.y}, wv[2] = {w2.x, w2.y};
      const float2 in2 = safe ? make_float2(0.f, 0.f) : *reinterpret_cast<const float2*>(u + t * kLdF + i);
      const float inv[2] = {in2.x, in2.y};
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float ys_acc = Ys[0][ni][2 * h + e], yi = Yi[0][ni][2 * h + e];
        const float ys = K::kRaw ? sm.vsr[i + e] * ys_acc : ys_acc;
        const float intra = inv[e];
        const float eb = ebv[e], kr = kv[e];
        const float dki = eb * yi + intra;
        dkv[ni][2 * h + e] = eb * ys + dki + p.scale * sm.diag[t] * qv[e];
        uu[e] = kr * (eb * ys);
        w[e] = wv[e] - kr * dki;
      }
    }
    *reinterpret_cast<float2*>(u + t * kLdF + i) = make_float2(uu[0], uu[1]);
    *reinterpret_cast<float2*>(sm.term + t * kLdF + i) = make_float2(w[0], w[1]);
  });
  StoreTile<E>(static_cast<E*>(p.dk) + ho.qk, p.qk_st, t0, p.T, p.Dk, xm0, xn0, dkv, vec, pair);
  __syncthreads();
  if (ci < p.Dk) {  // gk_grad = F0 + sum_{s<t} u_s + sum_{s>=t} w_s, restarting at a zero factor
    // (a loop through shared memory: unrolled with u, w and the prefix sums in registers, 226
    // registers against 167, the seed's chunk kernel took 9 % longer, 2026-11-29 seventh session)
    float* pre = sm.pc;  // free now: the exclusive prefix sums of u
    float run = 0.f;
    for (int t = 0; t < kC; ++t) {
      pre[t * kLdF + ci] = run;
      run += u[t * kLdF + ci];
    }
    const float f0 = sm.dec[ci] * sm.rowdot[ci];
    float acc = 0.f, accz = 0.f;
    bool restarted = false;
    for (int t = kC - 1; t >= 0; --t) {
      const float w = sm.term[t * kLdF + ci];
      float val;
      if (!restarted) {
        acc += w;
        val = (f0 + pre[t * kLdF + ci]) + acc;
      } else {
        accz += w - u[t * kLdF + ci];
        val = accz;
      }
      if ((zero >> t) & 1u) restarted = true, accz = 0.f, val = 0.f;
      if (t0 + t == 0) val = sm.first[ci];
      if (t0 + t < p.T) dg[int64_t(t0 + t) * p.qk_st + ci] = ToOut<G>(val);
    }
  }
#endif
}

#ifndef GLA_BWD_HOST_EMULATION
// ---- launches ----------------------------------------------------------------------------------------
// Whether the call fits, the work space aside: 16-bit q, k, v, do, 16-byte aligned rows (Dk, Dv
// multiples of 8), Dk <= DK, Dv <= DV, the grids, dh0 wherever h0 is given.
template <int DK, int DV>
inline bool BwdShapeFits(const BwdArgs& a) {
  auto aligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; };
  const int64_t heads = int64_t(a.B) * a.H;
  return a.T >= 1 && a.Dk >= 8 && a.Dk <= DK && a.Dv >= 8 && a.Dv <= DV && a.Dk % 8 == 0 && a.Dv % 8 == 0 &&
         a.qk_st % 8 == 0 && a.v_st % 8 == 0 && a.qk_sh % 8 == 0 && a.v_sh % 8 == 0 && a.qk_sb % 8 == 0 &&
         a.v_sb % 8 == 0 && heads >= 1 && heads * BwdChunks(a) <= (int64_t(1) << 31) - 1 &&
         heads * ((a.Dk + 63) / 64) * ((a.Dv + 31) / 32) <= (int64_t(1) << 31) - 1 &&  // the state grids
         aligned(a.q) && aligned(a.k) && aligned(a.v) && aligned(a.dout) && aligned(a.g) &&
         (a.h0 == nullptr || a.dh0 != nullptr);
}
// ... and its work space (BwdWorkBytes<E> bytes, 16-byte aligned).
template <int DK, int DV>
inline bool BwdFits(const BwdArgs& a) {
  return BwdShapeFits<DK, DV>(a) && a.work != nullptr && (reinterpret_cast<uintptr_t>(a.work) & 15) == 0;
}

// fn(kernel, dynamic shared memory bytes) for each kernel of one configuration (E: __nv_bfloat16
// or __half; G: E or float, gk and gk_grad).
template <class E, class G, int DK, int DV, class Fn>
void ForEachBwdKernel(Fn&& fn) {
  using K = BwdKernel<E, G, DK, DV>;
  using ST = StateTiles<E, G, DV>;
  fn(&BwdChunkKernel<K>, K::kSmemBytes);
  fn(&BwdStateKernel<typename ST::W, false>, ST::W::kSmemBytes);
  fn(&BwdStateKernel<typename ST::W, true>, ST::W::kSmemBytes);
  fn(&BwdStateKernel<typename ST::M, false>, ST::M::kSmemBytes);
  fn(&BwdStateKernel<typename ST::M, true>, ST::M::kSmemBytes);
  fn(&BwdStateKernel<typename ST::N, false>, ST::N::kSmemBytes);
  fn(&BwdStateKernel<typename ST::N, true>, ST::N::kSmemBytes);
}

// The two state passes with tiles S (parts: bit 0 the state pass, bit 1 the dh pass).
template <class S>
void LaunchStatePasses(const BwdArgs& a, cudaStream_t stream, int parts) {
  if (parts & 1) BwdStateKernel<S, false><<<unsigned(S::Blocks(a)), kStateThreads, S::kSmemBytes, stream>>>(a);
  if (parts & 2) BwdStateKernel<S, true><<<unsigned(S::Blocks(a)), kStateThreads, S::kSmemBytes, stream>>>(a);
}

// The three kernels of one configuration on a device with `sms` SMs, their shared memory allowed
// (ForEachBwdKernel); returns the first launch error. parts (timing): bit 0 the state pass, bit 1
// the dh pass, bit 2 the chunk kernel.
template <class E, class G, int DK, int DV>
cudaError_t LaunchBwdOnly(const BwdArgs& a, cudaStream_t stream, int sms, int parts = 7) {
  using K = BwdKernel<E, G, DK, DV>;
  using ST = StateTiles<E, G, DV>;
  const int64_t heads = int64_t(a.B) * a.H;
  if (ST::W::Blocks(a) >= sms) {
    LaunchStatePasses<typename ST::W>(a, stream, parts);
  } else if (ST::M::Blocks(a) >= sms) {
    LaunchStatePasses<typename ST::M>(a, stream, parts);
  } else {
    LaunchStatePasses<typename ST::N>(a, stream, parts);
  }
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  if (parts & 4) BwdChunkKernel<K><<<unsigned(heads * BwdChunks(a)), kThreads, K::kSmemBytes, stream>>>(a);
  return cudaGetLastError();
}

// The same with the shared-memory attributes set on each call, on the current device (the
// harness's entry point).
template <class E, class G, int DK, int DV>
cudaError_t LaunchBwd(const BwdArgs& a, cudaStream_t stream, int parts = 7) {
  cudaError_t err = cudaSuccess;
  ForEachBwdKernel<E, G, DK, DV>([&](auto kernel, int bytes) {
    if (err == cudaSuccess) err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  });
  int dev = 0, sms = 132;
  if (err == cudaSuccess) err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess) return err;
  return LaunchBwdOnly<E, G, DK, DV>(a, stream, sms, parts);
}

#endif  // GLA_BWD_HOST_EMULATION

}  // namespace gla_sm90_bwd
