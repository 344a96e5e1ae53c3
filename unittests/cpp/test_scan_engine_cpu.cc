// Engine-level tests of the CPU scan engine (kernels/funcs/cpu/scan_cpu.h and kernels/funcs/cpu/):
// every path (SIMD rows, SIMD columns, generic) against a long-double serial reference,
// exclusive/reverse, chunk boundaries (the chunk is shrunk to 1024 steps so small inputs
// cross many), bitwise-identical results for 1 and 2 threads, long rows, special values, and a
// user-defined op through the generic three-phase path. No timing here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/cum_scan_fast.h"
#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/common/flags.h"

namespace {

using phi::funcs::ScanLayout;
using LD = long double;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Restores the engine's settings when a test ends.
struct EngineSettings {
  EngineSettings() = default;
  ~EngineSettings() {
    phi::funcs::SetCpuNumThreads(0);
    phi::funcs::SetCpuScanSimdEnabled(true);
    phi::funcs::SetCpuScanChunkForTesting(0);
    paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", "auto");
  }
};

// The instruction sets of the SIMD engine this CPU can run (PADDLE_OPS_CPU_ISA forces each: avx2
// the AVX2 kernels alone, avx512 the same with their AVX-512 blocks); empty without SIMD.
std::vector<const char*> SimdIsas() {
  using phi::funcs::simd::CpuIsa;
  std::vector<const char*> isas;
  if (phi::funcs::CpuScanSimdSupported()) isas.push_back("avx2");
  if (phi::funcs::simd::CpuIsaSupported() >= CpuIsa::kAvx512) isas.push_back("avx512");
  return isas;
}

// For each instruction set of SimdIsas(), with the SIMD paths on: run() at 1 and at 2 threads,
// then check(isa, result at 1 thread, result at 2 threads); stops at a fatal failure.
template <typename Run, typename Check>
void ForEachIsaAtOneAndTwoThreads(Run run, Check check) {
  phi::funcs::SetCpuScanSimdEnabled(true);
  for (const char* isa : SimdIsas()) {
    paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", isa);
    phi::funcs::SetCpuNumThreads(1);
    const auto one = run();
    phi::funcs::SetCpuNumThreads(2);
    const auto two = run();
    check(std::string(isa), one, two);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

template <typename T>
std::vector<T> Random(int64_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& e : v) e = static_cast<T>(d(g));
  return v;
}

// Offsets of one sequence in scan order.
std::vector<int64_t> Sequence(const ScanLayout& l, int64_t o, int64_t c, bool reverse) {
  std::vector<int64_t> s(static_cast<size_t>(l.length));
  for (int64_t i = 0; i < l.length; ++i) {
    const int64_t li = reverse ? l.length - 1 - i : i;
    s[static_cast<size_t>(i)] = (o * l.length + li) * l.inner + c;
  }
  return s;
}

template <typename T>
std::vector<LD> RefLse(const std::vector<T>& x, const ScanLayout& l, bool ex, bool rev) {
  std::vector<LD> r(x.size());
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.inner; ++c) {
      LD m = -INFINITY, s = 0;  // value m + log(s)
      bool nan = false;
      for (int64_t off : Sequence(l, o, c, rev)) {
        const LD v = static_cast<LD>(x[static_cast<size_t>(off)]);
        auto value = [&]() -> LD { return nan ? NAN : (std::isinf(m) ? m : m + logl(s)); };
        if (ex) r[static_cast<size_t>(off)] = value();
        if (std::isnan(v)) {
          nan = true;
        } else if (v == INFINITY) {
          m = INFINITY;
        } else if (v != -INFINITY && m != INFINITY) {
          if (v > m) {
            s = s * expl(m - v) + 1;
            m = v;
          } else {
            s += expl(v - m);
          }
        }
        if (!ex) r[static_cast<size_t>(off)] = value();
      }
    }
  }
  return r;
}

// A forward scan op (LogcumsumexpOp, CumsumFloatOp) over x through the CPU engine.
template <template <typename, typename> class Op, typename T>
std::vector<T> RunForward(const std::vector<T>& x, const ScanLayout& l, bool ex, bool rev) {
  std::vector<T> out(x.size());
  Op<T, double> op;
  op.x = x.data();
  op.out = out.data();
  phi::funcs::ScanCpu(l, ex, rev, op);
  return out;
}

template <typename T>
std::vector<T> RunLse(const std::vector<T>& x, const ScanLayout& l, bool ex, bool rev) {
  return RunForward<phi::funcs::LogcumsumexpOp>(x, l, ex, rev);
}

template <typename T>
std::vector<T> RunCumsum(const std::vector<T>& x, const ScanLayout& l, bool ex, bool rev) {
  return RunForward<phi::funcs::CumsumFloatOp>(x, l, ex, rev);
}

template <typename T>
std::vector<T> RunLseGrad(const std::vector<T>& x, const std::vector<T>& o, const std::vector<T>& g,
                          const ScanLayout& l, bool ex, bool rev) {
  std::vector<T> dx(x.size());
  phi::funcs::LogcumsumexpGradOp<T, double> op;
  op.x = x.data();
  op.out = o.data();
  op.out_grad = g.data();
  op.x_grad = dx.data();
  op.exclusive = ex;
  phi::funcs::ScanCpu(l, ex, !rev, op);
  return dx;
}

template <typename T>
void ExpectBitwiseEqual(const std::vector<T>& a, const std::vector<T>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(T)), 0) << what << " index " << i << ": " << a[i] << " vs " << b[i];
  }
}

template <typename T>
void ExpectLseClose(const std::vector<T>& got, const std::vector<LD>& ref, double tol, const std::string& what) {
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    const double r = static_cast<double>(ref[i]);
    if (std::isnan(r)) {
      ASSERT_TRUE(std::isnan(g)) << what << " index " << i;
    } else if (std::isinf(r)) {
      ASSERT_EQ(g, r) << what << " index " << i;
    } else {
      ASSERT_LE(std::fabs(g - r), tol * std::max(1.0, std::fabs(r))) << what << " index " << i << " got " << g
                                                                       << " want " << r;
    }
  }
}

std::string Name(const ScanLayout& l, bool ex, bool rev) {
  return "[" + std::to_string(l.outer) + "," + std::to_string(l.length) + "," + std::to_string(l.inner) + "]" +
         (ex ? " exclusive" : "") + (rev ? " reverse" : "");
}

// Shapes that reach every strategy: one long row (three phases), many short rows, columns
// (8 lanes and a partial group), lengths on both sides of chunk boundaries, row blocks that end
// in every kind of piece (AVX-512 32-step part, AVX2 16-step part, a buffered tail), and short
// rows taken 4 at a time as lanes with a remainder (cumsum's RowsAsLanesSum).
const std::vector<ScanLayout> kLayouts = {
    {1, 5000, 1}, {1, 3 * 1024, 1}, {1, 3 * 1024 + 1, 1}, {37, 129, 1}, {9, 1020, 1}, {3, 2100, 5}, {2, 1500, 8}, {1, 2049, 19},
    {4, 64, 300},
};

// Runs check(l, in, ex, rev) for every layout of kLayouts with both exclusive and both
// directions, the engine's chunk shrunk to 1024 steps (and its settings restored after);
// make(l) draws the layout's inputs `in` once, before its four cases. Stops at the first fatal
// failure, as an ASSERT in the test body would.
template <typename Make, typename Check>
void ForEachLayoutCase(Make make, Check check) {
  EngineSettings restore;
  phi::funcs::SetCpuScanChunkForTesting(1024);
  for (const auto& l : kLayouts) {
    const auto in = make(l);
    for (bool ex : {false, true}) {
      for (bool rev : {false, true}) {
        check(l, in, ex, rev);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

template <typename T>
void CheckLsePaths(double tol) {
  uint64_t seed = 1;
  ForEachLayoutCase([&](const ScanLayout& l) { return Random<T>(l.numel(), -6, 6, seed++); },
                    [&](const ScanLayout& l, const std::vector<T>& x, bool ex, bool rev) {
                      const auto ref = RefLse(x, l, ex, rev);
                      const std::string n = Name(l, ex, rev);
                      ForEachIsaAtOneAndTwoThreads(
                          [&] { return RunLse(x, l, ex, rev); },
                          [&](const std::string& isa, const std::vector<T>& simd1, const std::vector<T>& simd2) {
                            ExpectLseClose(simd1, ref, tol, isa + " " + n);
                            ExpectBitwiseEqual(simd1, simd2, isa + " threads 1 vs 2 " + n);
                          });
                      phi::funcs::SetCpuScanSimdEnabled(false);
                      const auto gen2 = RunLse(x, l, ex, rev);
                      phi::funcs::SetCpuNumThreads(1);
                      const auto gen1 = RunLse(x, l, ex, rev);
                      ExpectLseClose(gen1, ref, tol, "generic " + n);
                      ExpectBitwiseEqual(gen1, gen2, "generic threads 1 vs 2 " + n);
                    });
}

TEST(ScanEngineCpu, LseFloat32AllPathsMatchReference) { CheckLsePaths<float>(2.5e-7); }
TEST(ScanEngineCpu, LseFloat64AllPathsMatchReference) { CheckLsePaths<double>(1e-14); }

TEST(ScanEngineCpu, SimdReportsAvailability) {
  // Not an assertion on the machine: only that disabling works and the query is stable.
  EngineSettings restore;
  const bool supported = phi::funcs::CpuScanSimdSupported();
  phi::funcs::SetCpuScanSimdEnabled(false);
  EXPECT_FALSE(phi::funcs::CpuScanSimdEnabled());
  phi::funcs::SetCpuScanSimdEnabled(true);
  EXPECT_EQ(phi::funcs::CpuScanSimdEnabled(), supported);
  phi::funcs::SetCpuNumThreads(3);
  EXPECT_EQ(phi::funcs::CpuNumThreads(), 3);
}

TEST(ScanEngineCpu, LseSpecialValuesInsideLongRows) {
  EngineSettings restore;
  phi::funcs::SetCpuScanChunkForTesting(1024);
  const int64_t n = 4 * 1024 + 37;
  for (int variant = 0; variant < 5; ++variant) {
    auto x = Random<float>(n, -3, 3, 100 + variant);
    if (variant == 0) {
      for (int64_t i = 0; i < 3000; ++i) x[i] = -INFINITY;  // -inf prefix across chunks
    } else if (variant == 1) {
      x[2500] = NAN;
    } else if (variant == 2) {
      x[1500] = INFINITY;
    } else if (variant == 3) {  // wide range inside blocks: the guard's exact fallback
      auto w = Random<float>(n, -1000, 1000, 7);
      x = w;
    } else {  // a steep ramp: every block raises the max far above the past
      for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(0.75 * i);
    }
    for (const ScanLayout& l : {ScanLayout{1, n, 1}, ScanLayout{1, n / 8, 8}}) {
      std::vector<float> xs(x.begin(), x.begin() + l.numel());
      for (bool ex : {false, true}) {
        for (bool rev : {false, true}) {
          const auto ref = RefLse(xs, l, ex, rev);
          phi::funcs::SetCpuNumThreads(1);
          const auto a = RunLse(xs, l, ex, rev);
          phi::funcs::SetCpuNumThreads(2);
          const auto b = RunLse(xs, l, ex, rev);
          const std::string what = "variant " + std::to_string(variant) + " " + Name(l, ex, rev);
          ExpectLseClose(a, ref, 2.5e-7, what);
          ExpectBitwiseEqual(a, b, what);
        }
      }
    }
  }
}

TEST(ScanEngineCpu, LseLongRowFloat32Accuracy) {
  // 2^22 + 3 elements with the default chunking: one thread streams, two run three phases.
  EngineSettings restore;
  const int64_t n = (int64_t{1} << 22) + 3;
  std::mt19937_64 g(5);
  std::normal_distribution<double> d;
  std::vector<float> x(static_cast<size_t>(n));
  for (auto& v : x) v = static_cast<float>(d(g));
  const ScanLayout l{1, n, 1};
  const auto ref = RefLse(x, l, false, false);
  phi::funcs::SetCpuNumThreads(1);
  const auto a = RunLse(x, l, false, false);
  phi::funcs::SetCpuNumThreads(2);
  const auto b = RunLse(x, l, false, false);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = static_cast<double>(ref[i]);
    worst = std::max(worst, std::fabs(a[i] - r) / std::max(1.0, std::fabs(r)));
  }
  EXPECT_LE(worst, 2.5e-7);
  ExpectBitwiseEqual(a, b, "2^22+3 threads 1 vs 2");
}

// Every output of a (SIMD) and gen (generic) within the type's rounding of a long double sum.
template <typename T>
void CheckCumsumBound(const std::vector<T>& x, const ScanLayout& l, bool ex, bool rev, const std::vector<T>& a,
                      const std::vector<T>& gen, const std::string& what) {
  const int bits = std::numeric_limits<T>::digits - 1;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.inner; ++c) {
      LD acc = 0;
      for (int64_t off : Sequence(l, o, c, rev)) {
        if (!ex) acc += x[off];
        ASSERT_LE(fabsl(a[off] - acc), ldexpl(fabsl(acc), -bits) + 1e-30L) << what << " " << off;
        ASSERT_LE(fabsl(gen[off] - acc), ldexpl(fabsl(acc), -bits) + 1e-30L) << "generic " << what << " " << off;
        if (ex) acc += x[off];
      }
    }
  }
}

// Bitwise the same for 1 and 2 threads, within the type's rounding of a long double sum; the
// SIMD rows (each instruction set this CPU has) against the generic path too (float64: both are
// double-double sums, rounded once).
template <typename T>
void CheckCumsumPathsAndThreads(uint64_t seed) {
  ForEachLayoutCase([&](const ScanLayout& l) { return Random<T>(l.numel(), -1, 1, seed++); },
                    [&](const ScanLayout& l, const std::vector<T>& x, bool ex, bool rev) {
                      phi::funcs::SetCpuScanSimdEnabled(false);
                      phi::funcs::SetCpuNumThreads(1);
                      const auto gen = RunCumsum(x, l, ex, rev);
                      ForEachIsaAtOneAndTwoThreads(
                          [&] { return RunCumsum(x, l, ex, rev); },
                          [&](const std::string& isa, const std::vector<T>& a, const std::vector<T>& b) {
                            const std::string what = isa + " cumsum " + Name(l, ex, rev);
                            ExpectBitwiseEqual(a, b, what);
                            CheckCumsumBound(x, l, ex, rev, a, gen, what);
                          });
                    });
}

// Which float64 layouts the SIMD cumsum takes (it returns false for the generic engine): rows of
// any length, columns in groups of 8 lanes (inner a multiple of 8), not other columns; and none
// with PADDLE_OPS_CPU_ISA=baseline. (A lost fast path shows only as time; this catches it.)
TEST(ScanEngineCpu, CumsumFloat64SimdTakesRowsAndColumnGroups) {
  if (!phi::funcs::CpuScanSimdSupported()) GTEST_SKIP() << "no SIMD engine on this CPU or build";
  EngineSettings restore;
  std::vector<double> x(4096, 1.0), y(4096);
  auto takes = [&](ScanLayout l) {
    return phi::funcs::simd::CumsumScan<double>(x.data(), y.data(), phi::funcs::simd::ScanCall{l, false, false});
  };
  EXPECT_TRUE(takes(ScanLayout{1, 4096, 1}));
  EXPECT_TRUE(takes(ScanLayout{2, 2048, 1}));
  EXPECT_TRUE(takes(ScanLayout{16, 256, 1}));
  EXPECT_TRUE(takes(ScanLayout{1, 256, 16}));
  EXPECT_FALSE(takes(ScanLayout{1, 1024, 4}));
  paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", "baseline");
  EXPECT_FALSE(takes(ScanLayout{1, 4096, 1}));
}

TEST(ScanEngineCpu, CumsumFloat32PathsAndThreads) { CheckCumsumPathsAndThreads<float>(40); }
TEST(ScanEngineCpu, CumsumFloat64PathsAndThreads) { CheckCumsumPathsAndThreads<double>(60); }

// A running sum that sits on a float tie (1 + 2^-24) with a tail far below double precision
// (2^-60) must round up, to 1 + 2^-23: the nearest double is the tie itself, so a float32 sum
// rounded through it would go to even (1.0). Triples (1, 2^-24, 2^-60) followed by their
// negation (-1, -2^-24, -2^-60 brings the sum back to 0 exactly) fill rows and columns long
// enough for the SIMD blocks (every lane and segment meets a tie), in every direction.
TEST(ScanEngineCpu, CumsumFloat32RoundsTiesOnce) {
  const float t = std::ldexp(1.0f, -24), tiny = std::ldexp(1.0f, -60);
  const float up = 1.0f + std::ldexp(1.0f, -23);
  for (const ScanLayout& l : {ScanLayout{1, 6 * 400, 1}, ScanLayout{3, 6 * 17, 1}, ScanLayout{1, 6 * 50, 8}}) {
    std::vector<float> x(l.numel());
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t s = 0; s < l.length; ++s) {
        const float pattern[6] = {1.0f, t, tiny, -1.0f, -t, -tiny};
        for (int64_t c = 0; c < l.inner; ++c) x[(o * l.length + s) * l.inner + c] = pattern[s % 6];
      }
    }
    for (bool rev : {false, true}) {
      const auto out = RunCumsum(x, l, /*ex=*/false, rev);
      ASSERT_EQ(out.size(), x.size());
      for (int64_t o = 0; o < l.outer; ++o) {
        for (int64_t c = 0; c < l.inner; ++c) {
          int64_t k = 0;
          for (int64_t off : Sequence(l, o, c, rev)) {
            // Each run of 6 sums to 0 exactly, so the third prefix of a run is the tie plus the
            // tail: 1 + 2^-24 + 2^-60 forward; reversed (-tiny, -t, -1, ...) its negation.
            if (k % 6 == 2) ASSERT_EQ(out[off], rev ? -up : up) << Name(l, false, rev) << " step " << k;
            ++k;
          }
        }
      }
    }
  }
}

TEST(ScanEngineCpu, LseGradPathsAgreeAndThreads) {
  uint64_t seed = 80;
  using Inputs = std::pair<std::vector<double>, std::vector<double>>;  // (x, out_grad)
  ForEachLayoutCase(
      [&](const ScanLayout& l) {
        Inputs in;
        in.first = Random<double>(l.numel(), -3, 3, seed++);
        in.second = Random<double>(l.numel(), -1, 1, seed++);
        return in;
      },
      [&](const ScanLayout& l, const Inputs& in, bool ex, bool rev) {
        const auto& x = in.first;
        const auto& g = in.second;
        const auto o = RunLse(x, l, ex, rev);
        phi::funcs::SetCpuScanSimdEnabled(false);
        phi::funcs::SetCpuNumThreads(1);
        const auto gen = RunLseGrad(x, o, g, l, ex, rev);
        phi::funcs::SetCpuScanSimdEnabled(true);
        const auto a = RunLseGrad(x, o, g, l, ex, rev);
        phi::funcs::SetCpuNumThreads(2);
        const auto b = RunLseGrad(x, o, g, l, ex, rev);
        ExpectBitwiseEqual(a, b, "grad " + Name(l, ex, rev));
        for (size_t i = 0; i < a.size(); ++i) {
          ASSERT_LE(std::fabs(a[i] - gen[i]), 1e-12 * std::max(1.0, std::fabs(gen[i]))) << Name(l, ex, rev) << " " << i;
        }
      });
}

// float32 gradients take their gates in float lanes (1 + expm1, GateExp8): the SIMD result
// must not depend on the thread count (bitwise) and must stay within the float32 gradient
// bound (docs/spec.md: 1e-5 of max(1, max |ref|)) of the generic path's double gates.
TEST(ScanEngineCpu, LseGradFloat32FloatGatesThreads) {
  uint64_t seed = 500;
  using Inputs = std::pair<std::vector<float>, std::vector<float>>;
  ForEachLayoutCase(
      [&](const ScanLayout& l) {
        Inputs in{Random<float>(l.numel(), -20, 4, seed), Random<float>(l.numel(), -1, 1, seed + 1)};
        seed += 2;
        return in;
      },
      [&](const ScanLayout& l, const Inputs& in, bool ex, bool rev) {
        const auto o = RunLse(in.first, l, ex, rev);
        phi::funcs::SetCpuScanSimdEnabled(false);
        phi::funcs::SetCpuNumThreads(1);
        const auto gen = RunLseGrad(in.first, o, in.second, l, ex, rev);
        phi::funcs::SetCpuScanSimdEnabled(true);
        const auto a = RunLseGrad(in.first, o, in.second, l, ex, rev);
        phi::funcs::SetCpuNumThreads(2);
        const auto b = RunLseGrad(in.first, o, in.second, l, ex, rev);
        ExpectBitwiseEqual(a, b, "float32 grad threads " + Name(l, ex, rev));
        double mx = 1.0;
        for (float v : gen) mx = std::max(mx, std::fabs(static_cast<double>(v)));
        for (size_t i = 0; i < a.size(); ++i) {
          ASSERT_LE(std::fabs(static_cast<double>(a[i]) - gen[i]), 1e-5 * mx) << Name(l, ex, rev) << " " << i;
        }
      });
}

// fp16/bf16 loads and stores go through the run-time dispatched vector conversions
// (kernels/funcs/simd/convert.h): the SIMD engine's results must be bitwise the same with AVX2's
// conversions (F16C) as with the widest set the CPU has (auto: AVX-512's, where present), for
// the gradient of logcumsumexp and cumsum, rows and columns, both directions, both modes, NaN,
// +-inf and ties included, and with 1 or 2 threads; logcumsumexp itself within one unit in the
// last place (AVX-512's rows sum 16 segments where AVX2's sum 8, so its float results may round
// differently before the conversion), and with the same NaN and infinities. (PADDLE_OPS_CPU_ISA=baseline runs the
// generic engine, whose results are not bitwise the SIMD engine's; the conversions themselves are
// checked against the scalar ones in test_convert.cc.)
template <typename T>
std::vector<uint16_t> Bits16(const std::vector<T>& v) {
  std::vector<uint16_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(T));
  return b;
}

template <typename T>
T Of16(uint16_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

template <typename T>
void CheckHalfIsaBitwise() {
  if (!phi::funcs::CpuScanSimdSupported()) GTEST_SKIP() << "no SIMD engine on this CPU or build";
  uint64_t seed = 300;
  using Inputs = std::pair<std::vector<T>, std::vector<T>>;  // (x, out_grad)
  ForEachLayoutCase(
      [&](const ScanLayout& l) {
        Inputs in{Random<T>(l.numel(), -6, 6, seed), Random<T>(l.numel(), -1, 1, seed + 1)};
        seed += 2;
        const T specials[] = {static_cast<T>(NAN), static_cast<T>(INFINITY), static_cast<T>(-INFINITY)};
        for (int k = 0; k < 3 && l.numel() > 64; ++k) in.first[static_cast<size_t>((k + 1) * l.numel() / 5)] = specials[k];
        return in;
      },
      [&](const ScanLayout& l, const Inputs& in, bool ex, bool rev) {
        const char* isas[] = {"avx2", "auto"};
        std::vector<uint16_t> r[2][3];
        for (int isa = 0; isa < 2; ++isa) {
          paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", isas[isa]);
          phi::funcs::SetCpuNumThreads(isa + 1);  // 1 thread with AVX2's conversions, 2 with the widest
          const auto o = RunLse(in.first, l, ex, rev);
          r[isa][0] = Bits16(o);
          r[isa][1] = Bits16(RunLseGrad(in.first, o, in.second, l, ex, rev));
          r[isa][2] = Bits16(RunCumsum(in.first, l, ex, rev));
        }
        const char* what[] = {"logcumsumexp", "logcumsumexp grad", "cumsum"};
        for (size_t i = 0; i < r[0][0].size(); ++i) {  // same sign and class, at most 1 ulp apart
          const int d = static_cast<int>(r[0][0][i]) - static_cast<int>(r[1][0][i]);
          const bool finite = std::isfinite(static_cast<float>(Of16<T>(r[0][0][i])));
          ASSERT_TRUE(d == 0 || (finite && (d == 1 || d == -1))) << "logcumsumexp " << Name(l, ex, rev) << " " << i;
        }
        for (int k = 1; k < 3; ++k) {
          ASSERT_EQ(r[0][k], r[1][k]) << what[k] << " avx2 vs "
                                      << phi::funcs::simd::CpuIsaName(phi::funcs::simd::CpuIsaSupported()) << " "
                                      << Name(l, ex, rev);
        }
      });
}

TEST(ScanEngineCpu, Float16ConversionsBitwiseAcrossIsa) { CheckHalfIsaBitwise<phi::dtype::float16>(); }
TEST(ScanEngineCpu, BFloat16ConversionsBitwiseAcrossIsa) { CheckHalfIsaBitwise<phi::dtype::bfloat16>(); }

// A user-defined op (running max with its position: right_flood's (value, index) shape), run
// through the generic engine on rows long enough for three phases.
struct ArgMaxOp {
  struct State {
    float v;
    int64_t i;
  };
  const float* x;
  State* out;
  State Identity() const { return {-INFINITY, -1}; }
  State Combine(const State& a, const State& b) const { return b.v > a.v ? b : a; }
  State Load(const phi::funcs::ScanPos& p) const { return {x[p.offset], p.offset}; }
  void Store(const phi::funcs::ScanPos& p, const State& s) const { out[p.offset] = s; }
};

TEST(ScanEngineCpu, GenericOpThroughThreePhases) {
  ForEachLayoutCase([](const ScanLayout& l) { return Random<float>(l.numel(), -5, 5, 900 + l.length); },
                    [](const ScanLayout& l, const std::vector<float>& x, bool ex, bool rev) {
                      std::vector<ArgMaxOp::State> a(x.size()), b(x.size());
                      phi::funcs::SetCpuNumThreads(1);
                      phi::funcs::ScanCpu(l, ex, rev, ArgMaxOp{x.data(), a.data()});
                      phi::funcs::SetCpuNumThreads(2);
                      phi::funcs::ScanCpu(l, ex, rev, ArgMaxOp{x.data(), b.data()});
                      for (int64_t o = 0; o < l.outer; ++o) {
                        for (int64_t c = 0; c < l.inner; ++c) {
                          ArgMaxOp::State acc{-INFINITY, -1};
                          for (int64_t off : Sequence(l, o, c, rev)) {
                            if (!ex && x[off] > acc.v) acc = {x[off], off};
                            ASSERT_EQ(a[off].i, acc.i) << Name(l, ex, rev) << " " << off;
                            ASSERT_EQ(b[off].i, acc.i) << Name(l, ex, rev) << " " << off;
                            if (ex && x[off] > acc.v) acc = {x[off], off};
                          }
                        }
                      }
                    });
}

}  // namespace
