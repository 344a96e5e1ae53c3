// gla (docs/spec.md §5): the chunked form on the CPU, forward and backward of one head, computing
// in float (float32 and the 16-bit types; float64 stays on the recurrent form of recurrent.h).
// Compiled once per instruction set (chunk_cpu_<isa>.cc defines PADDLE_OPS_GLA_CPU_ISA, the
// namespace, and includes this file; the entry points and their dispatch: chunk_cpu.h).
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
// and dgk as in the recurrent form (recurrent.h): the reverse sum of q dq - k dk without each
// step's own term, plus the final state's share; dgk_0 = sum_j dh0 * h0. The per-head
// computation is sequential in a fixed order, so results do not depend on the thread count.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

// The products run inside the kernels' OpenMP region, one head per thread: Eigen's own
// threading there (its OpenMP GEMM) would nest, and with one outer thread it spins. CMake
// defines this for the files that include this header.
#ifndef EIGEN_DONT_PARALLELIZE
#error "kernels/gla/chunk_cpu_impl.h needs EIGEN_DONT_PARALLELIZE (set per file in CMakeLists.txt)"
#endif
#include <Eigen/Core>

#include "kernels/funcs/simd/convert.h"
#include "kernels/gla/chunk_cpu.h"
#include "kernels/gla/recurrent.h"
#include "kernels/util/omp_exception.h"
#include "paddle_ops/core/cpu_threads.h"

#ifndef PADDLE_OPS_GLA_CPU_ISA
#error "define PADDLE_OPS_GLA_CPU_ISA (baseline, avx2, avx512) before including kernels/gla/chunk_cpu_impl.h"
#endif

namespace phi {
namespace funcs {
namespace gla_cpu {
namespace PADDLE_OPS_GLA_CPU_ISA {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapMat = Eigen::Map<Mat>;
// Eigen's vectors rather than std::vector: every symbol this file makes is then in this
// instruction set's own namespaces (see chunk_cpu_avx2.cc), none shared with baseline code.
using VecF = Eigen::Matrix<float, Eigen::Dynamic, 1>;
using VecD = Eigen::Matrix<double, Eigen::Dynamic, 1>;

// f[i] = exp(a[i] - b[i]) in float for i < n (a[i] <= b[i] when gk <= 0): Eigen's vectorized exp.
inline void ExpDiff(const double* a, const double* b, int64_t n, float* f) {
  using Ad = Eigen::Array<double, Eigen::Dynamic, 1>;
  using Af = Eigen::Array<float, Eigen::Dynamic, 1>;
  Eigen::Map<Af> out(f, n);
  out = (Eigen::Map<const Ad>(a, n) - Eigen::Map<const Ad>(b, n)).cast<float>();
  out = out.exp();
}

// sum_i x[i] y[i] f[i] (Eigen's vectorized sum: a fixed order per length).
inline float Dot3(const float* x, const float* y, const float* f, int64_t n) {
  using Af = Eigen::Array<float, Eigen::Dynamic, 1>;
  return (Eigen::Map<const Af>(x, n) * Eigen::Map<const Af>(y, n) * Eigen::Map<const Af>(f, n)).sum();
}

// dst[0, n) = src[0, n) converted: a copy for float, else the run-time dispatched vector
// conversions between float and the 16-bit types (bitwise the scalar ones; rounding to nearest
// even going down).
template <typename From, typename To>
inline void CopyRow(const From* src, int64_t n, To* dst) {
  if constexpr (std::is_same<From, To>::value) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(To));
  } else {
    simd::Convert(src, dst, n);
  }
}

// g[i] = max(g[i], kGlaCpuGateFloor) for i < n, a NaN kept (chunk_cpu.h says why).
inline void RaiseToFloor(float* g, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (g[i] < kGlaCpuGateFloor) g[i] = kGlaCpuGateFloor;
  }
}

// One chunk of one head, loaded as float, with its cumulative decays and scores.
struct Chunk {
  int64_t L = 0, Dk = 0;
  Mat q, k, v;            // q already multiplied by scale
  Mat ed, ek, eg;         // exp(B), exp(Btot - B), exp(gk)
  Mat qd, kd;             // qs * exp(B), k * exp(Btot - B)
  Mat A;                  // causal scores (row r, column s <= r)
  VecD B;  // [L, Dk] cumulative decays
  VecD zero;
  VecF eb;  // exp(Btot), [Dk]
  VecF f;   // [Dk] scratch: exp(B_r - B_s) on the diagonal blocks

  // full = false loads only what AdvanceState needs (k, v, kd, eb).
  template <typename T>
  void Load(const GlaShape& s, int64_t bh, int64_t t0, int64_t len, const T* Q, const T* K, const T* V,
            const T* G, float scale, bool full = true) {
    L = len, Dk = s.Dk;
    const int64_t Dv = s.Dv;
    q.resize(L, Dk), k.resize(L, Dk), v.resize(L, Dv), eg.resize(L, Dk);
    B.resize(L * Dk);
    for (int64_t r = 0; r < L; ++r) {
      const int64_t rk = s.QkRow(bh, t0 + r), rv = s.VRow(bh, t0 + r);
      if (full) {
        CopyRow(Q + rk, Dk, &q(r, 0));
        q.row(r) *= scale;
      }
      CopyRow(K + rk, Dk, &k(r, 0));
      CopyRow(G + rk, Dk, &eg(r, 0));
      RaiseToFloor(&eg(r, 0), Dk);
      CopyRow(V + rv, Dv, &v(r, 0));
      // B_r = B_{r-1} + gk_r, in double.
      Eigen::Map<VecD> Br(&B[r * Dk], Dk);
      if (r > 0) {
        Br = Eigen::Map<const VecD>(&B[(r - 1) * Dk], Dk) + eg.row(r).transpose().cast<double>();
      } else {
        Br = eg.row(r).transpose().cast<double>();
      }
    }
    ed.resize(L, Dk), ek.resize(L, Dk);
    zero.setZero(Dk);
    eb.resize(Dk), f.resize(Dk);
    const double* Bt = &B[(L - 1) * Dk];
    ExpDiff(Bt, zero.data(), Dk, eb.data());
    for (int64_t r = 0; r < L; ++r) ExpDiff(Bt, &B[r * Dk], Dk, &ek(r, 0));
    kd = k.cwiseProduct(ek);
    if (!full) return;
    for (int64_t r = 0; r < L; ++r) ExpDiff(&B[r * Dk], zero.data(), Dk, &ed(r, 0));
    eg = eg.array().exp().matrix();
    qd = q.cwiseProduct(ed);
  }

  // fn(r, s, f) for every pair s <= r of the diagonal block [a0, a1), s by s, with
  // f = exp(B_r - B_s) = exp(gk_{s+1}) ... exp(gk_r) (products of factors <= 1 when gk <= 0).
  template <typename Fn>
  void DiagonalPairs(int64_t a0, int64_t a1, Fn&& fn) {
    using Af = Eigen::Array<float, Eigen::Dynamic, 1>;
    Eigen::Map<Af> fm(f.data(), Dk);
    for (int64_t c = a0; c < a1; ++c) {
      fm.setOnes();
      fn(c, c, f.data());
      for (int64_t r = c + 1; r < a1; ++r) {
        fm *= Eigen::Map<const Af>(&eg(r, 0), Dk);
        fn(r, c, f.data());
      }
    }
  }
  // The reference of secondary chunk a (rows a0 to a1, a0 > 0): B at row a0 - 1. ea =
  // exp(B_r - ref) for its rows, qa = qs * ea; e = exp(ref - B_s) for s < a0, ks = k * e.
  void Referenced(int64_t a0, int64_t a1, Mat* ea, Mat* qa, Mat* e, Mat* ks) const {
    const double* ref = &B[(a0 - 1) * Dk];
    ea->resize(a1 - a0, Dk);
    for (int64_t r = a0; r < a1; ++r) ExpDiff(&B[r * Dk], ref, Dk, &ea->coeffRef(r - a0, 0));
    *qa = q.middleRows(a0, a1 - a0).cwiseProduct(*ea);
    e->resize(a0, Dk);
    for (int64_t s = 0; s < a0; ++s) ExpDiff(ref, &B[s * Dk], Dk, &e->coeffRef(s, 0));
    *ks = k.topRows(a0).cwiseProduct(*e);
  }

  // The causal scores A (zero above the diagonal); the 16 x 16 blocks on the diagonal only
  // when asked for (the backward fills them in its own pass over those pairs).
  void Scores(Mat* ea, Mat* qa, Mat* e, Mat* ks, bool diagonal) {
    A.setZero(L, L);
    for (int64_t a0 = 0; a0 < L; a0 += kGlaCpuSub) {
      const int64_t a1 = std::min(L, a0 + kGlaCpuSub);
      if (a0 > 0) {
        Referenced(a0, a1, ea, qa, e, ks);
        A.block(a0, 0, a1 - a0, a0).noalias() = *qa * ks->transpose();
      }
      if (!diagonal) continue;
      DiagonalPairs(a0, a1, [&](int64_t r, int64_t c, const float* fr) { A(r, c) = Dot3(&q(r, 0), &k(c, 0), fr, Dk); });
    }
  }
};

// Per-thread workspace of the chunked form.
struct Work {
  Chunk c;
  Mat S, dS, o, ea, qa, e, ks, dA, dq, dk, dv, t1;
  VecF states;  // backward: the state before every chunk, and the final one
  VecF acc;
};

inline int64_t NumChunks(int64_t T) { return (T + kGlaCpuChunk - 1) / kGlaCpuChunk; }

inline void InitState(const GlaShape& s, const float* h0, Mat* S) {
  S->resize(s.Dk, s.Dv);
  if (h0) {
    *S = Eigen::Map<const Mat>(h0, s.Dk, s.Dv);
  } else {
    S->setZero();
  }
}

// S <- exp(Btot)[:, None] * S + kd^T v.
inline void AdvanceState(const Chunk& c, Mat* S) {
  for (int64_t i = 0; i < S->rows(); ++i) S->row(i) *= c.eb[i];
  S->noalias() += c.kd.transpose() * c.v;
}

template <typename T>
void ChunkedForwardHead(const GlaShape& s, int64_t bh, const T* q, const T* k, const T* v, const T* g,
                        const float* h0, float scale, T* o, float* final_state, Work* w) {
  const int64_t Dk = s.Dk, Dv = s.Dv;
  InitState(s, h0, &w->S);
  Chunk& c = w->c;
  for (int64_t t0 = 0; t0 < s.T; t0 += kGlaCpuChunk) {
    c.Load(s, bh, t0, std::min(kGlaCpuChunk, s.T - t0), q, k, v, g, scale);
    c.Scores(&w->ea, &w->qa, &w->e, &w->ks, true);
    w->o.noalias() = c.qd * w->S;
    w->o.noalias() += c.A.triangularView<Eigen::Lower>() * c.v;
    for (int64_t r = 0; r < c.L; ++r) {
      const int64_t rv = s.VRow(bh, t0 + r);
      CopyRow(&w->o(r, 0), Dv, o + rv);
    }
    AdvanceState(c, &w->S);
  }
  if (final_state) MapMat(final_state, Dk, Dv) = w->S;
}

template <typename T>
void ChunkedBackwardHead(const GlaShape& s, int64_t bh, const T* q, const T* k, const T* v, const T* g,
                         const float* h0, const T* dout, const float* dfinal, float scale, T* dq, T* dk,
                         T* dv, T* dg, float* dh0, Work* w) {
  const int64_t Dk = s.Dk, Dv = s.Dv, SS = Dk * Dv, NC = NumChunks(s.T);
  Chunk& c = w->c;
  // Forward: the state before every chunk and after the last.
  w->states.resize((NC + 1) * SS);
  InitState(s, h0, &w->S);
  for (int64_t n = 0; n < NC; ++n) {
    const int64_t t0 = n * kGlaCpuChunk;
    MapMat(&w->states[n * SS], Dk, Dv) = w->S;
    c.Load(s, bh, t0, std::min(kGlaCpuChunk, s.T - t0), q, k, v, g, scale, false);
    AdvanceState(c, &w->S);
  }
  MapMat(&w->states[NC * SS], Dk, Dv) = w->S;
  // The final state's share of every gk gradient.
  w->acc.setZero(Dk);
  if (dfinal) {
    for (int64_t i = 0; i < Dk; ++i) {
      float sum = 0;
      for (int64_t j = 0; j < Dv; ++j) sum += dfinal[i * Dv + j] * w->S(i, j);
      w->acc[i] = sum;
    }
  }
  w->dS.resize(Dk, Dv);
  if (dfinal) {
    w->dS = Eigen::Map<const Mat>(dfinal, Dk, Dv);
  } else {
    w->dS.setZero();
  }
  Mat dO;
  for (int64_t n = NC - 1; n >= 0; --n) {
    const int64_t t0 = n * kGlaCpuChunk, L = std::min(kGlaCpuChunk, s.T - t0);
    c.Load(s, bh, t0, L, q, k, v, g, scale);
    c.Scores(&w->ea, &w->qa, &w->e, &w->ks, false);
    dO.resize(L, Dv);
    for (int64_t r = 0; r < L; ++r) {
      const int64_t rv = s.VRow(bh, t0 + r);
      for (int64_t j = 0; j < Dv; ++j) dO(r, j) = static_cast<float>(dout[rv + j]);
    }
    const Eigen::Map<const Mat> S(&w->states[n * SS], Dk, Dv);
    w->dA.noalias() = dO * c.v.transpose();
    // dq / scale and dk without each step's own term: first from the state before the chunk
    // and after it.
    w->t1.noalias() = dO * S.transpose();
    w->dq = w->t1.cwiseProduct(c.ed);
    w->t1.noalias() = c.v * w->dS.transpose();
    w->dk = w->t1.cwiseProduct(c.ek);
    // Then from the other steps of the chunk: blocks below the diagonal through each secondary
    // chunk's reference, the diagonal blocks pair by pair (which also fills A there).
    for (int64_t a0 = 0; a0 < L; a0 += kGlaCpuSub) {
      const int64_t a1 = std::min(L, a0 + kGlaCpuSub);
      if (a0 > 0) {
        c.Referenced(a0, a1, &w->ea, &w->qa, &w->e, &w->ks);
        const auto dAab = w->dA.block(a0, 0, a1 - a0, a0);
        // dq rows of a: exp(B_r - ref) * (dA ks); dk rows s < a0: exp(ref - B_s) * (dA^T qa).
        w->t1.noalias() = dAab * w->ks;
        w->dq.middleRows(a0, a1 - a0) += w->t1.cwiseProduct(w->ea);
        w->t1.noalias() = dAab.transpose() * w->qa;
        w->dk.topRows(a0) += w->t1.cwiseProduct(w->e);
      }
      c.DiagonalPairs(a0, a1, [&](int64_t r, int64_t cc, const float* f) {
        const float* qr = &c.q(r, 0);
        const float* kc = &c.k(cc, 0);
        c.A(r, cc) = Dot3(qr, kc, f, Dk);
        if (cc == r) return;
        const float da = w->dA(r, cc);
        float* dqr = &w->dq(r, 0);
        float* dkc = &w->dk(cc, 0);
        for (int64_t i = 0; i < Dk; ++i) {
          dqr[i] += da * kc[i] * f[i];
          dkc[i] += da * qr[i] * f[i];
        }
      });
    }
    // dv = A^T do + kd dS.
    w->dv.noalias() = c.A.triangularView<Eigen::Lower>().transpose() * dO;
    w->dv.noalias() += c.kd * w->dS;
    // dgk: the reverse sum of q dq - k dk (own terms left out), then add the own terms to dq, dk.
    for (int64_t r = L - 1; r >= 0; --r) {
      const float vdo = w->dA(r, r);
      const int64_t rk = s.QkRow(bh, t0 + r), rv = s.VRow(bh, t0 + r);
      for (int64_t i = 0; i < Dk; ++i) {
        w->acc[i] += c.q(r, i) * w->dq(r, i) - c.k(r, i) * w->dk(r, i);
        dg[rk + i] = static_cast<T>(w->acc[i]);
        dq[rk + i] = static_cast<T>((w->dq(r, i) + c.k(r, i) * vdo) * scale);
        dk[rk + i] = static_cast<T>(w->dk(r, i) + c.q(r, i) * vdo);
      }
      CopyRow(&w->dv(r, 0), Dv, dv + rv);
    }
    // dS before the chunk.
    for (int64_t i = 0; i < Dk; ++i) w->dS.row(i) *= c.eb[i];
    w->dS.noalias() += c.qd.transpose() * dO;
  }
  if (dh0) MapMat(dh0, Dk, Dv) = w->dS;
  if (s.T > 0) {
    const int64_t rk = s.QkRow(bh, 0);
    for (int64_t i = 0; i < Dk; ++i) {
      float sum = 0;
      if (h0) {
        for (int64_t j = 0; j < Dv; ++j) sum += w->dS(i, j) * h0[i * Dv + j];
      }
      dg[rk + i] = static_cast<T>(sum);
    }
  }
}

// The recurrent form of one head (recurrent.h) compiled into this file's code: flatten inlines
// it here, so it runs with this instruction set (its out-of-line copy is shared with the
// baseline code, which the linker may keep for both).
template <typename T, typename Acc>
__attribute__((flatten)) void RecurrentForwardHead(const GlaData<T>& d, int64_t bh, int64_t off, Acc scale,
                                                   Acc* work) {
  GlaRecurrentForwardHead<T, Acc>(d.s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, scale, d.o,
                                  d.final_state ? d.final_state + off : nullptr, work);
}
template <typename T, typename Acc>
__attribute__((flatten)) void RecurrentBackwardHead(const GlaGradData<T>& d, int64_t bh, int64_t off, Acc scale,
                                                    Acc* work) {
  GlaRecurrentBackwardHead<T, Acc>(d.s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, d.dout,
                                   d.dfinal ? d.dfinal + off : nullptr, scale, d.dq, d.dk, d.dv, d.dg,
                                   d.dh0 ? d.dh0 + off : nullptr, work);
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

// A whole call: the chunked form (not for float64) or the recurrent one.
template <typename T>
void Forward(const GlaData<T>& d, double scale, bool chunked) {
  using Acc = typename GlaAccType<T>::type;
  if constexpr (!std::is_same<T, double>::value) {
    if (chunked) {
      return ForEachHead<Work>(d, [&](int64_t bh, int64_t off, Work* w) {
        ChunkedForwardHead<T>(d.s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, static_cast<float>(scale),
                              d.o, d.final_state ? d.final_state + off : nullptr, w);
      });
    }
  }
  using Vec = Eigen::Matrix<Acc, Eigen::Dynamic, 1>;
  ForEachHead<Vec>(d, [&](int64_t bh, int64_t off, Vec* w) {
    if (w->size() == 0) w->resize(d.s.ForwardWork());
    RecurrentForwardHead<T, Acc>(d, bh, off, static_cast<Acc>(scale), w->data());
  });
}

template <typename T>
void Backward(const GlaGradData<T>& d, double scale, bool chunked) {
  using Acc = typename GlaAccType<T>::type;
  if constexpr (!std::is_same<T, double>::value) {
    if (chunked) {
      return ForEachHead<Work>(d, [&](int64_t bh, int64_t off, Work* w) {
        ChunkedBackwardHead<T>(d.s, bh, d.q, d.k, d.v, d.g, d.h0 ? d.h0 + off : nullptr, d.dout,
                               d.dfinal ? d.dfinal + off : nullptr, static_cast<float>(scale), d.dq, d.dk, d.dv,
                               d.dg, d.dh0 ? d.dh0 + off : nullptr, w);
      });
    }
  }
  using Vec = Eigen::Matrix<Acc, Eigen::Dynamic, 1>;
  ForEachHead<Vec>(d, [&](int64_t bh, int64_t off, Vec* w) {
    if (w->size() == 0) w->resize(d.s.BackwardWork());
    RecurrentBackwardHead<T, Acc>(d, bh, off, static_cast<Acc>(scale), w->data());
  });
}

#define PADDLE_OPS_GLA_CPU_INSTANTIATE_TYPE(T)                    \
  template void Forward<T>(const GlaData<T>&, double, bool);      \
  template void Backward<T>(const GlaGradData<T>&, double, bool);
PADDLE_OPS_GLA_CPU_INSTANTIATE_TYPE(float)
PADDLE_OPS_GLA_CPU_INSTANTIATE_TYPE(double)
PADDLE_OPS_GLA_CPU_INSTANTIATE_TYPE(dtype::float16)
PADDLE_OPS_GLA_CPU_INSTANTIATE_TYPE(dtype::bfloat16)
#undef PADDLE_OPS_GLA_CPU_INSTANTIATE_TYPE

}  // namespace PADDLE_OPS_GLA_CPU_ISA
}  // namespace gla_cpu
}  // namespace funcs
}  // namespace phi
