// Host-side check of the chunk algorithm of the sm_90a gla backward
// (kernels/gla/sm90/chunk_bwd_sm90.cuh), without a GPU: its per-chunk math (the states H_c
// before and dh_c after each chunk, then per chunk dq, dk, dv and gk_grad anchored at the
// chunk's end), written in plain C++ over double, against a float64 recurrent backward
// (docs/spec.md §5, the recurrent form of kernels/gla/recurrent.h). Each case runs twice: with
// exact operands (the algebra: ~1e-12), and with the operands rounded as the kernels' bfloat16
// path rounds them (an estimate of their error against spec §5's 4e-3): dA = dO V^T and A =
// Qd Kd^T (from the hi parts) to one bfloat16, Qd and Kd to a hi/lo pair, the stored states to
// one bfloat16 (used as they are, their row scalings in double). The state recurrences are
// written in the factored form of the older kernels (same algebra). The kernels themselves run
// on the CPU in bwd_emulation.cc. (History: with one bfloat16 for Qd and Kd and gk_grad's
// reverse sum carried across all chunks, gk_grad was measured here at 0.9-7e-2 rel. RMS.)
//
//   g++ -O2 -std=c++17 -I. -o build-harness/gla_bwd_host_check tools/dev/harness/gla/bwd_host_check.cc
//   build-harness/gla_bwd_host_check
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tools/dev/harness/gla/bwd_ref.h"

namespace {

using gla_ref::Grads;
using gla_ref::Head;
using gla_ref::Recurrent;

constexpr int kC = 32;              // steps per chunk (chunk_bwd_sm90.cuh: kC)
constexpr int kRef = kC / 2 - 1;    // the reference row of the factored mode
constexpr double kClamp = 100.0;    // the element-wise mode's gate clamp

bool g_round = false;
double R16(double x) {  // bfloat16 round-to-nearest-even, when g_round
  if (!g_round || !std::isfinite(x)) return x;
  float f = float(x);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  u &= 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}
// A value the kernels keep as a pair of 16-bit operands, hi + lo (the products take hi*y + lo*y):
// about 16 significant bits.
double Split(double x) { return g_round && std::isfinite(x) ? R16(x) + R16(x - R16(x)) : x; }

// ---- the chunk algorithm of the kernels ----------------------------------------------------
// The gate pass of one chunk (rows t0 .. t0 + L - 1, zero gates past T): the exponents of the
// operand factors, each a direct sum over the gates it spans.
struct Gates {
  bool safe;
  std::vector<double> alpha, beta, pc;  // [kC][Dk]: Qd = scale q e^alpha, Kd = k e^beta; clamped cumsum
  std::vector<double> ref, post;        // [Dk]: gates 0..kRef, gates kRef+1..kC-1
};
Gates GatePass(const Head& x, int t0, double range, bool force_other) {
  const int Dk = x.Dk;
  Gates G;
  G.alpha.assign(kC * Dk, 0), G.beta.assign(kC * Dk, 0), G.pc.assign(kC * Dk, 0);
  G.ref.assign(Dk, 0), G.post.assign(Dk, 0);
  auto gate = [&](int t, int i) { return t0 + t < x.T ? x.g[(t0 + t) * Dk + i] : 0.0; };
  bool ok = true;
  std::vector<double> a(kC * Dk);
  for (int i = 0; i < Dk; ++i) {
    for (int t = 0; t <= kRef; ++t) G.ref[i] += gate(t, i);
    for (int t = kRef + 1; t < kC; ++t) G.post[i] += gate(t, i);
    for (int t = 0; t < kC; ++t) {
      double s = 0;
      if (t <= kRef) {
        for (int r = t + 1; r <= kRef; ++r) s -= gate(r, i);
      } else {
        for (int r = kRef + 1; r <= t; ++r) s += gate(r, i);
      }
      a[t * Dk + i] = s;
      ok = ok && std::fabs(s) <= range;
    }
  }
  G.safe = ok && !force_other;
  for (int i = 0; i < Dk; ++i) {
    double pre = 0, pc = 0;
    for (int t = 0; t < kC; ++t) {
      pre += gate(t, i);
      pc += std::fmax(gate(t, i), -kClamp);
      double suf = 0;
      for (int r = t + 1; r < kC; ++r) suf += gate(r, i);
      G.pc[t * Dk + i] = pc;
      G.alpha[t * Dk + i] = G.safe ? a[t * Dk + i] : pre;
      G.beta[t * Dk + i] = G.safe ? -a[t * Dk + i] : suf;
    }
  }
  return G;
}

Grads Chunked(const Head& x, double scale, double range, bool force_other) {
  const int T = x.T, Dk = x.Dk, Dv = x.Dv, NT = (T + kC - 1) / kC;
  Grads r;
  r.dq.assign(size_t(T) * Dk, 0), r.dk.assign(size_t(T) * Dk, 0), r.dv.assign(size_t(T) * Dv, 0);
  r.dg.assign(size_t(T) * Dk, 0), r.dh0.assign(size_t(Dk) * Dv, 0);
  auto Q = [&](int t, int i) { return t < T ? x.q[t * Dk + i] : 0.0; };
  auto K = [&](int t, int i) { return t < T ? x.k[t * Dk + i] : 0.0; };
  auto V = [&](int t, int j) { return t < T ? R16(x.v[t * Dv + j]) : 0.0; };
  auto DO = [&](int t, int j) { return t < T ? R16(x.dout[t * Dv + j]) : 0.0; };
  std::vector<double> qdq(size_t(T) * Dk, 0), Qd(kC * Dk), Kd(kC * Dk), dA(kC * kC), A(kC * kC);
  auto operands = [&](int t0, const Gates& G) {
    for (int t = 0; t < kC; ++t)
      for (int i = 0; i < Dk; ++i) {
        Qd[t * Dk + i] = Split(scale * Q(t0 + t, i) * std::exp(G.alpha[t * Dk + i]));
        Kd[t * Dk + i] = Split(K(t0 + t, i) * std::exp(G.beta[t * Dk + i]));
      }
    for (int t = 0; t < kC; ++t)
      for (int s = 0; s < kC; ++s) {
        double acc = 0;
        for (int j = 0; j < Dv; ++j) acc += DO(t0 + t, j) * V(t0 + s, j);
        dA[t * kC + s] = acc;  // do_t . v_s (float32 accumulators; rounded where used as an operand)
      }
  };
  // A chunk's step of a state (or of its gradient), M <- post * (pre * M + A^T B(t0 + s, j)), with
  // pre = exp(a), post = exp(b) in the safe mode and pre = exp(a + b), post = 1 otherwise.
  auto state_step = [&](std::vector<double>& M, const std::vector<double>& Am, auto B, int t0,
                        const std::vector<double>& a, const std::vector<double>& b, bool safe) {
    for (int i = 0; i < Dk; ++i) {
      const double pre = safe ? std::exp(a[i]) : std::exp(a[i] + b[i]), post = safe ? std::exp(b[i]) : 1.0;
      for (int j = 0; j < Dv; ++j) {
        double acc = M[i * Dv + j] * pre;
        for (int s = 0; s < kC; ++s) acc += Am[s * Dk + i] * B(t0 + s, j);
        M[i * Dv + j] = acc * post;
      }
    }
  };
  // ---- kernel 1: the forward pass (state H in accumulators): dq and q.dq' ----
  std::vector<double> H(size_t(Dk) * Dv, 0), Hs(size_t(Dk) * Dv);
  std::vector<std::vector<double>> stored(NT);  // H_c as the state pass stores it
  if (!x.h0.empty()) H = x.h0;
  for (int n = 0; n < NT; ++n) {
    const int t0 = n * kC;
    const Gates G = GatePass(x, t0, range, force_other);
    operands(t0, G);
    stored[n].resize(H.size());
    for (size_t e = 0; e < H.size(); ++e) stored[n][e] = R16(H[e]);
    for (int i = 0; i < Dk; ++i)
      for (int j = 0; j < Dv; ++j) Hs[i * Dv + j] = stored[n][i * Dv + j] * (G.safe ? std::exp(G.ref[i]) : 1.0);
    for (int t = 0; t < kC && t0 + t < T; ++t)
      for (int i = 0; i < Dk; ++i) {
        double xi = 0, xintra = 0;  // dO Hs^T, the in-chunk part
        for (int j = 0; j < Dv; ++j) xi += DO(t0 + t, j) * Hs[i * Dv + j];
        for (int s = 0; s < t; ++s) {
          if (G.safe) {
            xi += R16(dA[t * kC + s]) * Kd[s * Dk + i];
          } else {
            xintra += R16(dA[t * kC + s]) * K(t0 + s, i) * std::exp(G.pc[t * Dk + i] - G.pc[s * Dk + i]);
          }
        }
        const double dqp = scale * (std::exp(G.alpha[t * Dk + i]) * xi + xintra);
        qdq[(t0 + t) * Dk + i] = Q(t0 + t, i) * dqp;
        r.dq[(t0 + t) * Dk + i] = dqp + scale * dA[t * kC + t] * K(t0 + t, i);
      }
    // H <- post * (pre * H + Kd^T V)
    state_step(H, Kd, V, t0, G.ref, G.post, G.safe);
  }
  // ---- kernel 2: the reverse pass (dh in accumulators) ----
  std::vector<double> dh(size_t(Dk) * Dv, 0), dhs(size_t(Dk) * Dv), dhst(size_t(Dk) * Dv);
  std::vector<double> u(kC * Dk), w(kC * Dk);
  if (!x.dfinal.empty()) dh = x.dfinal;
  for (int n = NT - 1; n >= 0; --n) {
    const int t0 = n * kC;
    const Gates G = GatePass(x, t0, range, force_other);
    operands(t0, G);
    for (size_t e = 0; e < dh.size(); ++e) dhst[e] = R16(dh[e]);  // dh_c as the dh pass stores it
    for (int i = 0; i < Dk; ++i)
      for (int j = 0; j < Dv; ++j) dhs[i * Dv + j] = dhst[i * Dv + j] * (G.safe ? std::exp(G.post[i]) : 1.0);
    for (int s = 0; s < kC; ++s)
      for (int t = 0; t < kC; ++t) {  // A[s, t], s >= t
        double acc = 0;
        if (s >= t) {
          for (int i = 0; i < Dk; ++i) {
            acc += G.safe ? R16(Qd[s * Dk + i]) * R16(Kd[t * Dk + i])  // A: the hi parts only
                          : scale * Q(t0 + s, i) * K(t0 + t, i) * std::exp(G.pc[s * Dk + i] - G.pc[t * Dk + i]);
          }
        }
        A[s * kC + t] = R16(acc);
      }
    for (int t = 0; t < kC; ++t)
      for (int i = 0; i < Dk; ++i) {
        double ys = 0, y = 0, yintra = 0;  // V dhs^T; the in-chunk parts
        for (int j = 0; j < Dv; ++j) ys += V(t0 + t, j) * dhs[i * Dv + j];
        for (int s = t + 1; s < kC; ++s) {
          if (G.safe) {
            y += R16(dA[s * kC + t]) * Qd[s * Dk + i];
          } else {
            yintra += R16(dA[s * kC + t]) * scale * Q(t0 + s, i) * std::exp(G.pc[s * Dk + i] - G.pc[t * Dk + i]);
          }
        }
        const double eb = std::exp(G.beta[t * Dk + i]), dki = eb * y + yintra;
        // gk_grad's parts: u (k times dk's state part), w (q dq' - k times the rest of dk')
        u[t * Dk + i] = t0 + t < T ? K(t0 + t, i) * eb * ys : 0.0;
        w[t * Dk + i] = t0 + t < T ? qdq[(t0 + t) * Dk + i] - K(t0 + t, i) * dki : 0.0;
        if (t0 + t < T) r.dk[(t0 + t) * Dk + i] = eb * ys + dki + scale * dA[t * kC + t] * Q(t0 + t, i);
      }
    for (int t = 0; t < kC && t0 + t < T; ++t)
      for (int j = 0; j < Dv; ++j) {
        double acc = 0;
        for (int i = 0; i < Dk; ++i) acc += Split(Kd[t * Dk + i] * (G.safe ? std::exp(G.post[i]) : 1.0)) * dhst[i * Dv + j];
        for (int s = t; s < kC; ++s) acc += A[s * kC + t] * DO(t0 + s, j);
        r.dv[(t0 + t) * Dv + j] = acc;
      }
    for (int i = 0; i < Dk; ++i) {  // F0 + sum_{s<t} u_s + sum_{s>=t} w_s, restarting at a zero factor
      double f0 = 0, pre = 0, acc = 0, accz = 0;
      for (int j = 0; j < Dv; ++j) f0 += dhst[i * Dv + j] * stored[n][i * Dv + j];
      f0 *= std::exp(G.ref[i] + G.post[i]);
      std::vector<double> prefix(kC);
      for (int t = 0; t < kC; ++t) prefix[t] = pre, pre += u[t * Dk + i];
      bool restarted = false;
      for (int t = kC - 1; t >= 0; --t) {
        double val;
        if (!restarted) {
          acc += w[t * Dk + i];
          val = f0 + prefix[t] + acc;
        } else {
          accz += w[t * Dk + i] - u[t * Dk + i];
          val = accz;
        }
        if (t0 + t < T && std::exp(float(x.g[(t0 + t) * Dk + i])) == 0.f) restarted = true, accz = 0, val = 0;
        if (t0 + t < T) r.dg[(t0 + t) * Dk + i] = val;
      }
    }
    // dh <- post * (pre * dh + Qd^T dO)
    state_step(dh, Qd, DO, t0, G.post, G.ref, G.safe);
  }
  r.dh0 = dh;
  for (int i = 0; i < Dk && T > 0; ++i) {
    double f = 0;
    if (!x.h0.empty())
      for (int j = 0; j < Dv; ++j) f += dh[i * Dv + j] * x.h0[i * Dv + j];
    r.dg[i] = f;
  }
  return r;
}

double RelRms(const std::vector<double>& a, const std::vector<double>& ref) {
  double e = 0, r = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return INFINITY;
    e += (a[i] - ref[i]) * (a[i] - ref[i]), r += ref[i] * ref[i];
  }
  return r > 0 ? std::sqrt(e / r) : std::sqrt(e);
}

struct Case {
  const char* name;
  int T, Dk, Dv;
  int gates;  // 0: logsigmoid/16, 1: strong (x4), 2: extreme (-inf, -1e30, -60 mixed in), 3: U[-1, 0]
  bool h0, dfinal, force_other;
};

}  // namespace

int main() {
  const Case cases[] = {
      {"T100 Dk16 Dv24 h0 dfinal", 100, 16, 24, 0, true, true, false},
      {"T100 other mode", 100, 16, 24, 0, true, true, true},
      {"T256 Dk128 Dv128", 256, 128, 128, 0, false, false, false},
      {"T256 Dk128 Dv64 U[-1,0] h0 dfinal", 256, 128, 64, 3, true, true, false},
      {"T192 Dk128 Dv64 strong h0 dfinal", 192, 128, 64, 1, true, true, false},
      {"T64 Dk32 Dv16 strong", 64, 32, 16, 1, true, true, false},
      {"T97 extreme gates", 97, 16, 20, 2, true, true, false},
      {"T97 extreme, dfinal only", 97, 16, 20, 2, false, true, false},
      {"T70 U[-1,0] no h0", 70, 24, 40, 3, false, false, false},
      {"T33 U[-1,0] other", 33, 8, 8, 3, true, false, true},
      {"T5 (one partial chunk)", 5, 8, 12, 0, true, true, false},
  };
  bool all_ok = true;
  std::printf("| case | operands | dq | dk | dv | dgk | dh0 | check |\n|---|---|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    std::mt19937_64 rng(std::hash<std::string>()(c.name));
    std::normal_distribution<double> nd(0, 1);
    std::uniform_real_distribution<double> ud(0, 1);
    Head x;
    x.T = c.T, x.Dk = c.Dk, x.Dv = c.Dv;
    auto fill = [&](std::vector<double>& v, size_t n) {
      v.resize(n);
      for (auto& e : v) e = R16(nd(rng));
    };
    g_round = true;  // inputs are 16-bit values
    fill(x.q, size_t(c.T) * c.Dk), fill(x.k, size_t(c.T) * c.Dk), fill(x.v, size_t(c.T) * c.Dv);
    fill(x.dout, size_t(c.T) * c.Dv);
    x.g.resize(size_t(c.T) * c.Dk);
    for (auto& e : x.g) {
      const double z = nd(rng), ls = -std::log1p(std::exp(-z));
      double gv = c.gates == 1 ? ls * 4 : c.gates == 3 ? -ud(rng) : ls / 16;
      if (c.gates == 2) {
        const double u = ud(rng);
        if (u < 0.03) gv = -INFINITY;
        else if (u < 0.06) gv = -1e30;
        else if (u < 0.09) gv = -60;
      }
      e = R16(gv);
    }
    if (c.h0) {
      x.h0.resize(size_t(c.Dk) * c.Dv);
      for (auto& e : x.h0) e = float(nd(rng));
    }
    if (c.dfinal) {
      x.dfinal.resize(size_t(c.Dk) * c.Dv);
      for (auto& e : x.dfinal) e = float(nd(rng));
    }
    const double scale = 1.0 / std::sqrt(double(c.Dk));
    g_round = false;
    const Grads ref = Recurrent(x, scale);
    for (int rounded = 0; rounded < 2; ++rounded) {
      g_round = rounded != 0;
      const Grads got = Chunked(x, scale, 32.0, c.force_other);
      const double e[5] = {RelRms(got.dq, ref.dq), RelRms(got.dk, ref.dk), RelRms(got.dv, ref.dv),
                           RelRms(got.dg, ref.dg), c.h0 ? RelRms(got.dh0, ref.dh0) : 0.0};
      const double bound = rounded ? 4e-3 : 1e-10;
      bool ok = true;
      for (double v : e) ok = ok && v <= bound;
      all_ok = all_ok && ok;
      std::printf("| %s | %s | %.3g | %.3g | %.3g | %.3g | %.3g | %s |\n", c.name, rounded ? "bf16" : "exact", e[0],
                  e[1], e[2], e[3], e[4], ok ? "ok" : "FAIL");
    }
  }
  std::printf(all_ok ? "all ok\n" : "FAILED\n");
  return all_ok ? 0 : 1;
}
