// Host-only emulation of logcumsumexp's float32 gradient on the block tiles
// (kernels/gpu/logcumsumexp_grad_rows.cuh's LseGradBlockTile<kThreads, kItems> on
// kernels/funcs/gpu/scan_block_rows.cuh), checked by the harness's own gradient checker (CheckGrad,
// scan1d_harness.cu): per element LseGradRowMath's gate (1 + expm1f of the float rounding of the
// exact float64 difference, expf below 1/2, the rounding put back by one fma) and output factor
// (expf the same way), per thread the left fold of (gate, out_grad) pairs, BlockScanOne's order (Kogge-Stone in
// each warp, then over the warp totals), the aggregate's canonical gate product, the in-order
// fma chain of LseGradBlockTile::Step from tile 0's published b, and Finish's walk (the gates
// taken again). Also with every float32 expm1f/expf result one ulp high ("+1ulp", a pessimistic
// model of the GPU's). Exits 1 where a case is outside the bound (err > 10). (The 1-D 1000003
// holes rows hold a NaN: every gradient before it in the forward's order is NaN, as the
// reference's; the [3, 2^16] holes rows have -inf runs and, in the last row, a +inf.)
// `--cols`: the column thread steps (LseGradColumns) in the three column phases (EmuGradCols);
// `--cols-many`: the same on Many's data.
// Build as check_test.cu, from tools/dev/harness/scan1d/grad_emu_test.cu (README). `--many [rows]`
// and `--holes`: the H200 run's [4096, 16384] N(0, 2) and [3072, 16388] holes excl rows alone,
// the gates below 1/2 both ways (Many and Holes below).
#define main harness_main
#include "tools/dev/harness/scan1d/scan1d_harness.cu"
#undef main

namespace {
struct GS {
  double a, b;
};
GS Cmb(GS e, GS l) { return {e.a * l.a, std::fma(l.a, e.b, l.b)}; }  // LseGradRowMath::Combine
bool g_up = false, g_nofix = false;
bool g_old_gate = false;  // every gate as 1 + expm1f (the arithmetic before gates below 1/2 took expf)
double ExpH(double d, bool gate) {  // LseGradRowMath::Exp
  if (std::fabs(d) <= 80.0) {
    const float df = static_cast<float>(d);
    float r = gate ? std::expm1(df) : std::exp(df);
    const bool as_exp = gate && !g_old_gate && r < -0.5f;
    if (as_exp) r = std::exp(df);
    if (g_up && r != 0.f) r = std::nextafter(r, INFINITY);
    const double e = gate && !as_exp ? 1.0 + static_cast<double>(r) : static_cast<double>(r);
    if (g_nofix) return e;
    return std::fma(e, d - static_cast<double>(df), e);
  }
  return std::exp(d);
}
double GateH(float o, float prev, bool first) {
  if (first || o == -INFINITY) return 0.0;
  return o == prev ? 1.0 : ExpH(static_cast<double>(o) - static_cast<double>(prev), true);
}
float OutH(double b, float x, float o, bool none) {
  if (none || x == -INFINITY) return 0.f;
  return static_cast<float>(b * ExpH(static_cast<double>(x) - static_cast<double>(o), false));
}

// LseGradColMath (the columns' lean arithmetic, kernels/gpu/logcumsumexp_grad_rows.cuh): the
// float difference and its exact rounding error (TwoSum), the rounding put back in float32.
float UpH(float r) { return g_up && r != 0.f ? std::nextafter(r, INFINITY) : r; }
void DiffH(float a, float b, float* s, float* err) {
  *s = a - b;
  const float bb = *s - a;
  *err = (a - (*s - bb)) + (-b - bb);
}
double GateLeanH(float o, float prev, bool first) {
  if (first || o == -INFINITY) return 0.0;
  if (o == prev) return 1.0;
  float s, err;
  DiffH(o, prev, &s, &err);
  if (!(std::fabs(s) <= 80.f)) return std::exp(static_cast<double>(o) - static_cast<double>(prev));
  const float m = UpH(std::expm1(s));
  if (m < -0.5f) {
    const float e = UpH(std::exp(s));
    return static_cast<double>(std::fma(e, err, e));
  }
  return 1.0 + static_cast<double>(std::fma(1.f + m, err, m));
}
float OutLeanH(double b, float x, float o, bool none) {
  if (none || x == -INFINITY) return 0.f;
  float s, err;
  DiffH(x, o, &s, &err);
  if (!(std::fabs(s) <= 80.f)) return static_cast<float>(b * std::exp(static_cast<double>(x) - static_cast<double>(o)));
  const float e = UpH(std::exp(s));
  return static_cast<float>(b * static_cast<double>(std::fma(e, err, e)));
}
bool g_lean = false;  // EmuGradCols: LseGradColMath (else LseGradRowMath)
double GateC(float o, float prev, bool first) { return g_lean ? GateLeanH(o, prev, first) : GateH(o, prev, first); }
float OutC(double b, float x, float o, bool none) { return g_lean ? OutLeanH(b, x, o, none) : OutH(b, x, o, none); }

// BlockScanOne<kThreads> of v with Cmb from {1, 0}: before[i] and the total.
template <int kThreads>
GS BlockScanH(const std::vector<GS>& v, std::vector<GS>* before) {
  constexpr int kWarps = kThreads / 32;
  const GS id{1.0, 0.0};
  std::vector<GS> wt(kWarps), ex(kThreads);
  for (int w = 0; w < kWarps; ++w) {
    GS in[32];
    for (int l = 0; l < 32; ++l) in[l] = v[w * 32 + l];
    for (int d = 1; d < 32; d <<= 1) {
      GS nx[32];
      for (int l = 0; l < 32; ++l) nx[l] = l >= d ? Cmb(in[l - d], in[l]) : in[l];
      std::copy(nx, nx + 32, in);
    }
    for (int l = 0; l < 32; ++l) ex[w * 32 + l] = l == 0 ? id : in[l - 1];
    wt[w] = in[31];
  }
  GS wi[32];
  for (int l = 0; l < 32; ++l) wi[l] = l < kWarps ? wt[l] : id;
  for (int d = 1; d < kWarps; d <<= 1) {
    GS nx[32];
    for (int l = 0; l < 32; ++l) nx[l] = l >= d ? Cmb(wi[l - d], wi[l]) : wi[l];
    std::copy(nx, nx + 32, wi);
  }
  for (int i = 0; i < kThreads; ++i) {
    const int w = i / 32;
    (*before)[i] = w == 0 ? ex[i] : Cmb(w == 0 ? id : wi[w - 1], ex[i]);
  }
  return wi[kWarps - 1];
}

// x_grad of rows of L (row-major; the forward reversed: rev), the gradient scanning against it.
template <int kThreads, int kItems>
std::vector<float> EmuGradBlock(const std::vector<float>& x, const std::vector<float>& o,
                                const std::vector<float>& og, int64_t rows, int64_t L, bool excl, bool rev) {
  constexpr int64_t kT = int64_t{kThreads} * kItems;
  std::vector<float> xg(x.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t r = 0; r < rows; ++r) {
    auto at = [&](int64_t s) { return r * L + (!rev ? L - 1 - s : s); };  // the gradient's scan order
    double pb = 0.0;  // P_{t-1}.b (the published prefix keeps b alone)
    for (int64_t t0 = 0; t0 < L; t0 += kT) {
      std::vector<float> ot(kT), gt(kT), xt(kT);
      for (int64_t k = 0; k < kT; ++k) {
        const bool in = t0 + k < L;
        ot[k] = in ? o[at(t0 + k)] : 0.f;
        gt[k] = in ? og[at(t0 + k)] : 0.f;
        xt[k] = in ? x[at(t0 + k)] : 0.f;
      }
      const float edge = t0 > 0 ? o[at(t0 - 1)] : 0.f;
      std::vector<GS> mine(kThreads), before(kThreads);
      std::vector<float> prev0(kThreads);
      for (int i = 0; i < kThreads; ++i) {
        prev0[i] = i == 0 ? edge : ot[i * kItems - 1];
        const bool first0 = t0 == 0 && i == 0;
        GS m{1.0, 0.0};
        for (int j = 0; j < kItems; ++j) {
          const int k = i * kItems + j;
          m = Cmb(m, GS{GateH(ot[k], j == 0 ? prev0[i] : ot[k - 1], j == 0 && first0), double(gt[k])});
        }
        mine[i] = m;
      }
      GS total = BlockScanH<kThreads>(mine, &before);
      total.a = total.a != total.a ? NAN : std::fabs(total.a);  // Aggregate()
      const double carry_b = pb;  // tile 0: the identity's 0
      pb = t0 == 0 ? total.b : std::fma(total.a, pb, total.b);  // P_t (Step; tile 0: A_0's b)
      for (int i = 0; i < kThreads; ++i) {
        double b = std::fma(before[i].a, carry_b, before[i].b);
        const bool first0 = t0 == 0 && i == 0;
        float prev = prev0[i];
        for (int j = 0; j < kItems; ++j) {
          const int64_t k = int64_t{i} * kItems + j;
          const bool first = j == 0 && first0;
          const double gate = GateH(ot[k], prev, first);
          float res;
          if (excl) {
            res = OutH(b, xt[k], prev, first);
            b = std::fma(gate, b, double(gt[k]));
          } else {
            b = std::fma(gate, b, double(gt[k]));
            res = OutH(b, xt[k], ot[k], false);
          }
          prev = ot[k];
          if (t0 + k < L) xg[at(t0 + k)] = res;
        }
      }
    }
  }
  return xg;
}

// The column thread steps (LseGradColumns, -DPO_LSE_GRAD_COLS=1) in the engine's three column
// phases, each row taken as one line (the arithmetic does not see the stride): the line cut into
// segments of seg_len steps (ScanColumnsThreePhase's), phase 1 a thread's left fold of
// (gate, out_grad) from {1, 0} over its segment, phase 2 the segment totals' exclusive scan (here
// a left fold; on the GPU WarpTotalsScanKernel's warp scan or BlockTotalsScanKernel's runs: another
// order of the same float64 combinations), phase 3 the thread's walk from b of its prefix, the
// gates taken again. seg_len >= L: one segment (ColumnScanKernel<0>).
std::vector<float> EmuGradCols(const std::vector<float>& x, const std::vector<float>& o, const std::vector<float>& og,
                               int64_t rows, int64_t L, bool excl, bool rev, int64_t seg_len) {
  std::vector<float> xg(x.size());
  const int64_t nseg = (L + seg_len - 1) / seg_len;
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t r = 0; r < rows; ++r) {
    auto at = [&](int64_t s) { return r * L + (!rev ? L - 1 - s : s); };  // the gradient's scan order
    std::vector<GS> tot(nseg);
    for (int64_t sg = 0; sg < nseg; ++sg) {  // phase 1
      const int64_t s0 = sg * seg_len, s1 = std::min(L, s0 + seg_len);
      float prev = s0 > 0 ? o[at(s0 - 1)] : 0.f;
      GS m{1.0, 0.0};
      for (int64_t k = s0; k < s1; ++k) {
        const double gate = GateC(o[at(k)], prev, k == 0);
        m = GS{m.a * gate, std::fma(gate, m.b, double(og[at(k)]))};
        prev = o[at(k)];
      }
      tot[sg] = m;
    }
    GS run{1.0, 0.0};
    for (int64_t sg = 0; sg < nseg; ++sg) {  // phase 2
      const GS t = tot[sg];
      tot[sg] = run;
      run = Cmb(run, t);
    }
    for (int64_t sg = 0; sg < nseg; ++sg) {  // phase 3
      const int64_t s0 = sg * seg_len, s1 = std::min(L, s0 + seg_len);
      float prev = s0 > 0 ? o[at(s0 - 1)] : 0.f;
      double b = tot[sg].b;
      for (int64_t k = s0; k < s1; ++k) {
        const int64_t i = at(k);
        const bool first = k == 0;
        const double gate = GateC(o[i], prev, first);
        if (excl) {
          xg[i] = OutC(b, x[i], prev, first);
          b = std::fma(gate, b, double(og[i]));
        } else {
          b = std::fma(gate, b, double(og[i]));
          xg[i] = OutC(b, x[i], o[i], false);
        }
        prev = o[i];
      }
    }
  }
  return xg;
}

// --cols: EmuGradCols on the cases' rows as lines, segments of 64, 128 and 256 steps (the
// three phases' on [2048, 1031] axis 0, [32, 4, 2048, 128] axis 2 and [16384, 4096] axis 0) and one
// segment a line, LseGradRowMath's arithmetic ("row") and LseGradColMath's ("lean"), each also with
// every float32 expm1f/expf result one ulp high (+1ulp). Returns 1 where one is outside the bound.
template <typename Cases>
int Cols(const Cases& cases) {
  bool bad = false;
  for (const auto& c : cases) {
    const GradData d(c.rows, c.L, c.excl, c.rev, c.d);
    for (int mode = 0; mode < 4; ++mode) {
      g_up = (mode & 1) != 0;
      g_lean = (mode & 2) != 0;
      std::printf("%-30s %-4s %-6s", c.name, g_lean ? "lean" : "row", g_up ? "+1ulp" : "");
      bool row_bad = false;
      for (int64_t seg : {int64_t{64}, int64_t{128}, int64_t{256}, c.L}) {
        const double e =
            CheckGrad(d.x, d.o, d.g, EmuGradCols(d.x, d.o, d.g, c.rows, c.L, c.excl, c.rev, seg), c.rows, c.L, c.excl, c.rev);
        std::printf(" seg %lld err %.3g,", static_cast<long long>(seg), e);
        row_bad |= !(e <= 10);
      }
      bad |= row_bad;
      std::printf("%s\n", row_bad ? "  FAIL" : "");
    }
  }
  g_up = g_lean = false;
  return bad ? 1 : 0;
}

// --cols-many: the H200's [4096, 16384] N(0, 2) gradient data (Many's: jumps of ~7.6 at rows'
// starts, gates of 5e-4) through EmuGradCols, segments of 256 steps, both arithmetics, +1ulp too.
int ColsMany() {
  const int64_t R = 4096, L = 16384;
  const GradData d(R, L, false, false, Dist::kNormal2);
  bool bad = false;
  for (int mode = 0; mode < 4; ++mode) {
    g_up = (mode & 1) != 0;
    g_lean = (mode & 2) != 0;
    const double e = CheckGrad(d.x, d.o, d.g, EmuGradCols(d.x, d.o, d.g, R, L, false, false, 256), R, L, false, false);
    std::printf("[4096, 16384] N(0, 2) cols seg 256 %-4s %-6s err %.3g%s\n", g_lean ? "lean" : "row",
                g_up ? "+1ulp" : "", e, e <= 10 ? "" : "  FAIL");
    bad |= !(e <= 10);
  }
  g_up = g_lean = false;
  return bad ? 1 : 0;
}

// CheckGrad's measure for rows of the forward not reversed, with where its worst element sits:
// row, p (the forward's position), ref, mag (the |out_grad| sum), got.
struct Worst {
  double err = 0;
  int64_t row = 0, p = 0;
  double ref = 0, mag = 0;
  float got = 0;
};
Worst WorstAt(const std::vector<float>& x, const std::vector<float>& o, const std::vector<float>& og,
              const std::vector<float>& xg, int64_t rows, int64_t L, bool excl) {
  std::vector<Worst> per(rows);
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t r = 0; r < rows; ++r) {
    long double b = 0, mb = 0;
    float prev = 0.f;
    Worst w;
    for (int64_t k = 0; k < L; ++k) {
      const int64_t p = L - 1 - k, i = r * L + p;
      long double gate = 0;
      if (k > 0 && o[i] != -INFINITY) gate = o[i] == prev ? 1.0L : expl(static_cast<long double>(o[i]) - prev);
      long double ref = 0, mag = 0;
      const bool zero = x[i] == -INFINITY || (excl && k == 0);
      if (excl) {
        const long double f = zero ? 0.0L : expl(static_cast<long double>(x[i]) - prev);
        ref = b * f, mag = mb * f;
        b = gate * b + og[i], mb = gate * mb + std::fabs(og[i]);
      } else {
        b = gate * b + og[i], mb = gate * mb + std::fabs(og[i]);
        const long double f = zero ? 0.0L : expl(static_cast<long double>(x[i]) - o[i]);
        ref = b * f, mag = mb * f;
      }
      prev = o[i];
      if (zero || ref != ref) continue;
      const double e = static_cast<double>(std::fabs(xg[i] - ref) / std::max(mag, 1e-30L)) / 1e-6;
      if (e > w.err) w = Worst{e, r, p, static_cast<double>(ref), static_cast<double>(mag), xg[i]};
    }
    per[r] = w;
  }
  Worst all;
  for (const Worst& w : per) all = w.err > all.err ? w : all;
  return all;
}

// Row `row`'s start (forward order) up to position `last` (and two past it): x, out, out_grad
// and the gate that joins each step to the one before.
void PrintStart(const std::vector<float>& x, const std::vector<float>& o, const std::vector<float>& g, int64_t row,
                int64_t L, int64_t last) {
  const int64_t b0 = row * L;
  for (int64_t p = 0; p <= std::min<int64_t>(last + 2, L - 1); ++p) {
    const double dd = p > 0 ? static_cast<double>(o[b0 + p - 1]) - static_cast<double>(o[b0 + p]) : NAN;
    std::printf("    p %lld: x %.6g, out %.9g, out_grad %.6g; gate exp(out[p-1] - out[p]) = exp(%.6g) = %.6g\n",
                static_cast<long long>(p), x[b0 + p], o[b0 + p], g[b0 + p], dd, std::exp(dd));
  }
}

// Rows of L on the second block tile, emulated with every gate as 1 + expm1f (g_old_gate: the
// arithmetic the H200 ran) and with the gates below 1/2 as expf (the library's now), each also
// +1ulp: the worst element, where it sits and (for the first two) the row's start that feeds it.
// Returns 1 where the library's arithmetic is outside the bound.
int Compare(const char* name, const std::vector<float>& x, const std::vector<float>& o, const std::vector<float>& g,
            int64_t rows, int64_t L, bool excl, int64_t show) {
  bool bad = false;
  const char* names[4] = {"1 + expm1f", "1 + expm1f +1ulp", "gates < 1/2 expf", "gates < 1/2 expf +1ulp"};
  for (int mode = 0; mode < 4; ++mode) {
    g_up = mode & 1;
    g_old_gate = (mode & 2) == 0;
    const std::vector<float> xg = EmuGradBlock<512, 16>(x, o, g, rows, L, excl, false);
    const double e = CheckGrad(x, o, g, xg, rows, L, excl, false);
    const Worst w = WorstAt(x, o, g, xg, rows, L, excl);
    std::printf("%s %-23s err %.3g (worst: row %lld, position %lld, got %.9g, ref %.9g, |out_grad| sum %.3g)\n", name,
                names[mode], e, static_cast<long long>(w.row), static_cast<long long>(w.p), w.got, w.ref, w.mag);
    if (mode >= 2) bad |= !(e <= 10);
    if (mode < 2 && w.p <= show) PrintStart(x, o, g, w.row, L, w.p);
  }
  g_up = g_old_gate = false;
  return bad ? 1 : 0;
}

// [4096, 16384] N(0, 2), inclusive (the scan1d harness's "grad f32 [4096, 16384] last", generated
// first from the harness's seed as in its checked step, so the same data as the GPU's), its first
// `rows` rows, through Compare.
int Many(int64_t rows) {
  const int64_t R = 4096, L = 16384;
  const GradData d(R, L, false, false, Dist::kNormal2);
  const std::vector<float> x(d.x.begin(), d.x.begin() + rows * L), o(d.o.begin(), d.o.begin() + rows * L),
      g(d.g.begin(), d.g.begin() + rows * L);
  return Compare("[4096, 16384] N(0, 2)", x, o, g, rows, L, false, 20);
}

// "grad f32 [3072, 16388] holes excl" of the H200's run built from 23926c9 (0.629; lib-grad-old
// 0.232): its data generated after those of the cases its checked step ran before it, in
// kCases' order then, so the GPU's data; through Compare.
int Holes() {
  struct C {
    int64_t rows, L;
    bool excl, rev;
    Dist d;
  };
  const C before[] = {{4096, 16384, false, false, Dist::kNormal2}, {200, 16387, false, false, Dist::kCross},
                      {200, 16387, true, false, Dist::kCross},     {200, 16387, false, true, Dist::kCross},
                      {200, 16387, true, true, Dist::kCross},      {200, 16380, true, true, Dist::kCross},
                      {129, 65536, true, true, Dist::kHoles},      {3072, 16384, false, false, Dist::kCross},
                      {3072, 16384, true, true, Dist::kCross}};
  for (const C& c : before) GradData(c.rows, c.L, c.excl, c.rev, c.d);
  const GradData d(3072, 16388, true, false, Dist::kHoles);
  return Compare("[3072, 16388] holes excl", d.x, d.o, d.g, 3072, 16388, true, 20);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--many") return Many(argc > 2 ? std::atoll(argv[2]) : 4096);
  if (argc > 1 && std::string(argv[1]) == "--holes") return Holes();
  if (argc > 1 && std::string(argv[1]) == "--cols-many") return ColsMany();
  struct C {
    const char* name;
    int64_t rows, L;
    bool excl, rev;
    Dist d;
  };
  const C cases[] = {
      {"1-D 1000003 holes", 1, 1000003, false, false, Dist::kHoles},
      {"1-D 1000003 holes excl rev", 1, 1000003, true, true, Dist::kHoles},
      {"[3, 2^16] holes", 3, int64_t{1} << 16, false, false, Dist::kHoles},  // no NaN: finite rows with -inf runs
      {"[3, 2^16] holes excl rev", 3, int64_t{1} << 16, true, true, Dist::kHoles},
      {"[3, 70001] near0 excl", 3, 70001, true, false, Dist::kNear0},
      {"[2, 70000] cross", 2, 70000, false, false, Dist::kCross},
      {"[2, 70000] cross excl", 2, 70000, true, false, Dist::kCross},
      {"[2, 70000] cross rev", 2, 70000, false, true, Dist::kCross},
      {"[2, 70000] cross excl rev", 2, 70000, true, true, Dist::kCross},
      {"1-D 2^22 neg", 1, int64_t{1} << 22, false, false, Dist::kNeg},
      {"1-D 2^22 N(0, 2)", 1, int64_t{1} << 22, false, false, Dist::kNormal2},
      {"1-D 2^22 N(0, 2) excl rev", 1, int64_t{1} << 22, true, true, Dist::kNormal2},
      // the second block tile's rows (r23-gradroute: kStash off, the same arithmetic): 2 to 3 tiles a row
      {"[200, 16387] cross", 200, 16387, false, false, Dist::kCross},
      {"[200, 16387] cross excl rev", 200, 16387, true, true, Dist::kCross},
      {"[3, 20000] near0 excl", 3, 20000, true, false, Dist::kNear0},
      {"[4, 16388] holes rev", 4, 16388, false, true, Dist::kHoles},
  };
  if (argc > 1 && std::string(argv[1]) == "--cols") return Cols(cases);
  bool bad = false;
  for (const C& c : cases) {
    const GradData d(c.rows, c.L, c.excl, c.rev, c.d);
    const std::vector<float>&x = d.x, &o = d.o, &g = d.g;
    for (int up = 0; up < 2; ++up) {
      g_up = up != 0;
      const double e1 = CheckGrad(x, o, g, EmuGradBlock<512, 16>(x, o, g, c.rows, c.L, c.excl, c.rev), c.rows, c.L,
                                  c.excl, c.rev);
      const double e2 = CheckGrad(x, o, g, EmuGradBlock<256, 16>(x, o, g, c.rows, c.L, c.excl, c.rev), c.rows, c.L,
                                  c.excl, c.rev);
      std::printf("%-30s %-6s b512i16 err %.3g, b256i16 err %.3g (units of 1e-6 of the |out_grad| sum; ok <= 10)%s\n",
                  c.name, up ? "+1ulp" : "", e1, e2, e1 <= 10 && e2 <= 10 ? "" : "  FAIL");
      bad |= !(e1 <= 10 && e2 <= 10);
    }
    // the gates as 1 + expm1f throughout, as before (printed, not judged)
    g_up = false;
    g_old_gate = true;
    const double eo = CheckGrad(x, o, g, EmuGradBlock<512, 16>(x, o, g, c.rows, c.L, c.excl, c.rev), c.rows, c.L,
                                c.excl, c.rev);
    g_old_gate = false;
    std::printf("%-30s        every gate 1 + expm1f (before): err %.3g\n", c.name, eo);
    // what the checker sees of a coarser arithmetic (printed, not judged): float32 gates and factors
    // alone, their rounding d - float(d) not put back
    g_nofix = true;
    const double en = CheckGrad(x, o, g, EmuGradBlock<512, 16>(x, o, g, c.rows, c.L, c.excl, c.rev), c.rows, c.L,
                                c.excl, c.rev);
    g_nofix = false;
    std::printf("%-30s        float32 gates without the fma: err %.3g\n", c.name, en);
  }
  return bad ? 1 : 0;
}
