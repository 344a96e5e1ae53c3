// The float64 recurrent backward of one gla head (docs/spec.md §5; the arithmetic of
// kernels/gla/recurrent.h's GlaRecurrentBackwardHead in double): the host reference of the
// backward harness (gla_bwd_harness.cu) and of the chunk algorithm's host check.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
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


// Relative RMS error against a reference, and the count of non-finite values.
struct Err {
  double e = 0, r = 0;
  long long bad = 0;
  void Add(double x, double ref) {
    if (!std::isfinite(x)) {
      ++bad;
    } else {
      e += (x - ref) * (x - ref);
    }
    r += ref * ref;
  }
  double Rel() const { return r > 0 ? std::sqrt(e / r) : std::sqrt(e); }
};

// A backward call's inputs and outputs in host memory (element strides of the row, head and
// batch dims as the kernels' BwdArgs); E the 16-bit type, G gk's.
template <class E, class G>
struct HostCall {
  int H, T, Dk, Dv;
  int64_t qk_st, qk_sh, qk_sb, v_st, v_sh, v_sb;
  const E *q, *k, *v, *dout;
  const G* g;
  const float *h0, *dfinal;  // [B, H, Dk, Dv] or null
  double scale;
  const E *dq, *dk, *dv;
  const G* dg;
  const float* dh0;
};

// The float64 recurrent backward of head bh of a call.
template <class E, class G>
Grads HeadReference(const HostCall<E, G>& c, int bh) {
  const int b = bh / c.H, h = bh % c.H;
  const int64_t oqk = b * c.qk_sb + h * c.qk_sh, ov = b * c.v_sb + h * c.v_sh, os = int64_t(bh) * c.Dk * c.Dv;
  Head x;
  x.T = c.T, x.Dk = c.Dk, x.Dv = c.Dv;
  auto rows = [&](auto* src, int64_t off, int64_t st, int D, std::vector<double>& dst) {
    dst.resize(size_t(c.T) * D);
    for (int t = 0; t < c.T; ++t)
      for (int i = 0; i < D; ++i) dst[size_t(t) * D + i] = float(src[off + t * st + i]);
  };
  rows(c.q, oqk, c.qk_st, c.Dk, x.q), rows(c.k, oqk, c.qk_st, c.Dk, x.k), rows(c.g, oqk, c.qk_st, c.Dk, x.g);
  rows(c.v, ov, c.v_st, c.Dv, x.v), rows(c.dout, ov, c.v_st, c.Dv, x.dout);
  if (c.h0) x.h0.assign(c.h0 + os, c.h0 + os + c.Dk * c.Dv);
  if (c.dfinal) x.dfinal.assign(c.dfinal + os, c.dfinal + os + c.Dk * c.Dv);
  return Recurrent(x, c.scale);
}

// Adds head bh's errors against its reference r (HeadReference): err = dq, dk, dv, dgk, dh0.
template <class E, class G>
void AddHeadErrors(const HostCall<E, G>& c, int bh, const Grads& r, Err (&err)[5]) {
  const int b = bh / c.H, h = bh % c.H;
  const int64_t oqk = b * c.qk_sb + h * c.qk_sh, ov = b * c.v_sb + h * c.v_sh, os = int64_t(bh) * c.Dk * c.Dv;
  for (int t = 0; t < c.T; ++t) {
    for (int i = 0; i < c.Dk; ++i) {
      const int64_t idx = oqk + t * c.qk_st + i;
      err[0].Add(float(c.dq[idx]), r.dq[size_t(t) * c.Dk + i]);
      err[1].Add(float(c.dk[idx]), r.dk[size_t(t) * c.Dk + i]);
      err[3].Add(float(c.dg[idx]), r.dg[size_t(t) * c.Dk + i]);
    }
    for (int j = 0; j < c.Dv; ++j) err[2].Add(float(c.dv[ov + t * c.v_st + j]), r.dv[size_t(t) * c.Dv + j]);
  }
  if (c.h0)
    for (int s = 0; s < c.Dk * c.Dv; ++s) err[4].Add(c.dh0[os + s], r.dh0[s]);
}
template <class E, class G>
void AddHeadErrors(const HostCall<E, G>& c, int bh, Err (&err)[5]) {
  AddHeadErrors(c, bh, HeadReference(c, bh), err);
}

// Random inputs of a call: q, k, v, do normal, gk by `gates` (0: logsigmoid(z)/16, 1: strong,
// logsigmoid(z)*4, 2: the first with -inf, -1e30 and -60 each at rate `extreme`, 3: U[-1, 0]),
// h0 and dfinal normal when asked for. nd(), ud() draw normal and uniform numbers; to_e and to_g
// convert a float to E and G.
template <class E, class G>
struct HostInputs {
  std::vector<E> q, k, v, dout;
  std::vector<G> g;
  std::vector<float> h0, dfinal;
};
template <class E, class G, class Nd, class Ud, class ToE, class ToG>
HostInputs<E, G> RandomInputs(int64_t nqk, int64_t nv, int64_t ns, int gates, float extreme, bool h0, bool dfinal,
                              Nd&& nd, Ud&& ud, ToE&& to_e, ToG&& to_g) {
  HostInputs<E, G> in;
  for (auto* vec : {&in.q, &in.k}) {
    vec->resize(nqk);
    for (auto& x : *vec) x = to_e(nd());
  }
  for (auto* vec : {&in.v, &in.dout}) {
    vec->resize(nv);
    for (auto& x : *vec) x = to_e(nd());
  }
  in.g.resize(nqk);
  for (auto& x : in.g) {
    const float z = nd(), ls = -std::log1p(std::exp(-z));
    float gv = gates == 1 ? ls * 4.f : gates == 3 ? -ud() : ls / 16.f;
    if (gates == 2) {
      const float u = ud();
      if (u < extreme) gv = -INFINITY;
      else if (u < 2 * extreme) gv = -1e30f;
      else if (u < 3 * extreme) gv = -60.f;
    }
    x = to_g(gv);
  }
  if (h0) {
    in.h0.resize(ns);
    for (auto& x : in.h0) x = nd();
  }
  if (dfinal) {
    in.dfinal.resize(ns);
    for (auto& x : in.dfinal) x = nd();
  }
  return in;
}

}  // namespace gla_ref
