// Host check of the sequence split's algebra (gla_sm90::LaunchFwdSplit), no GPU: the final state
// of T cut into segments of whole chunks, each segment's state from zero (float64 here, the
// kernel's float32 accumulators), its decay per key channel formed as the state-only pass forms
// it (per chunk, four row groups of 16 gates times log2 e summed in float, rows 0..31 and 32..63
// added, the chunks' sums added in float, exp2 at the end) and the in-order float32 combine
// start_{z+1} = fmaf(decay_z, start_z, local_z), against the float64 recurrence; every gate kind
// of the harness (-inf and -1e30 included), T off the segment length, with and without h0.
//
//   g++ -O2 -std=c++17 -o build-harness/gla_split_host_check tools/dev/harness/gla/split_host_check.cc
//   build-harness/gla_split_host_check        # exit 1 when a case fails
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr int kC = 64, kGroupRows = 16, kRefGroups = 2;
constexpr float kLog2e = 1.4426950408889634f;

struct Case {
  const char* name;
  int T, Dk, Dv, seg_chunks, gates;  // gates: 0 logsigmoid/16, 1 strong, 2 extreme, 3 U[-1, 0]
  bool h0;
};

// The float64 recurrence S_t = diag(exp(g_t)) S_{t-1} + k_t v_t^T over rows [t0, t1) from S.
void Recur(const std::vector<float>& g, const std::vector<float>& k, const std::vector<float>& v, int Dk, int Dv,
           int t0, int t1, std::vector<double>& S) {
  for (int t = t0; t < t1; ++t)
    for (int i = 0; i < Dk; ++i) {
      const double e = std::exp(double(g[size_t(t) * Dk + i])), kk = k[size_t(t) * Dk + i];
      for (int j = 0; j < Dv; ++j) S[size_t(i) * Dv + j] = S[size_t(i) * Dv + j] * e + kk * v[size_t(t) * Dv + j];
    }
}

// The state-only pass's decay of channel i over chunks [c0, c1) (rows past T count as gate 0).
float SegmentDecay(const std::vector<float>& g, int T, int Dk, int i, int c0, int c1) {
  float dec = 0.f;
  for (int c = c0; c < c1; ++c) {
    float tot[kC / kGroupRows];
    for (int gi = 0; gi < kC / kGroupRows; ++gi) {
      float s = 0.f;
      for (int r = 0; r < kGroupRows; ++r) {
        const int t = c * kC + gi * kGroupRows + r;
        s += (t < T ? g[size_t(t) * Dk + i] : 0.f) * kLog2e;
      }
      tot[gi] = s;
    }
    float sref = 0.f, spost = 0.f;
    for (int gi = 0; gi < kC / kGroupRows; ++gi) (gi < kRefGroups ? sref : spost) += tot[gi];
    dec += sref + spost;
  }
  return std::exp2(dec);
}

bool Run(const Case& c) {
  std::mt19937_64 rng(12345 + c.T * 7 + c.gates);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::uniform_real_distribution<float> ud(0.f, 1.f);
  std::vector<float> g(size_t(c.T) * c.Dk), k(g.size()), v(size_t(c.T) * c.Dv);
  for (auto& x : k) x = nd(rng);
  for (auto& x : v) x = nd(rng);
  for (auto& x : g) {
    const float z = nd(rng);
    const float ls = -std::log1p(std::exp(-z));
    float gv = c.gates == 1 ? ls * 4.f : c.gates == 3 ? -ud(rng) : ls / 16.f;
    if (c.gates == 2) {
      const float u = ud(rng);
      if (u < 0.01f) gv = -INFINITY;
      else if (u < 0.02f) gv = -1e30f;
      else if (u < 0.03f) gv = -60.f;
    }
    x = gv;
  }
  const size_t ns = size_t(c.Dk) * c.Dv;
  std::vector<double> ref(ns, 0.0);
  std::vector<float> start(ns, 0.f);
  if (c.h0)
    for (size_t e = 0; e < ns; ++e) ref[e] = start[e] = nd(rng);
  Recur(g, k, v, c.Dk, c.Dv, 0, c.T, ref);

  const int NT = (c.T + kC - 1) / kC, S = (NT + c.seg_chunks - 1) / c.seg_chunks;
  // Segments 0 .. S - 2: local state and decay, combined in order; the last segment from its start.
  for (int z = 0; z + 1 < S; ++z) {
    const int c0 = z * c.seg_chunks, c1 = c0 + c.seg_chunks;
    std::vector<double> local(ns, 0.0);
    Recur(g, k, v, c.Dk, c.Dv, c0 * kC, std::min(c.T, c1 * kC), local);
    for (int i = 0; i < c.Dk; ++i) {
      const float d = SegmentDecay(g, c.T, c.Dk, i, c0, c1);
      for (int j = 0; j < c.Dv; ++j) {
        const size_t e = size_t(i) * c.Dv + j;
        start[e] = std::fma(d, start[e], float(local[e]));
      }
    }
  }
  std::vector<double> fin(start.begin(), start.end());
  Recur(g, k, v, c.Dk, c.Dv, (S - 1) * c.seg_chunks * kC, c.T, fin);
  double e2 = 0, r2 = 0;
  long bad = 0;
  for (size_t e = 0; e < ns; ++e) {
    if (!std::isfinite(fin[e])) ++bad;
    else e2 += (fin[e] - ref[e]) * (fin[e] - ref[e]);
    r2 += ref[e] * ref[e];
  }
  const double rel = r2 > 0 ? std::sqrt(e2 / r2) : std::sqrt(e2);
  const bool ok = bad == 0 && rel <= 1e-5;
  std::printf("| %-34s | S %3d | ht rel. RMS %9.3g | non-finite %ld | %s |\n", c.name, S, rel, bad, ok ? "ok" : "FAIL");
  return ok;
}

}  // namespace

int main() {
  const Case cases[] = {
      {"T200 seg 1 h0", 200, 96, 40, 1, 0, true},
      {"T200 seg 3 (last segment 1 chunk)", 200, 96, 40, 3, 0, true},
      {"T320 strong seg 2 h0", 320, 128, 32, 2, 1, true},
      {"T300 extreme seg 2 h0", 300, 128, 32, 2, 2, true},
      {"T300 extreme seg 1", 300, 128, 32, 1, 2, false},
      {"T200 U[-1,0] seg 1 h0", 200, 128, 32, 1, 3, true},
      {"T4100 seg 7 h0", 4100, 64, 16, 7, 0, true},
      {"T4100 U[-1,0] seg 5", 4100, 64, 16, 5, 3, false},
  };
  bool all = true;
  for (const Case& c : cases) all = Run(c) && all;
  std::printf("split host check: %s\n", all ? "ok" : "FAIL");
  return all ? 0 : 1;
}
