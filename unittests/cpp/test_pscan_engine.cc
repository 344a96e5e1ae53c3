// pscan's pieces below the Python API: FastDivMod (the gate indexing) against plain
// division, and the pscan (gate, value) op on the CPU engine's three-phase path (the chunk
// shrunk to 1024 steps) against a serial loop, bitwise the same on 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/impl/pscan_ops.h"
#include "kernels/util/fast_divmod.h"

namespace {

using phi::funcs::FastDivMod;
using phi::funcs::ScanLayout;

TEST(FastDivMod, MatchesDivisionOverTheInt64Range) {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> divisors = {1, 2, 3, 5, 7, 31, 32, 33, 1536, 4096, 4097, 65535, 1000003,
                                         (int64_t{1} << 31) - 1, (int64_t{1} << 32) + 1,
                                         (int64_t{1} << 40) + 12345, (int64_t{1} << 62) + 3, kMax};
  std::mt19937_64 rng(42);
  for (int64_t d : divisors) {
    const FastDivMod f(d);
    std::vector<int64_t> ns = {0, 1, d - 1, d, kMax, kMax - 1, kMax - d};
    if (d < kMax) {  // d + 1 would overflow (UB) at kMax
      ns.push_back(d + 1);
      ns.push_back(2 * (d / 2 + 1) - 1);
    }
    for (int i = 0; i < 20000; ++i) {
      ns.push_back(static_cast<int64_t>(rng() >> 1));                       // anywhere below 2^63
      ns.push_back(static_cast<int64_t>(rng() % (uint64_t{1} << 40)));      // typical offsets
    }
    for (int64_t n : ns) {
      if (n < 0) continue;
      ASSERT_EQ(f.Div(n), n / d) << n << " / " << d;
      ASSERT_EQ(f.Mod(n), n % d) << n << " % " << d;
    }
  }
}

struct Restore {
  ~Restore() {
    phi::funcs::SetCpuNumThreads(0);
    phi::funcs::SetCpuScanChunkForTesting(0);
  }
};

// y along T of [N, T, D], a per (n, t) or per element, optional h0; double loop.
std::vector<double> Loop(const std::vector<double>& a, bool per_step, const std::vector<double>& x,
                         const double* h0, int64_t N, int64_t T, int64_t D, bool reverse) {
  std::vector<double> y(x.size());
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t d = 0; d < D; ++d) {
      double h = h0 ? h0[n * D + d] : 0.0;
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = reverse ? T - 1 - s : s;
        const int64_t o = (n * T + t) * D + d;
        const double g = per_step ? a[n * T + t] : a[o];
        h = (s == 0 && !h0) ? x[o] : g * h + x[o];
        y[o] = h;
      }
    }
  }
  return y;
}

TEST(PscanOpCpu, ThreePhaseMatchesLoopAndThreadCounts) {
  Restore restore;
  phi::funcs::SetCpuScanChunkForTesting(1024);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> gate(-1.0, 1.0), val(-2.0, 2.0);
  struct Case {
    int64_t N, T, D;
    bool per_step;
  };
  for (const Case& c : {Case{1, 9000, 1, true}, Case{2, 5000, 3, true}, Case{1, 7000, 70, false}}) {
    for (bool reverse : {false, true}) {
      const int64_t numel = c.N * c.T * c.D;
      std::vector<double> a(c.per_step ? c.N * c.T : numel), x(numel), h0(c.N * c.D);
      for (auto& v : a) v = gate(rng);
      for (auto& v : x) v = val(rng);
      for (auto& v : h0) v = val(rng);
      const std::vector<double> expected = Loop(a, c.per_step, x, h0.data(), c.N, c.T, c.D, reverse);
      std::vector<double> out1(numel), out2(numel);
      for (int threads : {1, 2}) {
        phi::funcs::SetCpuNumThreads(threads);
        phi::funcs::PscanOp<double, double> op;
        op.a = a.data();
        op.x = x.data();
        op.initial_state = h0.data();
        op.out = threads == 1 ? out1.data() : out2.data();
        const ScanLayout l{c.N, c.T, c.D};
        op.index = phi::funcs::PscanIndex(l, c.per_step && c.D != 1);
        phi::funcs::ScanCpu(l, false, reverse, op);
      }
      ASSERT_EQ(0, std::memcmp(out1.data(), out2.data(), numel * sizeof(double)));
      for (int64_t i = 0; i < numel; ++i) {
        ASSERT_NEAR(out1[i], expected[i], 1e-12 * std::max(1.0, std::abs(expected[i]))) << i;
      }
    }
  }
}

}  // namespace
