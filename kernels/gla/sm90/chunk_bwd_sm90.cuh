// The gla backward (docs/spec.md §5) for 16-bit q, k, v, do (gk 16-bit or float32) on sm_90a:
// two kernels, one block of 256 threads per head, each walking the chunks of T with a state in
// the accumulators of its tensor-core products (mma.sync m16n8k16 on ldmatrix fragments, float32
// accumulation):
//
//   BwdFwdPassKernel  chunks in order, the state H [Dk, Dv] on chip: dq and q * dq' (dq without
//                     its own step's term, float32 scratch [B*H, T, Dk]), and with a final-state
//                     gradient sum_j dfinal * h_{T-1} per key channel (scratch [B*H, Dk]);
//   BwdRevPassKernel  chunks in reverse, dh [Dk, Dv] (the gradient of the state at the chunk's
//                     end) on chip: dk, dv, gk_grad (the reverse sum of q dq' - k dk' with its
//                     carry across chunks and the zero-factor restart) and dh0.
//
// The states are recomputed by the first kernel rather than stored: storing them costs
// 4 B * Dk * Dv per chunk and head each way (the seed shape: 537 MB written and read, ~0.22 ms
// at 4.8 TB/s), recomputing them costs one more read of k, v, gk and 2 C Dk Dv FLOPs per chunk
// (~17 GFLOP on the seed), and it keeps the states in float32.
//
// Per chunk of C = 32 steps (P the in-chunk inclusive cumulative sum of gk per key channel i,
// m = 15 the reference row), in the factored ("safe") mode, every |P_t - P_m| <= SafeRange:
//   Qd = scale q e^(P - P_m), Kd = k e^(P_m - P),  dA = dO V^T (t, s),  A = Qd Kd^T (s >= t)
//   dq'  = e^(P - P_m) * (dO (e^P_m H)^T + strict(dA) Kd)          (then + scale dA_tt k_t)
//   dk'  = e^(P_m - P) * (V (e^(P_63 - P_m) dh)^T + strict(dA)^T Qd) (then + scale dA_tt q_t)
//   dv   = Kd (e^(P_C-1 - P_m) dh) + incl(A)^T dO
//   H   <- e^(P_C-1 - P_m) (e^P_m H + Kd^T V),   dh <- e^P_m (e^(P_C-1 - P_m) dh + Qd^T dO)
// and in a chunk with a wider decay range (strong, -inf or -1e30 gates) the element-wise mode:
// the factors are direct prefix/suffix sums of the gates (exponents <= 0 for gk <= 0, a -inf an
// exact 0), the in-chunk terms (A, strict(dA) Kd, strict(dA)^T Qd) element by element from
// cumulative sums of the gates clamped at -100 (as the forward's other mode). Every exponent is
// a direct sum over the gates it spans (never a difference of two cumulative sums).
//
// Accuracy (tools/dev/harness/gla/bwd_host_check.cc emulates this arithmetic): gk_grad's reverse
// sum of q dq' - k dk' cancels, so Qd, Kd and the scaled states are kept as hi/lo pairs of
// 16-bit operands (x = hi + lo, the products take hi*y + lo*y); dA, A and the inputs are single.
// Deterministic: no atomics; every sum has a fixed order.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace gla_sm90_bwd {

constexpr int kC = 32;                 // steps per chunk
constexpr int kRefRow = kC / 2 - 1;    // the factored mode's reference row
constexpr int kThreads = 256;          // 8 warps
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
  float* work = nullptr;          // BwdWorkFloats(*this) floats
  float scale = 1.f;
  int force_other_mode = 0;       // testing: every chunk takes the element-wise mode
};

inline int64_t BwdWorkFloats(const BwdArgs& a) {
  return int64_t(a.B) * a.H * a.T * a.Dk + int64_t(a.B) * a.H * a.Dk;
}

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
// acc[mi][ni][e] is (m0 + 16 mi + g + 8 (e / 2), n0 + 8 ni + 2 c + e % 2).
template <class E, int MI, int NI, class FA, class FB>
__device__ __forceinline__ void WarpMma(float (&acc)[MI][NI][4], int m0, int n0, int K, const FA& fa, const FB& fb) {
  static_assert(NI % 2 == 0, "n blocks in pairs");
#pragma unroll 1
  for (int k0 = 0; k0 < K; k0 += 16) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      uint32_t a[4];
      LoadA<E>(a, fa, m0 + 16 * mi, k0);
#pragma unroll
      for (int np = 0; np < NI / 2; ++np) {
        uint32_t b[4];
        LoadB2<E>(b, fb, n0 + 16 * np, k0);
        Mma16816<E>(acc[mi][2 * np], a, b[0], b[1]);
        Mma16816<E>(acc[mi][2 * np + 1], a, b[2], b[3]);
      }
    }
  }
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

// ---- the kernel's configuration and shared memory ---------------------------------------------
template <class E_, class G_, int DK_, int DV_>
struct BwdKernel {
  using E = E_;
  using G = G_;
  static constexpr int DK = DK_, DV = DV_;
  static_assert(DK == 64 || DK == 128, "DK is 64 or 128");
  static_assert(DV == 64 || DV == 128 || DV == 256, "DV is 64, 128 or 256");
  static constexpr int SV = DV < 128 ? DV : 128;  // columns of a state slab in shared memory
  static constexpr int kSlabs = DV / SV;
  static constexpr int kLdK = DK + 8, kLdV = DV + 8, kLdS = SV + 8, kLdC = kC + 8;
  // Warp grids (8 warps as 2 x 4): the state [DK, DV], the chunk's [C, DK] and [C, SV] products,
  // dA and A [C, C].
  static constexpr int kStM = DK / 2 / 16, kStN = DV / 4 / 8;
  // dv's [C, SV] slab in kDvParts column parts (fewer live accumulators beside the state).
  static constexpr int kDvParts = SV >= 128 ? 2 : 1;
  static constexpr int kCkN = DK / 4 / 8, kCvN = SV / kDvParts / 4 / 8;

  struct Smem {
    E q[kC * kLdK], ql[kC * kLdK];   // raw q, then Qd hi / lo
    E k[kC * kLdK], kl[kC * kLdK];   // raw k, then Kd hi / lo
    E v[kC * kLdV], o[kC * kLdV];    // v, do
    E shi[DK * kLdS], slo[DK * kLdS];  // a slab of the scaled state (hi / lo)
    E dA[kC * kLdC], A[kC * kLdC];
    float ea[kC * DK], eb[kC * DK], pc[kC * DK], term[kC * DK];
    float diag[kC];                   // dA_tt
    float vs[DK], vpre[DK], vpost[DK];
    float red[DK][4];
  };
  static constexpr int kSmemBytes = int(sizeof(Smem));
};

// The rows [t0, t0 + C) of a [.., D] tensor into shared memory (row stride ld), zeros past T and
// past D (D a multiple of 8; 16-byte loads).
template <class E>
__device__ __forceinline__ void LoadTile(E* dst, int ld, int Dmax, const E* base, int64_t st, int t0, int T, int D) {
  const int vecs = Dmax / 8;
  for (int e = threadIdx.x; e < kC * vecs; e += kThreads) {
    const int r = e / vecs, c8 = (e - r * vecs) * 8;
    uint4 x = make_uint4(0, 0, 0, 0);
    if (t0 + r < T && c8 < D) x = *reinterpret_cast<const uint4*>(base + int64_t(t0 + r) * st + c8);
    *reinterpret_cast<uint4*>(dst + r * ld + c8) = x;
  }
}

// The gate pass of one chunk: thread i < Dk owns key channel i, whose C gates LoadChunk put in
// column i of sm.pc (read from there, so that no gate stays in a register beside the state);
// writes the factors e^alpha (Qd) and e^beta (Kd), in the element-wise mode the clamped
// cumulative gates over the raw ones, and the state's row scalings; returns whether the chunk
// takes the factored mode (the same value in every thread). rev: the reverse pass's scalings.
template <class K>
__device__ bool GatePass(typename K::Smem& sm, bool own, int force_other, bool rev) {
  constexpr int DK = K::DK;
  const int i = threadIdx.x;
  float* gc = sm.pc + i;  // gc[t * DK]: gate t of channel i
  float ref = 0.f, post = 0.f;
  bool ok = true;
  if (own) {
    float run = 0.f;
#pragma unroll 4
    for (int t = kRefRow; t >= 0; --t) {  // a_t = -(gates t+1 .. m)
      ok = ok && fabsf(run) <= SafeRange<typename K::E>();
      run += gc[t * DK];
    }
    ref = run;
    run = 0.f;
#pragma unroll 4
    for (int t = kRefRow + 1; t < kC; ++t) {  // a_t = gates m+1 .. t
      run += gc[t * DK];
      ok = ok && fabsf(run) <= SafeRange<typename K::E>();
    }
    post = run;
  }
  const bool safe = __syncthreads_and(ok) && !force_other;
  if (own) {
    if (safe) {
      float run = 0.f;
#pragma unroll 4
      for (int t = kRefRow; t >= 0; --t) {
        sm.ea[t * DK + i] = __expf(-run);
        sm.eb[t * DK + i] = __expf(run);
        run += gc[t * DK];
      }
      run = 0.f;
#pragma unroll 4
      for (int t = kRefRow + 1; t < kC; ++t) {
        run += gc[t * DK];
        sm.ea[t * DK + i] = __expf(run);
        sm.eb[t * DK + i] = __expf(-run);
      }
      sm.vs[i] = sm.vpre[i] = __expf(rev ? post : ref);
      sm.vpost[i] = __expf(rev ? ref : post);
    } else {
      float suf = 0.f;
#pragma unroll 4
      for (int t = kC - 1; t >= 0; --t) {
        sm.eb[t * DK + i] = __expf(suf);  // gates t+1 .. C-1
        suf += gc[t * DK];
      }
      float pre = 0.f, pcs = 0.f;
#pragma unroll 4
      for (int t = 0; t < kC; ++t) {
        const float gt = gc[t * DK];
        pre += gt;
        pcs += fmaxf(gt, -kClampGate);
        sm.ea[t * DK + i] = __expf(pre);  // gates 0 .. t
        gc[t * DK] = pcs;
      }
      sm.vs[i] = 1.f;
      sm.vpre[i] = __expf(ref + post);
      sm.vpost[i] = 1.f;
    }
  }
  return safe;
}

// Qd = scale q e^alpha and Kd = k e^beta as hi/lo pairs, in place (rows past T are zeros).
template <class K>
__device__ __forceinline__ void ScaleOperands(typename K::Smem& sm, float scale) {
  using E = typename K::E;
  constexpr int DK = K::DK, ld = K::kLdK;
  for (int e = threadIdx.x; e < kC * DK; e += kThreads) {
    const int t = e / DK, i = e - t * DK;
    const float qd = float(sm.q[t * ld + i]) * scale * sm.ea[e];
    const float kd = float(sm.k[t * ld + i]) * sm.eb[e];
    const E qh = ToE<E>(qd), kh = ToE<E>(kd);
    sm.q[t * ld + i] = qh, sm.ql[t * ld + i] = ToE<E>(qd - float(qh));
    sm.k[t * ld + i] = kh, sm.kl[t * ld + i] = ToE<E>(kd - float(kh));
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
    sm.dA[t * K::kLdC + s] = ToE<E>(x);
    if (t == s) sm.diag[t] = x;
  }
  __syncthreads();  // part is scratch of the next step
}

// Row sums sum_j X[i, j] Y[i, j] of a state in the accumulators (X) and a [Dk, Dv] float32 Y,
// in a fixed order; thread i < Dk gets row i's.
template <class K, int MI, int NI>
__device__ float StateRowDot(typename K::Smem& sm, float (&acc)[MI][NI][4], const float* y, int Dk, int Dv) {
  const int warp = threadIdx.x / 32, wm = warp / 4, wn = warp % 4;
  const int lane = threadIdx.x & 31, g = lane >> 2;
  const int m0 = wm * (K::DK / 2), n0 = wn * (K::DV / 4);
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // one row at a time (few registers beside the state)
      const int i = m0 + 16 * mi + g + 8 * h;
      float x = 0.f;
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int j = n0 + 8 * ni + 2 * (lane & 3) + e;
          if (i < Dk && j < Dv) x += acc[mi][ni][2 * h + e] * y[int64_t(i) * Dv + j];
        }
      x += __shfl_xor_sync(0xffffffffu, x, 1);
      x += __shfl_xor_sync(0xffffffffu, x, 2);
      if ((lane & 3) == 0) sm.red[i][wn] = x;
    }
  __syncthreads();
  float r = 0.f;
  if (threadIdx.x < K::DK) r = ((sm.red[threadIdx.x][0] + sm.red[threadIdx.x][1]) + sm.red[threadIdx.x][2]) + sm.red[threadIdx.x][3];
  __syncthreads();
  return r;
}

// Writes slab `sl` of the state in the accumulators, scaled by vs per row, as hi/lo pairs.
template <class K, int MI, int NI>
__device__ __forceinline__ void WriteSlab(typename K::Smem& sm, float (&acc)[MI][NI][4], int sl) {
  using E = typename K::E;
  const int warp = threadIdx.x / 32, wm = warp / 4, wn = warp % 4;
  ForEach(acc, wm * (K::DK / 2), wn * (K::DV / 4), [&](int i, int j, float& x) {
    const int jj = j - sl * K::SV;
    if (jj >= 0 && jj < K::SV) {
      const float y = x * sm.vs[i];
      const E h = ToE<E>(y);
      sm.shi[i * K::kLdS + jj] = h;
      sm.slo[i * K::kLdS + jj] = ToE<E>(y - float(h));
    }
  });
}

struct HeadOffsets {
  int64_t qk, v, state;
};
__device__ __forceinline__ HeadOffsets Offsets(const BwdArgs& p, int bh) {
  const int b = bh / p.H, h = bh - b * p.H;
  return {int64_t(b) * p.qk_sb + int64_t(h) * p.qk_sh, int64_t(b) * p.v_sb + int64_t(h) * p.v_sh,
          int64_t(bh) * p.Dk * p.Dv};
}

// Loads chunk n's q, k, v, do tiles and (thread i < Dk) channel i's gates, runs the gate pass
// and scales the operands; returns the mode, and in *zero (thread i < Dk) bit t set where
// channel i's factor e^gk at step t0 + t is 0 (the reverse sum's restarts).
template <class K>
__device__ bool LoadChunk(typename K::Smem& sm, const BwdArgs& p, const HeadOffsets& ho, int t0, uint32_t* zero,
                          bool rev) {
  using E = typename K::E;
  using G = typename K::G;
  LoadTile(sm.q, K::kLdK, K::DK, static_cast<const E*>(p.q) + ho.qk, p.qk_st, t0, p.T, p.Dk);
  LoadTile(sm.k, K::kLdK, K::DK, static_cast<const E*>(p.k) + ho.qk, p.qk_st, t0, p.T, p.Dk);
  LoadTile(sm.v, K::kLdV, K::DV, static_cast<const E*>(p.v) + ho.v, p.v_st, t0, p.T, p.Dv);
  LoadTile(sm.o, K::kLdV, K::DV, static_cast<const E*>(p.dout) + ho.v, p.v_st, t0, p.T, p.Dv);
  const int i = threadIdx.x;
  const bool own = i < K::DK;
  uint32_t z = 0;
  if (own) {
#pragma unroll 4
    for (int t = 0; t < kC; ++t) {
      const float gt =
          (i < p.Dk && t0 + t < p.T) ? ToF(static_cast<const G*>(p.g)[ho.qk + int64_t(t0 + t) * p.qk_st + i]) : 0.f;
      z |= uint32_t(__expf(gt) == 0.f) << t;
      sm.pc[t * K::DK + i] = gt;
    }
  }
  *zero = z;
  const bool safe = GatePass<K>(sm, own, p.force_other_mode, rev);
  __syncthreads();
  ScaleOperands<K>(sm, p.scale);
  __syncthreads();
  return safe;
}

// ---- kernel 1: the forward pass ------------------------------------------------------------------
template <class K>
__global__ void __launch_bounds__(kThreads, 1) BwdFwdPassKernel(const BwdArgs p) {
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800) || defined(GLA_BWD_HOST_EMULATION)
  using E = typename K::E;
  constexpr int DK = K::DK, DV = K::DV, SV = K::SV;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  typename K::Smem& sm = *reinterpret_cast<typename K::Smem*>(smem_raw);
  const int bh = blockIdx.x, warp = threadIdx.x / 32, wm = warp / 4, wn = warp % 4;
  const HeadOffsets ho = Offsets(p, bh);
  const E* q = static_cast<const E*>(p.q) + ho.qk;
  const E* k = static_cast<const E*>(p.k) + ho.qk;
  float* qdq = p.work + int64_t(bh) * p.T * p.Dk;
  const int NT = (p.T + kC - 1) / kC;

  float H[K::kStM][K::kStN][4];
  const int sm0 = wm * (DK / 2), sn0 = wn * (DV / 4);
  ForEach(H, sm0, sn0, [&](int i, int j, float& x) {
    x = (p.h0 != nullptr && i < p.Dk && j < p.Dv) ? p.h0[ho.state + int64_t(i) * p.Dv + j] : 0.f;
  });

  for (int n = 0; n < NT; ++n) {
    const int t0 = n * kC;
    uint32_t zero;
    const bool safe = LoadChunk<K>(sm, p, ho, t0, &zero, false);
    ComputeDA<K>(sm);

    // X = dO (vs H)^T [+ strict(dA) Kd]: warp tile 16 x (DK / 4).
    float X[1][K::kCkN][4];
    Zero(X);
    const int xm0 = wm * 16, xn0 = wn * (DK / 4);
    for (int sl = 0; sl < K::kSlabs; ++sl) {
      WriteSlab<K>(sm, H, sl);
      __syncthreads();
      const RowK<E> fa{sm.o + sl * SV, K::kLdV};
      WarpMma<E>(X, xm0, xn0, SV, fa, RowK<E>{sm.shi, K::kLdS});
      WarpMma<E>(X, xm0, xn0, SV, fa, RowK<E>{sm.slo, K::kLdS});
      __syncthreads();
    }
    if (safe) {
      auto fa = [&](int t, int s) { return s < t ? sm.dA[t * K::kLdC + s] : E(0.f); };
      WarpMma<E>(X, xm0, xn0, kC, fa, ColK<E>{sm.k, K::kLdK});
      WarpMma<E>(X, xm0, xn0, kC, fa, ColK<E>{sm.kl, K::kLdK});
    }
    ForEach(X, xm0, xn0, [&](int t, int i, float& x) {
      if (t0 + t >= p.T || i >= p.Dk) return;
      float intra = 0.f;
      if (!safe) {  // sum_{s<t} dA_ts k_s e^(pc_t - pc_s)
        const float pt = sm.pc[t * DK + i];
        for (int s = 0; s < t; ++s)
          intra += float(sm.dA[t * K::kLdC + s]) * float(k[int64_t(t0 + s) * p.qk_st + i]) * __expf(pt - sm.pc[s * DK + i]);
      }
      const int64_t r = int64_t(t0 + t) * p.qk_st + i;
      const float dqp = p.scale * (sm.ea[t * DK + i] * x + intra);
      qdq[int64_t(t0 + t) * p.Dk + i] = float(q[r]) * dqp;
      static_cast<E*>(p.dq)[ho.qk + r] = ToE<E>(dqp + p.scale * sm.diag[t] * float(k[r]));
    });

    // H <- vpost * (vpre * H + Kd^T V).
    ForEach(H, sm0, sn0, [&](int i, int, float& x) { x *= sm.vpre[i]; });
    const ColK<E> fb{sm.v, K::kLdV};
    WarpMma<E>(H, sm0, sn0, kC, ColK<E>{sm.k, K::kLdK}, fb);
    WarpMma<E>(H, sm0, sn0, kC, ColK<E>{sm.kl, K::kLdK}, fb);
    ForEach(H, sm0, sn0, [&](int i, int, float& x) { x *= sm.vpost[i]; });
    __syncthreads();
  }
  if (p.dfinal != nullptr) {  // sum_j dfinal * h_{T-1}: the start of the reverse sum
    const float r = StateRowDot<K>(sm, H, p.dfinal + ho.state, p.Dk, p.Dv);
    if (threadIdx.x < p.Dk) p.work[int64_t(p.B) * p.H * p.T * p.Dk + int64_t(bh) * p.Dk + threadIdx.x] = r;
  }
#endif
}

// ---- kernel 2: the reverse pass ------------------------------------------------------------------
template <class K>
__global__ void __launch_bounds__(kThreads, 1) BwdRevPassKernel(const BwdArgs p) {
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800) || defined(GLA_BWD_HOST_EMULATION)
  using E = typename K::E;
  using G = typename K::G;
  constexpr int DK = K::DK, DV = K::DV, SV = K::SV;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  typename K::Smem& sm = *reinterpret_cast<typename K::Smem*>(smem_raw);
  const int bh = blockIdx.x, warp = threadIdx.x / 32, wm = warp / 4, wn = warp % 4;
  const HeadOffsets ho = Offsets(p, bh);
  const E* q = static_cast<const E*>(p.q) + ho.qk;
  const E* k = static_cast<const E*>(p.k) + ho.qk;
  G* dg = static_cast<G*>(p.dg) + ho.qk;
  const float* qdq = p.work + int64_t(bh) * p.T * p.Dk;
  const int NT = (p.T + kC - 1) / kC;
  const int ci = threadIdx.x;  // the reverse sum's channel (ci < Dk)

  float dh[K::kStM][K::kStN][4];
  const int sm0 = wm * (DK / 2), sn0 = wn * (DV / 4);
  ForEach(dh, sm0, sn0, [&](int i, int j, float& x) {
    x = (p.dfinal != nullptr && i < p.Dk && j < p.Dv) ? p.dfinal[ho.state + int64_t(i) * p.Dv + j] : 0.f;
  });
  float carry = 0.f;
  if (p.dfinal != nullptr && ci < p.Dk) carry = p.work[int64_t(p.B) * p.H * p.T * p.Dk + int64_t(bh) * p.Dk + ci];

  for (int n = NT - 1; n >= 0; --n) {
    const int t0 = n * kC;
    uint32_t zero;
    const bool safe = LoadChunk<K>(sm, p, ho, t0, &zero, true);
    ComputeDA<K>(sm);
    {  // A (s, t) = Qd_s . Kd_t for s >= t (hi parts; element-wise in the other mode): 16 x 16 per
       // warp, warps 0-3 over Dk's first half, 4-7 over its second, summed in order.
      const int wq = warp & 3, half = warp >> 2, am = (wq >> 1) * 16, an = (wq & 1) * 16;
      float acc[1][2][4];
      Zero(acc);
      if (safe) {
        WarpMma<E>(acc, am, an, DK / 2, RowK<E>{sm.q + half * (DK / 2), K::kLdK}, RowK<E>{sm.k + half * (DK / 2), K::kLdK});
      } else if (half == 0) {
        ForEach(acc, am, an, [&](int s, int t, float& x) {
          if (s < t || t0 + s >= p.T) return;
          float sum = 0.f;
          for (int i = 0; i < p.Dk; ++i)
            sum += float(q[int64_t(t0 + s) * p.qk_st + i]) * float(k[int64_t(t0 + t) * p.qk_st + i]) *
                   __expf(sm.pc[s * DK + i] - sm.pc[t * DK + i]);
          x = sum * p.scale;
        });
      }
      float* part = sm.term;  // [2][kC][kC] float scratch (free until the dgk terms)
      ForEach(acc, am, an, [&](int s, int t, float& x) { part[half * kC * kC + s * kC + t] = x; });
      __syncthreads();
      for (int e = threadIdx.x; e < kC * kC; e += kThreads) {
        const int s = e / kC, t = e - s * kC;
        sm.A[s * K::kLdC + t] = ToE<E>(s >= t ? part[e] + part[kC * kC + e] : 0.f);
      }
    }
    __syncthreads();

    // Y = V (vs dh)^T [+ strict(dA)^T Qd]; per slab, dv = Kd (vs dh) + incl(A)^T dO.
    float Y[1][K::kCkN][4];
    Zero(Y);
    const int ym0 = wm * 16, yn0 = wn * (DK / 4);
    for (int sl = 0; sl < K::kSlabs; ++sl) {
      WriteSlab<K>(sm, dh, sl);
      __syncthreads();
      const RowK<E> fv{sm.v + sl * SV, K::kLdV};
      WarpMma<E>(Y, ym0, yn0, SV, fv, RowK<E>{sm.shi, K::kLdS});
      WarpMma<E>(Y, ym0, yn0, SV, fv, RowK<E>{sm.slo, K::kLdS});
      for (int part = 0; part < K::kDvParts; ++part) {
        float DVa[1][K::kCvN][4];
        Zero(DVa);
        const int vn0 = part * (SV / K::kDvParts) + wn * (SV / K::kDvParts / 4);
        const RowK<E> fkh{sm.k, K::kLdK};
        const ColK<E> fsh{sm.shi, K::kLdS};
        WarpMma<E>(DVa, ym0, vn0, DK, fkh, fsh);
        WarpMma<E>(DVa, ym0, vn0, DK, fkh, ColK<E>{sm.slo, K::kLdS});
        WarpMma<E>(DVa, ym0, vn0, DK, RowK<E>{sm.kl, K::kLdK}, fsh);
        WarpMma<E>(DVa, ym0, vn0, kC, ColK<E>{sm.A, K::kLdC}, ColK<E>{sm.o + sl * SV, K::kLdV});
        ForEach(DVa, ym0, vn0, [&](int t, int j, float& x) {
          const int jj = sl * SV + j;
          if (t0 + t < p.T && jj < p.Dv) static_cast<E*>(p.dv)[ho.v + int64_t(t0 + t) * p.v_st + jj] = ToE<E>(x);
        });
      }
      __syncthreads();
    }
    if (safe) {
      auto fa = [&](int t, int s) { return s > t ? sm.dA[s * K::kLdC + t] : E(0.f); };
      WarpMma<E>(Y, ym0, yn0, kC, fa, ColK<E>{sm.q, K::kLdK});
      WarpMma<E>(Y, ym0, yn0, kC, fa, ColK<E>{sm.ql, K::kLdK});
    }
    ForEach(Y, ym0, yn0, [&](int t, int i, float& x) {
      float term = 0.f;
      if (t0 + t < p.T && i < p.Dk) {
        float intra = 0.f;
        if (!safe) {  // sum_{s>t} dA_st scale q_s e^(pc_s - pc_t)
          const float pt = sm.pc[t * DK + i];
          for (int s = t + 1; s < kC && t0 + s < p.T; ++s)
            intra += float(sm.dA[s * K::kLdC + t]) * float(q[int64_t(t0 + s) * p.qk_st + i]) * __expf(sm.pc[s * DK + i] - pt);
          intra *= p.scale;
        }
        const int64_t r = int64_t(t0 + t) * p.qk_st + i;
        const float dkp = sm.eb[t * DK + i] * x + intra;
        const float kr = float(k[r]);
        static_cast<E*>(p.dk)[ho.qk + r] = ToE<E>(dkp + p.scale * sm.diag[t] * float(q[r]));
        term = qdq[int64_t(t0 + t) * p.Dk + i] - kr * dkp;
      }
      sm.term[t * DK + i] = term;
    });
    __syncthreads();
    if (ci < p.Dk) {  // the reverse sum, restarting at a zero factor
      for (int t = kC - 1; t >= 0; --t) {
        if (t0 + t >= p.T) continue;
        carry += sm.term[t * DK + ci];
        if ((zero >> t) & 1u) carry = 0.f;
        dg[int64_t(t0 + t) * p.qk_st + ci] = ToOut<G>(carry);
      }
    }

    // dh <- vpost * (vpre * dh + Qd^T dO).
    ForEach(dh, sm0, sn0, [&](int i, int, float& x) { x *= sm.vpre[i]; });
    const ColK<E> fb{sm.o, K::kLdV};
    WarpMma<E>(dh, sm0, sn0, kC, ColK<E>{sm.q, K::kLdK}, fb);
    WarpMma<E>(dh, sm0, sn0, kC, ColK<E>{sm.ql, K::kLdK}, fb);
    ForEach(dh, sm0, sn0, [&](int i, int, float& x) { x *= sm.vpost[i]; });
    __syncthreads();
  }
  if (p.dh0 != nullptr) {
    ForEach(dh, sm0, sn0, [&](int i, int j, float& x) {
      if (i < p.Dk && j < p.Dv) p.dh0[ho.state + int64_t(i) * p.Dv + j] = x;
    });
  }
  // gk_grad at t = 0: sum_j dh0 * h0 (0 without an initial state), from the dh0 just written
  // (BwdFits: dh0 with every h0), in j order.
  float first = 0.f;
  if (p.h0 != nullptr) {
    __threadfence_block();
    __syncthreads();
    if (ci < p.Dk) {
      const float* a = p.dh0 + ho.state + int64_t(ci) * p.Dv;
      const float* b = p.h0 + ho.state + int64_t(ci) * p.Dv;
      for (int j = 0; j < p.Dv; ++j) first += a[j] * b[j];
    }
  }
  if (p.T > 0 && ci < p.Dk) dg[ci] = ToOut<G>(first);
#endif
}

#ifndef GLA_BWD_HOST_EMULATION
// ---- launches ----------------------------------------------------------------------------------------
// Whether the call fits: 16-bit q, k, v, do, 16-byte aligned rows (Dk, Dv multiples of 8),
// Dk <= DK, Dv <= DV, heads in the grid, the work space, dh0 wherever h0 is given.
template <int DK, int DV>
inline bool BwdFits(const BwdArgs& a) {
  auto aligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; };
  return a.T >= 1 && a.Dk >= 8 && a.Dk <= DK && a.Dv >= 8 && a.Dv <= DV && a.Dk % 8 == 0 && a.Dv % 8 == 0 &&
         a.qk_st % 8 == 0 && a.v_st % 8 == 0 && a.qk_sh % 8 == 0 && a.v_sh % 8 == 0 && a.qk_sb % 8 == 0 &&
         a.v_sb % 8 == 0 && int64_t(a.B) * a.H >= 1 && int64_t(a.B) * a.H <= (int64_t(1) << 31) - 1 &&
         aligned(a.q) && aligned(a.k) && aligned(a.v) && aligned(a.dout) && a.work != nullptr &&
         (a.h0 == nullptr || a.dh0 != nullptr);
}

// Both kernels of one configuration (the shared-memory attributes set on each call); returns
// the first launch error. E: __nv_bfloat16 or __half; G: E or float (gk and gk_grad).
template <class E, class G, int DK, int DV>
cudaError_t LaunchBwd(const BwdArgs& a, cudaStream_t stream) {
  using K = BwdKernel<E, G, DK, DV>;
  cudaError_t err = cudaFuncSetAttribute(BwdFwdPassKernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(BwdRevPassKernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, K::kSmemBytes);
  if (err != cudaSuccess) return err;
  const int heads = a.B * a.H;
  BwdFwdPassKernel<K><<<heads, kThreads, K::kSmemBytes, stream>>>(a);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  BwdRevPassKernel<K><<<heads, kThreads, K::kSmemBytes, stream>>>(a);
  return cudaGetLastError();
}

#endif  // GLA_BWD_HOST_EMULATION

}  // namespace gla_sm90_bwd
