// Host-only test of scan1d_harness.cu's checkers (no GPU): nvcc -std=c++17 -O2 -arch=sm_90a
// --expt-relaxed-constexpr -I. -Xcompiler -fopenmp -o build-harness/scan1d_check_test
// tools/dev/harness/scan1d/check_test.cu && build-harness/scan1d_check_test
#define main harness_main
#include "tools/dev/harness/scan1d/scan1d_harness.cu"
#undef main
// Host test of the checkers: outputs from a float64 loop (lse) and the rounded double-double (cumsum)
// must pass; a perturbed output must fail.
int main() {
  for (const Case& c : kCases) {
    if (c.rows * c.L > (int64_t{1} << 22)) continue;
    const int64_t n = c.rows * c.L;
    std::vector<float> x = Inputs(n, c.dist, c.L), o(n);
    for (int64_t r = 0; r < c.rows; ++r) {
      double m = -INFINITY, s = 0, hi = 0, lo = 0; int cnt = 0; bool nan = false, pinf = false;
      for (int64_t k = 0; k < c.L; ++k) {
        const int64_t i = r * c.L + (c.reverse ? c.L - 1 - k : k);
        auto out = [&] {
          if (c.lse) {
            if (nan) return NAN; if (pinf) return INFINITY; if (cnt == 0) return -INFINITY;
            if (cnt == 1) return static_cast<float>(m);
            return static_cast<float>(m + std::log(s));
          }
          return static_cast<float>(hi + lo);
        };
        if (c.exclusive) o[i] = out();
        const float v = x[i];
        if (c.lse) {
          if (v != v) nan = true; else if (v == INFINITY) pinf = true;
          else if (v != -INFINITY) { ++cnt; if (v > m) { s = s * std::exp(m - v) + 1; m = v; } else s += std::exp(v - m); }
        } else { const double t = hi + v, bb = t - hi; lo += (hi - (t - bb)) + (v - bb); hi = t; }
        if (!c.exclusive) o[i] = out();
      }
    }
    const double e1 = c.lse ? CheckLse(x, o, c.rows, c.L, c.exclusive, c.reverse) : CheckCumsum(x, o, c.rows, c.L, c.exclusive, c.reverse);
    if (c.dist == Dist::kCross) {  // the GPU suite's failure: 8.8e-9 off an output of 3.4e-6 must fail
      int64_t at = -1;
      for (int64_t i = 0; i < n; ++i) {
        if (std::fabs(o[i]) >= 1e-6f && (at < 0 || std::fabs(o[i]) < std::fabs(o[at]))) at = i;
      }
      std::vector<float> p = o;
      p[at] += 8.8e-9f;
      std::printf("%-40s nearest 0: %.3g, 8.8e-9 off it: %.3g\n", c.name, o[at], CheckLse(x, p, c.rows, c.L, c.exclusive, c.reverse));
    }
    o[n / 2 + 7] = std::nextafter(std::nextafter(std::nextafter(o[n / 2 + 7], INFINITY), INFINITY), INFINITY);
    o[n / 2 + 8] *= 1.001f;
    const double e2 = c.lse ? CheckLse(x, o, c.rows, c.L, c.exclusive, c.reverse) : CheckCumsum(x, o, c.rows, c.L, c.exclusive, c.reverse);
    std::printf("%-40s correct %.3g  perturbed %.3g\n", c.name, e1, e2);
  }
}
