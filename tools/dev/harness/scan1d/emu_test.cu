// Host-only emulation of LseV's tile arithmetic (scan1d_variants.cuh; no GPU): the fast path's
// formulas (R, f, base, the float running sum, inclusive and exclusive, both lane totals) against
// spec §1 through the harness's own checker on 1-D 2^22 N(0, 2). Build as check_test.cu, from
// tools/dev/harness/scan1d/emu_test.cu (about 1 minute: 4 runs of 2^22).
#define main harness_main
#include "tools/dev/harness/scan1d/scan1d_harness.cu"
#undef main

struct HL { double m, s; };
static HL Comb(HL a, HL b) {
  if (a.m == -INFINITY) return b;
  if (b.m == -INFINITY) return a;
  if (a.m >= b.m) return {a.m, std::fma(b.s, std::exp(b.m - a.m), a.s)};
  return {b.m, std::fma(a.s, std::exp(a.m - b.m), b.s)};
}
static float ExpDiffH(float a, float b) {
  const float s = a - b, bb = s - a, err = (a - (s - bb)) + (-b - bb);
  const float e = std::exp(s);
  return a == -INFINITY ? 0.f : std::fma(e, err, e);
}
int main() {
  for (int excl = 0; excl < 2; ++excl) for (int cheap = 0; cheap < 2; ++cheap) {
    const int64_t L = int64_t{1} << 22;
    std::vector<float> x = Inputs(L, Dist::kNormal2), o(L);
    const int kT = 4096, kI = 16;
    HL carry{-INFINITY, 0};
    int64_t fast_tiles = 0, tiles = 0;
    for (int64_t t0 = 0; t0 < L; t0 += kT, ++tiles) {
      float Rt = -INFINITY, lo = INFINITY;
      for (int k = 0; k < kT; ++k) { Rt = std::max(Rt, x[t0 + k]); if (x[t0 + k] != -INFINITY) lo = std::min(lo, x[t0 + k]); }
      const bool fast_agg = std::isfinite(Rt) && lo >= Rt - 80.f;
      std::vector<float> e(kT); std::vector<double> before(kT / kI); double total = 0;
      for (int l = 0; l < kT / kI; ++l) {
        float sh = 0, sl = 0; float p[kI];
        for (int j = 0; j < kI; ++j) {
          e[l * kI + j] = ExpDiffH(x[t0 + l * kI + j], Rt); p[j] = e[l * kI + j];
          const float s = sh + p[j], bb = s - sh; sl += (sh - (s - bb)) + (p[j] - bb); sh = s;
        }
        for (int w = 1; w < kI; w <<= 1) for (int j = 0; j + w < kI; j += 2 * w) p[j] += p[j + w];
        before[l] = total;
        total += cheap ? double(p[0]) : double(sh) + double(sl);
      }
      HL c = carry;
      bool fast = fast_agg && std::isfinite(c.m) && c.s != 1.0;
      float R = Rt; double f = 1, base0 = 0;
      if (fast) {
        R = std::max(Rt, float(c.m));
        fast = c.m >= double(R) - 80;
        f = std::exp(double(Rt) - R); base0 = c.s * std::exp(c.m - R);
        const double v = c.m + std::log(c.s), top = R + std::log(base0 + f * total);
        fast = fast && (v >= 12.01 || top <= -12.01);
      }
      // exact tile state and outputs
      HL ex{-INFINITY, 0}, p = carry;
      for (int k = 0; k < kT; ++k) {
        const float v = x[t0 + k];
        HL tv{v, 1.0};
        if (!fast) { if (excl) o[t0 + k] = p.s == 1.0 ? float(p.m) : (p.m == -INFINITY ? -INFINITY : float(p.m + std::log(p.s))); }
        p = Comb(p, tv); ex = Comb(ex, tv);
        if (!fast && !excl) o[t0 + k] = p.s == 1.0 ? float(p.m) : float(p.m + std::log(p.s));
      }
      if (fast) {
        ++fast_tiles;
        for (int l = 0; l < kT / kI; ++l) {
          float s = float(std::fma(f, before[l], base0));
          for (int j = 0; j < kI; ++j) {
            if (!excl) s = std::fma(float(f), e[l * kI + j], s);
            o[t0 + l * kI + j] = std::fma(std::log2(s), 0.693147180559945309f, R);
            if (excl) s = std::fma(float(f), e[l * kI + j], s);
          }
        }
      }
      carry = Comb(carry, fast_agg ? HL{double(Rt), total} : ex);
    }
    const double err = CheckLse(x, o, 1, L, excl, false);
    std::printf("emu excl %d cheap %d: fast tiles %lld of %lld, max err %.3f (units of spec 1's bound)\n", excl, cheap,
                (long long)fast_tiles, (long long)tiles, err);
  }
}
