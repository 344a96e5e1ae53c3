// cumsum's Highway kernels (kernels/funcs/simd/scan_cumsum.h) on every target of this architecture
// that the CPU runs (PADDLE_OPS_CPU_ISA set to each; the others skipped, saying so), on their own:
// this file is also cross-built for aarch64 and run under qemu (tools/dev/test_arm.sh: NEON, SVE,
// SVE2). Integer-valued inputs, so the exact prefix sums are known (__int128) and the double-double
// of docs/spec.md §2 is exact on them: every output must be the exact sum rounded once to T, bit
// for bit, on every layout path (rows in place and through their tail buffer, short rows as lanes,
// 16-bit rows through float buffers, columns in partial and whole vectors, groups of 8 and of up
// to 256 columns), in every mode, through chunk boundaries and the three-phase split (a shrunk
// chunk, 1 and 2 threads). Cancellation (2^50 against small terms) makes a plain float64 sum wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/funcs/scan_functors.h"
#include "kernels/funcs/simd/cpu_isa.h"
#include "kernels/funcs/simd/scan_cumsum.h"
#include "paddle_ops/common/flags.h"
#include "unittests/cpp/hwy_test_targets.h"

namespace {

namespace simd = phi::funcs::simd;
using phi::dtype::bfloat16;
using phi::dtype::float16;
using phi::funcs::ScanLayout;

// Integer inputs of a few significant bits (exact in T), some scaled by 2^shift (cancelling
// against the small ones).
template <typename T>
std::vector<T> Inputs(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const bool half = !std::is_same<T, float>::value && !std::is_same<T, double>::value;
  const int bits = std::is_same<T, float16>::value ? 3 : std::is_same<T, bfloat16>::value ? 7 : 20;
  const int shift = std::is_same<T, float16>::value ? 0 : half ? 20 : 50;
  std::vector<T> x(static_cast<size_t>(n));
  for (auto& v : x) {
    const int64_t m = static_cast<int64_t>(rng() % (2u << bits)) - (int64_t{1} << bits);
    const bool big = rng() % 8 == 0;
    v = static_cast<T>(static_cast<float>(static_cast<double>(m) * (big ? std::ldexp(1.0, shift) : 1.0)));
  }
  return x;
}

// The exact scan, rounded once to T.
template <typename T>
std::vector<T> Expected(const std::vector<T>& x, const ScanLayout& l, bool exclusive, bool reverse) {
  std::vector<T> y(x.size());
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.inner; ++c) {
      __int128 sum = 0;
      for (int64_t s = 0; s < l.length; ++s) {
        const int64_t i = (o * l.length + (reverse ? l.length - 1 - s : s)) * l.inner + c;
        const __int128 v = static_cast<__int128>(static_cast<double>(static_cast<float>(x[i])));
        if (!exclusive) sum += v;
        const double hi = static_cast<double>(sum);
        const double lo = static_cast<double>(sum - static_cast<__int128>(hi));
        y[i] = phi::funcs::RoundCompensated<T>(hi, lo);
        if (exclusive) sum += v;
      }
    }
  }
  return y;
}

template <typename T>
uint64_t BitsOf(T v) {
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}

template <typename T>
void CheckTarget(const std::string& target) {
  // Small enough for qemu (tools/dev/test_arm.sh); with the 1024-step chunk the long ones cross
  // chunks, and one task of them runs the three-phase split on 2 threads.
  const ScanLayout layouts[] = {{1, 1, 1},   {1, 3, 1},    {1, 17, 1},   {1, 100, 1},  {1, 2500, 1},
                                {3, 1030, 1}, {9, 64, 1},  {2, 1100, 1}, {30, 1, 3},   {2, 130, 8},
                                {1, 40, 24}, {1, 20, 264}, {1, 2100, 8}, {1, 300, 5},  {1, 1100, 20}};
  uint64_t seed = 1;
  for (const ScanLayout& l : layouts) {
    const bool f64_cols = std::is_same<T, double>::value && l.inner != 1 && l.inner % 8 != 0;
    const auto x = Inputs<T>(l.numel(), seed++);
    for (int mode = 0; mode < 4; ++mode) {
      const bool exclusive = mode & 1, reverse = mode & 2;
      const auto want = Expected(x, l, exclusive, reverse);
      for (int threads : {1, 2}) {
        phi::funcs::SetCpuNumThreads(threads);
        std::vector<T> y(x.size(), static_cast<T>(-7.0f));
        const bool took = simd::CumsumVector(x.data(), y.data(), l, exclusive, reverse);
        const std::string what = target + " [" + std::to_string(l.outer) + "," + std::to_string(l.length) + "," +
                                 std::to_string(l.inner) + "] ex=" + std::to_string(exclusive) +
                                 " rev=" + std::to_string(reverse) + " threads=" + std::to_string(threads);
        // emu128 leaves cumsum to the generic engine on x86-64; aarch64's Highway build has no
        // EMU128 code (NEON is its baseline), so the flag runs NEON there.
        if ((target == "emu128" && !HWY_ARCH_ARM_A64) || f64_cols) {
          EXPECT_FALSE(took) << what << ": left to the generic engine";
          continue;
        }
        ASSERT_TRUE(took) << what;
        for (size_t i = 0; i < y.size(); ++i) {
          ASSERT_EQ(BitsOf(y[i]), BitsOf(want[i])) << what << " at " << i << ": " << static_cast<float>(y[i])
                                                   << " want " << static_cast<float>(want[i]);
        }
      }
    }
  }
}

template <typename T>
void CheckAllTargets() {
  paddle_ops_test::ForEachHwyTarget([](const std::string& t) { CheckTarget<T>(t); });
}

TEST(ScanCumsumHwy, Float32ExactOnEveryTarget) { CheckAllTargets<float>(); }
TEST(ScanCumsumHwy, Float64ExactOnEveryTarget) { CheckAllTargets<double>(); }
TEST(ScanCumsumHwy, Float16ExactOnEveryTarget) { CheckAllTargets<float16>(); }
TEST(ScanCumsumHwy, BFloat16ExactOnEveryTarget) { CheckAllTargets<bfloat16>(); }

}  // namespace
