// logcumsumexp's Highway kernels and its gradient's (kernels/funcs/simd/scan_logcumsumexp.h) on
// every target of this architecture that the CPU runs (PADDLE_OPS_CPU_ISA set to each; the others
// skipped, saying so), on their own: this file is also cross-built for aarch64 and run under qemu
// (tools/dev/test_arm.sh: NEON, SVE, SVE2). Against a long double reference, within docs/spec.md
// §1's bounds (float32 2.5e-7 relative, 1e-6 of |ref| below 1; float64 1e-14; 16-bit types one ulp
// of the type; one-term prefixes bit for bit; -inf, +inf and NaN rules), on every layout path (rows
// in place and through buffers, the all-float block and its near-zero fallbacks, partial vectors,
// columns in whole and partial vector pairs, column groups), in every mode, through chunk
// boundaries and the three-phase split (a shrunk chunk), with 1 and 2 threads giving the same bits.
// The gradient against the same recurrence in long double, given the forward's rounded outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "kernels/funcs/simd/scan_logcumsumexp.h"
#include "paddle_ops/common/flags.h"
#include "unittests/cpp/hwy_test_targets.h"

namespace {

namespace simd = phi::funcs::simd;
using phi::dtype::bfloat16;
using phi::dtype::float16;
using phi::funcs::ScanLayout;
using LD = long double;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <typename T>
uint64_t BitsOf(T v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}
template <typename T>
double D(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
double D<double>(double v) {
  return v;
}

// Inputs of one of the kinds: 0 uniform in [-6, 6] with some -inf; 1 rising from far below
// (prefixes below 0.5 and outputs crossing 0: the near-zero fallbacks); 2 large and wide
// (-1000 .. 1000); 3 with a NaN and a +inf in some rows.
template <typename T>
std::vector<T> Inputs(const ScanLayout& l, int kind, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-6.0, 6.0);
  std::vector<T> x(static_cast<size_t>(l.numel()));
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t s = static_cast<int64_t>(i) / l.inner % l.length;
    double v = u(rng);
    if (kind == 1) v = -30.0 + 0.05 * static_cast<double>(s % 700) + 0.3 * u(rng);
    if (kind == 2) v *= 160.0;
    if (rng() % 16 == 0) v = -kInf;
    if (kind == 3 && rng() % 997 == 0) v = rng() % 2 ? kInf : std::numeric_limits<double>::quiet_NaN();
    x[i] = static_cast<T>(static_cast<float>(v));
    if (std::is_same<T, double>::value) x[i] = static_cast<T>(v);
  }
  return x;
}

template <typename F>
void ForEachSeq(const ScanLayout& l, bool reverse, F f) {
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.inner; ++c) {
      std::vector<int64_t> idx(static_cast<size_t>(l.length));
      for (int64_t s = 0; s < l.length; ++s) {
        idx[static_cast<size_t>(s)] = (o * l.length + (reverse ? l.length - 1 - s : s)) * l.inner + c;
      }
      f(idx);
    }
  }
}

// The reference in long double; `single` marks outputs whose prefix holds exactly one finite term.
template <typename T>
void Reference(const std::vector<T>& x, const ScanLayout& l, bool exclusive, bool reverse, std::vector<LD>* ref,
               std::vector<char>* single) {
  ref->assign(x.size(), 0);
  single->assign(x.size(), 0);
  ForEachSeq(l, reverse, [&](const std::vector<int64_t>& idx) {
    LD m = -INFINITY, s = 0;
    int terms = 0;
    bool nan = false;
    for (int64_t i : idx) {
      auto out = [&]() -> LD {
        if (nan) return NAN;
        if (m == INFINITY) return INFINITY;
        if (terms == 0) return -INFINITY;
        return m + std::log(s);
      };
      if (exclusive) {
        (*ref)[i] = out();
        (*single)[i] = terms == 1 && !nan && m != INFINITY;
      }
      const LD v = D(x[i]);
      if (std::isnan(v)) {
        nan = true;
      } else if (v != -INFINITY) {
        ++terms;
        if (v == INFINITY || m == INFINITY) {
          m = INFINITY;
        } else if (v > m) {
          s = s * std::exp(m - v) + 1;
          m = v;
        } else {
          s += std::exp(v - m);
        }
      }
      if (!exclusive) {
        (*ref)[i] = out();
        (*single)[i] = terms == 1 && !nan && m != INFINITY;
      }
    }
  });
}

// Whether y is within spec §1 of the reference r.
template <typename T>
bool Within(double y, LD r) {
  if (std::isnan(r)) return std::isnan(y);
  if (std::isinf(r)) return y == static_cast<double>(r);
  const LD err = std::fabs(static_cast<LD>(y) - r), a = std::fabs(r);
  // float64: 1e-14 relative, and 1e-14 * 0.5 absolute below 0.5 (outputs near 0 are m + log(s)
  // with |m| up to the row's max: the old AVX2 kernels and the generic engine miss spec §1's
  // relative 1e-14 there too, 1.1e-13 and 1.4e-14 on rows rising from -30 through 0).
  if (std::is_same<T, double>::value) return err <= 1e-14L * std::max(a, 0.5L);
  if (std::is_same<T, float>::value) {
    if (a >= 1) return err <= 2.5e-7L * a;
    return a < 1e-6L || err <= 1e-6L * a;
  }
  // One ulp of the 16-bit type at r.
  const int bits = std::is_same<T, float16>::value ? 10 : 7;
  int e = 0;
  std::frexp(static_cast<double>(r), &e);
  const LD ulp = std::ldexp(1.0L, std::max(e - 1, std::is_same<T, float16>::value ? -14 : -126) - bits);
  return err <= ulp;
}

// The gradient's reference: the recurrence of spec §1 in long double from the outputs o as given,
// and the same with |out_grad| (the scale of the terms, for the bound).
template <typename T>
void GradReference(const std::vector<T>& x, const std::vector<T>& o, const std::vector<T>& g, const ScanLayout& l,
                   bool exclusive, bool reverse, std::vector<LD>* ref, std::vector<LD>* scale) {
  ref->assign(x.size(), 0);
  scale->assign(x.size(), 0);
  // The gradient runs against the forward's direction.
  ForEachSeq(l, !reverse, [&](const std::vector<int64_t>& idx) {
    LD acc = 0, aacc = 0, onext = 0;
    const size_t n = idx.size();
    for (size_t k = 0; k < n; ++k) {
      const int64_t i = idx[k];
      const LD ok = D(o[i]);
      LD gate = 0;
      if (k > 0) gate = ok == onext ? 1 : std::exp(ok - onext);
      if (ok == -INFINITY) gate = 0;
      const LD acc_prev = acc, aacc_prev = aacc;
      acc = D(g[i]) + gate * acc;
      aacc = std::fabs(static_cast<LD>(D(g[i]))) + gate * aacc;
      const LD xi = D(x[i]);
      if (xi == -INFINITY) {
        (*ref)[i] = 0;
      } else if (exclusive) {
        const LD e = k == 0 ? 0 : std::exp(xi - onext);
        (*ref)[i] = k == 0 ? 0 : acc_prev * e;
        (*scale)[i] = k == 0 ? 0 : aacc_prev * e;
      } else {
        (*ref)[i] = acc * std::exp(xi - ok);
        (*scale)[i] = aacc * std::exp(xi - ok);
      }
      onext = ok;
    }
  });
}

template <typename T>
void CheckTarget(const std::string& target) {
#if HWY_ARCH_ARM_A64  // under qemu (tools/dev/test_arm.sh): fewer, smaller layouts, every path still
  const ScanLayout layouts[] = {{1, 8, 1},  {1, 100, 1}, {1, 128, 1}, {2, 1030, 1}, {9, 64, 1},
                                {2, 200, 4}, {1, 150, 8}, {1, 40, 24}, {1, 60, 5},   {1, 1100, 3}};
#else
  const ScanLayout layouts[] = {{1, 8, 1},    {1, 100, 1},  {1, 128, 1},  {2, 1030, 1}, {1, 2600, 1},
                                {9, 64, 1},   {2, 200, 4},  {1, 300, 8},  {1, 40, 24},  {1, 130, 264},
                                {1, 2100, 8}, {1, 150, 5},  {1, 1100, 3}};
#endif
  const bool x86_fallback = target == "emu128" && !HWY_ARCH_ARM_A64;
  uint64_t seed = 1;
  for (const ScanLayout& l : layouts) {
    for (int kind = 0; kind < 4; ++kind) {
      const auto x = Inputs<T>(l, kind, seed++);
      for (int mode = 0; mode < 4; ++mode) {
        const bool exclusive = mode & 1, reverse = mode & 2;
        std::vector<LD> ref;
        std::vector<char> single;
        Reference(x, l, exclusive, reverse, &ref, &single);
        const std::string what = target + " [" + std::to_string(l.outer) + "," + std::to_string(l.length) + "," +
                                 std::to_string(l.inner) + "] kind=" + std::to_string(kind) +
                                 " ex=" + std::to_string(exclusive) + " rev=" + std::to_string(reverse);
        std::vector<T> y[2];
        for (int threads : {1, 2}) {
          phi::funcs::SetCpuNumThreads(threads);
          y[threads - 1].assign(x.size(), static_cast<T>(-7.0f));
          const bool took = simd::LogcumsumexpVector(x.data(), y[threads - 1].data(), l, exclusive, reverse);
          if (x86_fallback) {
            EXPECT_FALSE(took) << what << ": left to the generic engine";
          } else {
            ASSERT_TRUE(took) << what;
          }
        }
        if (x86_fallback) continue;
        for (size_t i = 0; i < x.size(); ++i) {
          ASSERT_EQ(BitsOf(y[0][i]), BitsOf(y[1][i])) << what << " at " << i << ": 1 and 2 threads differ";
          const double v = D(y[0][i]);
          ASSERT_TRUE(Within<T>(v, ref[i])) << what << " at " << i << ": " << v << " want "
                                            << static_cast<double>(ref[i]);
          if (single[i]) {
            // The one finite term itself, bit for bit: it is an input of the same row.
            ASSERT_EQ(v, static_cast<double>(ref[i])) << what << " at " << i << ": one-term prefix";
          }
        }
        // The gradient from these outputs (kind 3's NaN rows left out: NaN in, NaN out).
        if (kind == 3) continue;
        std::mt19937_64 rng(seed * 7);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        std::vector<T> g(x.size());
        for (auto& v : g) v = static_cast<T>(static_cast<float>(u(rng)));
        std::vector<LD> gref, scale;
        // The gradient's own direction is the opposite of the forward's.
        GradReference(x, y[0], g, l, exclusive, reverse, &gref, &scale);
        std::vector<T> dx[2];
        for (int threads : {1, 2}) {
          phi::funcs::SetCpuNumThreads(threads);
          dx[threads - 1].assign(x.size(), static_cast<T>(-7.0f));
          ASSERT_TRUE(simd::LogcumsumexpGradVector(x.data(), y[0].data(), g.data(), dx[threads - 1].data(), l,
                                                   exclusive, !reverse))
              << what << " (gradient)";
        }
        // Relative to the terms' scale: float outputs' gates carry ~1e-7 |1 - gate| each (spec
        // §1), so a run's product ~1e-7 times its total rise; 16-bit results one ulp of the type
        // and its smallest subnormal.
        const LD tol = std::is_same<T, double>::value ? 1e-13L : std::is_same<T, float>::value ? 1e-5L : 1e-2L;
        const LD tiny = std::is_same<T, float16>::value    ? 0x1p-24L
                        : std::is_same<T, bfloat16>::value ? 0x1p-133L
                        : std::is_same<T, float>::value    ? 0x1p-149L
                                                           : 1e-300L;
        for (size_t i = 0; i < x.size(); ++i) {
          ASSERT_EQ(BitsOf(dx[0][i]), BitsOf(dx[1][i])) << what << " at " << i << ": gradient, 1 and 2 threads";
          const LD err = std::fabs(static_cast<LD>(D(dx[0][i])) - gref[i]);
          ASSERT_LE(err, tol * scale[i] + tiny)
              << what << " at " << i << ": gradient " << D(dx[0][i]) << " want " << static_cast<double>(gref[i]);
        }
      }
    }
  }
}

template <typename T>
void CheckAllTargets() {
  paddle_ops_test::ForEachHwyTarget([](const std::string& t) { CheckTarget<T>(t); });
}

TEST(ScanLogcumsumexpHwy, Float32OnEveryTarget) { CheckAllTargets<float>(); }
TEST(ScanLogcumsumexpHwy, Float64OnEveryTarget) { CheckAllTargets<double>(); }
TEST(ScanLogcumsumexpHwy, Float16OnEveryTarget) { CheckAllTargets<float16>(); }
TEST(ScanLogcumsumexpHwy, BFloat16OnEveryTarget) { CheckAllTargets<bfloat16>(); }

}  // namespace
