// gla (SPEC.md §5): the chunked form on the CPU, forward and backward of one head, computing
// in float (float32 and the 16-bit types; float64 stays on the recurrent form of gla_ops.h).
//
// Chunks of kGlaCpuChunk steps; B_r = sum_{s <= r} gk_s inside the chunk (summed in double),
// Btot its last row, S the state at the chunk's start. With qs = scale q:
//   o_r   = (qs_r * exp(B_r)) S + sum_{s <= r} A[r, s] v_s,  A[r, s] = sum_i qs_ri k_si exp(B_ri - B_si)
//   S'    = exp(Btot)[:, None] * S + (k * exp(Btot - B))^T v
// A's off-diagonal 16-step blocks are matrix products of q and k scaled against one reference
// row per secondary chunk (the cumulative decay just before it), so every exponent is <= 0
// when gk <= 0; the diagonal blocks take exp(B_ri - B_si) per element.
// Backward, with dS the gradient of the state after the chunk and dA = do v^T (causal):
//   dq_r  = scale (exp(B_r) * (S do_r) + sum_{s <= r} dA[r, s] k_s exp(B_r - B_s))
//   dk_s  = exp(Btot - B_s) * (dS v_s) + sum_{r >= s} dA[r, s] qs_r exp(B_r - B_s)
//   dv    = A^T do + (k * exp(Btot - B)) dS,   dS_before = exp(Btot)[:, None] * dS + (qs * exp(B))^T do
// and dgk as in the recurrent form (gla_ops.h): the reverse sum of q dq - k dk without each
// step's own term, plus the final state's share; dgk_0 = sum_j dh0 * h0. The per-head
// computation is sequential in a fixed order, so results do not depend on the thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <Eigen/Core>

#include "kernels/impl/gla_ops.h"
#include "paddle_ops/common/enforce.h"

namespace phi {
namespace funcs {
namespace gla_cpu {

constexpr int64_t kGlaCpuChunk = 64;
constexpr int64_t kGlaCpuSub = 16;
// Below this length the recurrent form is the default (the chunked one gains nothing there).
constexpr int64_t kGlaCpuChunkedMinT = 32;

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapMat = Eigen::Map<Mat>;

// PADDLE_OPS_GLA_CPU=chunked|recurrent (read per call): force one CPU path; unset or empty,
// the chunked form runs for T >= kGlaCpuChunkedMinT. float64 always runs the recurrent form.
inline bool UseGlaChunkedOnCpu(int64_t T) {
  const char* v = std::getenv("PADDLE_OPS_GLA_CPU");
  if (v == nullptr || *v == '\0') return T >= kGlaCpuChunkedMinT;
  if (std::strcmp(v, "chunked") == 0) return true;
  if (std::strcmp(v, "recurrent") == 0) return false;
  PADDLE_THROW(errors::InvalidArgument("PADDLE_OPS_GLA_CPU must be 'chunked' or 'recurrent', got '%s'", v));
}

// One chunk of one head, loaded as float, with its cumulative decays and scores.
struct Chunk {
  int64_t L = 0;
  Mat q, k, v, g;        // q already multiplied by scale
  Mat qd, kd;            // qs * exp(B), k * exp(Btot - B)
  Mat A;                 // causal scores (row r, column s <= r)
  std::vector<double> B;  // [L, Dk] cumulative decays
  std::vector<float> eb;  // exp(Btot), [Dk]

  template <typename T>
  void Load(const GlaShape& s, int64_t bh, int64_t t0, int64_t len, const T* Q, const T* K, const T* V,
            const T* G, float scale) {
    L = len;
    const int64_t Dk = s.Dk, Dv = s.Dv;
    q.resize(L, Dk), k.resize(L, Dk), v.resize(L, Dv), g.resize(L, Dk);
    B.assign(static_cast<size_t>(L * Dk), 0.0);
    for (int64_t r = 0; r < L; ++r) {
      const int64_t rk = s.QkRow(bh, t0 + r), rv = s.VRow(bh, t0 + r);
      for (int64_t i = 0; i < Dk; ++i) {
        q(r, i) = static_cast<float>(Q[rk + i]) * scale;
        k(r, i) = static_cast<float>(K[rk + i]);
        g(r, i) = static_cast<float>(G[rk + i]);
        B[r * Dk + i] = (r > 0 ? B[(r - 1) * Dk + i] : 0.0) + static_cast<double>(g(r, i));
      }
      for (int64_t j = 0; j < Dv; ++j) v(r, j) = static_cast<float>(V[rv + j]);
    }
    qd.resize(L, Dk), kd.resize(L, Dk);
    eb.resize(static_cast<size_t>(Dk));
    const double* Bt = &B[(L - 1) * Dk];
    for (int64_t i = 0; i < Dk; ++i) eb[i] = std::exp(static_cast<float>(Bt[i]));
    for (int64_t r = 0; r < L; ++r) {
      for (int64_t i = 0; i < Dk; ++i) {
        const double b = B[r * Dk + i];
        qd(r, i) = q(r, i) * std::exp(static_cast<float>(b));
        kd(r, i) = k(r, i) * std::exp(static_cast<float>(Bt[i] - b));
      }
    }
  }

  // exp(B_ri - B_si) as float.
  float Decay(int64_t r, int64_t s, int64_t i, int64_t Dk) const {
    return std::exp(static_cast<float>(B[r * Dk + i] - B[s * Dk + i]));
  }
  // The reference of secondary chunk a (starting at row a0 > 0): B at row a0 - 1.
  // qa = qs_r exp(B_r - ref) for its rows, ks = k_s exp(ref - B_s) and e = exp(ref - B_s) for s < a0.
  void Referenced(int64_t a0, int64_t a1, int64_t Dk, Mat* qa, Mat* ks, Mat* e) const {
    const double* ref = &B[(a0 - 1) * Dk];
    qa->resize(a1 - a0, Dk);
    for (int64_t r = a0; r < a1; ++r) {
      for (int64_t i = 0; i < Dk; ++i) qa->coeffRef(r - a0, i) = q(r, i) * std::exp(static_cast<float>(B[r * Dk + i] - ref[i]));
    }
    e->resize(a0, Dk), ks->resize(a0, Dk);
    for (int64_t s = 0; s < a0; ++s) {
      for (int64_t i = 0; i < Dk; ++i) {
        const float f = std::exp(static_cast<float>(ref[i] - B[s * Dk + i]));
        e->coeffRef(s, i) = f;
        ks->coeffRef(s, i) = k(s, i) * f;
      }
    }
  }

  // The causal scores A (zero above the diagonal).
  void Scores(int64_t Dk, Mat* qa, Mat* ks, Mat* e) {
    A.setZero(L, L);
    for (int64_t a0 = 0; a0 < L; a0 += kGlaCpuSub) {
      const int64_t a1 = std::min(L, a0 + kGlaCpuSub);
      if (a0 > 0) {
        Referenced(a0, a1, Dk, qa, ks, e);
        A.block(a0, 0, a1 - a0, a0).noalias() = *qa * ks->transpose();
      }
      for (int64_t r = a0; r < a1; ++r) {
        for (int64_t c = a0; c <= r; ++c) {
          float sum = 0;
          for (int64_t i = 0; i < Dk; ++i) sum += q(r, i) * k(c, i) * Decay(r, c, i, Dk);
          A(r, c) = sum;
        }
      }
    }
  }
};

// Per-thread workspace of the chunked form.
struct Work {
  Chunk c;
  Mat S, dS, o, qa, ks, e, dA, dq, dk, dv, t1;
  std::vector<float> states;  // backward: the state before every chunk, and the final one
  std::vector<float> acc;
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
    c.Scores(Dk, &w->qa, &w->ks, &w->e);
    w->o.noalias() = c.qd * w->S;
    w->o.noalias() += c.A * c.v;
    for (int64_t r = 0; r < c.L; ++r) {
      const int64_t rv = s.VRow(bh, t0 + r);
      for (int64_t j = 0; j < Dv; ++j) o[rv + j] = static_cast<T>(w->o(r, j));
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
  w->states.resize(static_cast<size_t>((NC + 1) * SS));
  InitState(s, h0, &w->S);
  for (int64_t n = 0; n < NC; ++n) {
    const int64_t t0 = n * kGlaCpuChunk;
    MapMat(&w->states[n * SS], Dk, Dv) = w->S;
    c.Load(s, bh, t0, std::min(kGlaCpuChunk, s.T - t0), q, k, v, g, scale);
    AdvanceState(c, &w->S);
  }
  MapMat(&w->states[NC * SS], Dk, Dv) = w->S;
  // The final state's share of every gk gradient.
  w->acc.assign(static_cast<size_t>(Dk), 0.f);
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
    c.Scores(Dk, &w->qa, &w->ks, &w->e);
    dO.resize(L, Dv);
    for (int64_t r = 0; r < L; ++r) {
      const int64_t rv = s.VRow(bh, t0 + r);
      for (int64_t j = 0; j < Dv; ++j) dO(r, j) = static_cast<float>(dout[rv + j]);
    }
    const Eigen::Map<const Mat> S(&w->states[n * SS], Dk, Dv);
    w->dA.noalias() = dO * c.v.transpose();
    // dq / scale without each step's own term, from the state and the earlier steps.
    w->t1.noalias() = dO * S.transpose();
    w->dq.resize(L, Dk);
    for (int64_t r = 0; r < L; ++r) {
      for (int64_t i = 0; i < Dk; ++i) w->dq(r, i) = w->t1(r, i) * std::exp(static_cast<float>(c.B[r * Dk + i]));
    }
    // dk without each step's own term, from the later state.
    w->t1.noalias() = c.v * w->dS.transpose();
    w->dk.resize(L, Dk);
    for (int64_t r = 0; r < L; ++r) {
      for (int64_t i = 0; i < Dk; ++i) {
        w->dk(r, i) = w->t1(r, i) * std::exp(static_cast<float>(c.B[(L - 1) * Dk + i] - c.B[r * Dk + i]));
      }
    }
    // The causal mask on dA, then the intra-chunk terms of dq and dk.
    for (int64_t a0 = 0; a0 < L; a0 += kGlaCpuSub) {
      const int64_t a1 = std::min(L, a0 + kGlaCpuSub);
      if (a0 > 0) {
        c.Referenced(a0, a1, Dk, &w->qa, &w->ks, &w->e);
        const auto dAab = w->dA.block(a0, 0, a1 - a0, a0);
        // dq rows of a: exp(B_r - ref) * (dA ks); dk rows s < a0: exp(ref - B_s) * (dA^T qa).
        w->t1.noalias() = dAab * w->ks;
        for (int64_t r = a0; r < a1; ++r) {
          for (int64_t i = 0; i < Dk; ++i) {
            w->dq(r, i) += w->t1(r - a0, i) * std::exp(static_cast<float>(c.B[r * Dk + i] - c.B[(a0 - 1) * Dk + i]));
          }
        }
        w->t1.noalias() = dAab.transpose() * w->qa;
        w->dk.topRows(a0) += w->t1.cwiseProduct(w->e);
      }
      for (int64_t r = a0; r < a1; ++r) {
        for (int64_t cc = a0; cc < r; ++cc) {
          const float da = w->dA(r, cc);
          for (int64_t i = 0; i < Dk; ++i) {
            const float f = c.Decay(r, cc, i, Dk);
            w->dq(r, i) += da * c.k(cc, i) * f;
            w->dk(cc, i) += da * c.q(r, i) * f;
          }
        }
      }
    }
    // dv = A^T do + kd dS.
    w->dv.noalias() = c.A.transpose() * dO;
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
      for (int64_t j = 0; j < Dv; ++j) dv[rv + j] = static_cast<T>(w->dv(r, j));
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

}  // namespace gla_cpu
}  // namespace funcs
}  // namespace phi
