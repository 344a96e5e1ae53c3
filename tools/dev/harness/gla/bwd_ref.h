// The float64 recurrent backward of one gla head (docs/spec.md §5; the arithmetic of
// kernels/gla/recurrent.h's GlaRecurrentBackwardHead in double): the host reference of the
// backward harness (gla_bwd_harness.cu) and of the chunk algorithm's host check.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace gla_ref {

// One head, row-major [T, D]; h0 / dfinal [Dk, Dv] or empty.
struct Head {
  int T, Dk, Dv;
  std::vector<double> q, k, v, g, dout, h0, dfinal;  // h0/dfinal empty: none
};
struct Grads {
  std::vector<double> dq, dk, dv, dg, dh0;
};

// ---- the float64 recurrent backward (the reference) -----------------------------------------
Grads Recurrent(const Head& x, double scale) {
  const int T = x.T, Dk = x.Dk, Dv = x.Dv;
  Grads r;
  r.dq.assign(size_t(T) * Dk, 0), r.dk.assign(size_t(T) * Dk, 0), r.dv.assign(size_t(T) * Dv, 0);
  r.dg.assign(size_t(T) * Dk, 0), r.dh0.assign(size_t(Dk) * Dv, 0);
  std::vector<double> S(size_t(Dk) * Dv, 0), qdq(size_t(T) * Dk);
  if (!x.h0.empty()) S = x.h0;
  for (int t = 0; t < T; ++t) {
    double vdo = 0;
    for (int j = 0; j < Dv; ++j) vdo += x.v[t * Dv + j] * x.dout[t * Dv + j];
    for (int i = 0; i < Dk; ++i) {
      const double a = std::exp(x.g[t * Dk + i]), ki = x.k[t * Dk + i];
      double before = 0;
      for (int j = 0; j < Dv; ++j) {
        const double d = S[i * Dv + j] * a;
        before += d * x.dout[t * Dv + j];
        S[i * Dv + j] = d + ki * x.v[t * Dv + j];
      }
      r.dq[t * Dk + i] = (before + ki * vdo) * scale;
      qdq[t * Dk + i] = x.q[t * Dk + i] * before * scale;
    }
  }
  std::vector<double> acc(Dk, 0), dS(size_t(Dk) * Dv, 0), row(Dv);
  if (!x.dfinal.empty()) {
    dS = x.dfinal;
    for (int i = 0; i < Dk; ++i)
      for (int j = 0; j < Dv; ++j) acc[i] += x.dfinal[i * Dv + j] * S[i * Dv + j];
  }
  for (int t = T - 1; t >= 0; --t) {
    double vdo = 0;
    for (int j = 0; j < Dv; ++j) vdo += x.v[t * Dv + j] * x.dout[t * Dv + j];
    std::fill(row.begin(), row.end(), 0.0);
    for (int i = 0; i < Dk; ++i) {
      const double qs = x.q[t * Dk + i] * scale, ki = x.k[t * Dk + i], a = std::exp(x.g[t * Dk + i]);
      double later = 0;
      for (int j = 0; j < Dv; ++j) {
        later += dS[i * Dv + j] * x.v[t * Dv + j];
        const double d = dS[i * Dv + j] + qs * x.dout[t * Dv + j];
        row[j] += d * ki;
        dS[i * Dv + j] = d * a;
      }
      r.dk[t * Dk + i] = later + qs * vdo;
      acc[i] += qdq[t * Dk + i] - ki * later;
      if (a == 0.0) acc[i] = 0;
      r.dg[t * Dk + i] = acc[i];
    }
    for (int j = 0; j < Dv; ++j) r.dv[t * Dv + j] = row[j];
  }
  r.dh0 = dS;
  for (int i = 0; i < Dk && T > 0; ++i) {
    double f = 0;
    if (!x.h0.empty())
      for (int j = 0; j < Dv; ++j) f += r.dh0[i * Dv + j] * x.h0[i * Dv + j];
    r.dg[i] = f;
  }
  return r;
}

}  // namespace gla_ref
