// Host-only test of kIncl's logcumsumexp fold (scan1d_variants.cuh, LseV::FoldLeft; no GPU): the
// chunk's steps as the warp takes them (the running max from the lanes' doubling scan of NMaxLS,
// LsMode on every lane, then LsStep in order) against CombineLS folded one step at a time, bit for
// bit, on random chunks with -inf, +inf, NaN, +-0 and ties among the maxima; kStep1's form of the
// same chunk (alpha, beta a step, one fma) against StepLS folded step by step, bit for bit, and
// within 1e-13 of CombineLS's fold. Build:
// nvcc -std=c++17 -O2 -arch=sm_90a --expt-relaxed-constexpr -I. -o build-harness/scan1d_lbinc_test
// tools/dev/harness/scan1d/lbinc_test.cu && build-harness/scan1d_lbinc_test
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "tools/dev/harness/scan1d/scan1d_variants.cuh"

using scan1d::LS;

int main() {
  std::mt19937_64 g(29);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto draw = [&] {
    const double r = u(g);
    if (r < 0.05) return LS{-scan1d::kInfD, 0.0};
    if (r < 0.07) return LS{scan1d::kInfD, 1.0};
    if (r < 0.08) return LS{NAN, NAN};
    if (r < 0.12) return LS{u(g) < 0.5 ? 0.0 : -0.0, 1.0 + u(g)};
    if (r < 0.30) return LS{3.0, 1.0 + 4096 * u(g)};  // ties of the max
    return LS{static_cast<double>(static_cast<float>(20 * u(g) - 10)), 1.0 + 4096 * u(g)};
  };
  int64_t bad = 0, bad1 = 0, chunks = 0;
  for (int it = 0; it < 200000; ++it, ++chunks) {
    const LS c0 = it % 7 == 0 ? LS{-scan1d::kInfD, 0.0} : draw();
    const int n = 1 + static_cast<int>(u(g) * 32);
    LS b[32];
    for (int l = 0; l < 32; ++l) b[l] = l < n ? draw() : LS{-scan1d::kInfD, 0.0};
    LS ref = c0;  // fold order: lane n - 1 down to lane 0
    for (int l = n - 1; l >= 0; --l) ref = scan1d::CombineLS(ref, b[l]);
    double inc[32];
    for (int l = 0; l < 32; ++l) inc[l] = b[l].m;
    for (int d = 1; d < 32; d <<= 1) {
      double nx[32];
      for (int l = 0; l < 32; ++l) nx[l] = l + d < 32 ? scan1d::NMaxLS(inc[l + d], inc[l]) : inc[l];
      std::memcpy(inc, nx, sizeof inc);
    }
    int mode[32];
    double e[32];
    for (int l = 0; l < 32; ++l) {
      const double am = l == 31 ? c0.m : scan1d::NMaxLS(c0.m, inc[l + 1]);
      double arg;
      mode[l] = l < n ? scan1d::LsMode(am, b[l].m, &arg) : scan1d::kLsKeep;
      e[l] = std::exp(arg);
    }
    double sv = c0.s;
    for (int l = 31; l >= 0; --l) sv = scan1d::LsStep(mode[l], sv, e[l], b[l].s);
    const LS got{scan1d::NMaxLS(c0.m, inc[0]), sv};
    if (std::memcmp(&got, &ref, sizeof got) != 0) {
      if (++bad <= 5) std::printf("mismatch: n %d got (%a, %a) ref (%a, %a)\n", n, got.m, got.s, ref.m, ref.s);
    }
    // kStep1: the same modes and exps as (alpha, beta), one fma a step, against StepLS folded
    // step by step (bit for bit), and StepLS's fold against CombineLS's (within 1e-13)
    LS ref1 = c0;
    for (int l = n - 1; l >= 0; --l) ref1 = scan1d::StepLS(ref1, b[l]);
    double s1 = c0.s;
    for (int l = 31; l >= 0; --l) {
      double al, be;
      scan1d::LsAB(mode[l], e[l], b[l].s, &al, &be);
      s1 = std::fma(al, s1, be);
    }
    const LS got1{scan1d::NMaxLS(c0.m, inc[0]), s1};
    const bool close = std::memcmp(&ref1.m, &ref.m, 8) == 0 &&
                       (std::memcmp(&ref1.s, &ref.s, 8) == 0 || std::fabs(ref1.s - ref.s) <= 1e-13 * std::fabs(ref.s));
    if (std::memcmp(&got1, &ref1, sizeof got1) != 0 || !close) {
      if (++bad1 <= 5) {
        std::printf("kStep1 mismatch: n %d got (%a, %a) StepLS (%a, %a) CombineLS (%a, %a)\n", n, got1.m, got1.s,
                    ref1.m, ref1.s, ref.m, ref.s);
      }
    }
  }
  std::printf("lbinc_test: %lld chunks, %lld not bitwise CombineLS's fold, %lld not bitwise StepLS's (kStep1) or "
              "further than 1e-13 from CombineLS's: %s\n",
              static_cast<long long>(chunks), static_cast<long long>(bad), static_cast<long long>(bad1),
              bad == 0 && bad1 == 0 ? "ok" : "FAIL");
  return bad == 0 && bad1 == 0 ? 0 : 1;
}
