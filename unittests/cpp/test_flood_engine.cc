// right_flood's and repeat_interleave's scan ops (kernels/impl/flood_ops.h) on the CPU engine's
// generic path, the chunk shrunk to 1024 steps so that rows run the three phases: against
// serial loops, bitwise the same on 1 and 2 threads, rows and columns, both directions.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/impl/flood_ops.h"

namespace {

using phi::FloodHole;
using phi::funcs::ScanLayout;

struct Restore {
  ~Restore() {
    phi::funcs::SetCpuNumThreads(0);
    phi::funcs::SetCpuScanChunkForTesting(0);
  }
};

// Values with about `density` zeros (at 0.999 most rows hold a few sources with long runs between).
std::vector<float> Holes(const ScanLayout& l, double density, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<float> x(static_cast<size_t>(l.numel()));
  for (auto& v : x) v = u(g) < density ? 0.f : static_cast<float>(u(g) * 8 - 4 + 0.01);
  return x;
}

struct FloodResult {
  std::vector<float> out;
  std::vector<int64_t> index;
};

FloodResult Engine(const std::vector<float>& x, const ScanLayout& l, bool reverse, int threads) {
  phi::funcs::SetCpuNumThreads(threads);
  FloodResult r{std::vector<float>(x.size()), std::vector<int64_t>(x.size())};
  phi::funcs::RightFloodOp<float> op;
  op.x = x.data();
  op.out = r.out.data();
  op.index = r.index.data();
  op.hole = FloodHole::kZero;
  op.axis = phi::funcs::AxisIndexOf(l);
  phi::funcs::ScanCpu(l, false, reverse, op);
  return r;
}

FloodResult Loop(const std::vector<float>& x, const ScanLayout& l, bool reverse) {
  FloodResult r{std::vector<float>(x.size()), std::vector<int64_t>(x.size())};
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.inner; ++c) {
      int64_t src = -1;
      for (int64_t s = 0; s < l.length; ++s) {
        const int64_t t = reverse ? l.length - 1 - s : s;
        const int64_t off = (o * l.length + t) * l.inner + c;
        if (x[off] != 0.f) src = t;
        r.index[off] = src;
        r.out[off] = src < 0 ? x[off] : x[(o * l.length + src) * l.inner + c];
      }
    }
  }
  return r;
}

TEST(FloodEngineCpu, RightFloodThreePhasesAndThreads) {
  Restore restore;
  phi::funcs::SetCpuScanChunkForTesting(1024);
  const std::vector<ScanLayout> layouts = {{1, 100003, 1}, {3, 20011, 1}, {2, 5003, 7}, {1, 30001, 70}};
  for (const auto& l : layouts) {
    for (double density : {0.7, 0.999}) {
      const auto x = Holes(l, density, 7);
      for (bool reverse : {false, true}) {
        const auto ref = Loop(x, l, reverse);
        const auto one = Engine(x, l, reverse, 1);
        const auto two = Engine(x, l, reverse, 2);
        EXPECT_EQ(one.out, ref.out) << l.outer << "x" << l.length << "x" << l.inner << " reverse " << reverse;
        EXPECT_EQ(one.index, ref.index);
        EXPECT_EQ(two.out, one.out);
        EXPECT_EQ(two.index, one.index);
      }
    }
  }
}

// The gradient with integer-valued out_grad (every sum exact, whatever the grouping).
TEST(FloodEngineCpu, RightFloodGradIsTheRunSum) {
  Restore restore;
  phi::funcs::SetCpuScanChunkForTesting(1024);
  const ScanLayout l{2, 50021, 3};
  const auto x = Holes(l, 0.95, 9);
  std::vector<float> g(x.size());
  std::mt19937_64 gen(3);
  for (auto& v : g) v = static_cast<float>(static_cast<int>(gen() % 9) - 4);
  for (bool reverse : {false, true}) {
    const auto t = Loop(x, l, reverse).index;
    std::vector<double> ref(x.size(), 0.0);
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t s = 0; s < l.length; ++s) {
        for (int64_t c = 0; c < l.inner; ++c) {
          const int64_t off = (o * l.length + s) * l.inner + c;
          if (t[off] >= 0) ref[(o * l.length + t[off]) * l.inner + c] += g[off];
        }
      }
    }
    for (int threads : {1, 2}) {
      phi::funcs::SetCpuNumThreads(threads);
      std::vector<float> dx(x.size(), -1.f);
      phi::funcs::RightFloodGradOp<float, double> op;
      op.x = x.data();
      op.out_grad = g.data();
      op.x_grad = dx.data();
      op.hole = FloodHole::kZero;
      phi::funcs::ScanCpu(l, false, !reverse, op);
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(dx[i], static_cast<float>(ref[i])) << i << " reverse " << reverse;
    }
  }
}

// repeat_interleave's pieces: starts (exclusive scan of the counts), marker, the index flood
// with its gather, and the segment sums, over [outer, M, inner] with three-phase rows.
TEST(FloodEngineCpu, RepeatPiecesMatchLoops) {
  Restore restore;
  phi::funcs::SetCpuScanChunkForTesting(1024);
  std::mt19937_64 gen(5);
  for (int64_t inner : {1, 3}) {
    const int64_t outer = 2, n = 9001;
    std::vector<int32_t> counts(static_cast<size_t>(n));
    for (auto& c : counts) c = static_cast<int32_t>(gen() % 4);  // zeros among them
    counts[17] = 3000;                                           // one long run
    std::vector<int64_t> starts(static_cast<size_t>(n));
    phi::funcs::RepeatStartsOp<int32_t> sop;
    sop.repeats = counts.data();
    sop.broadcast = false;
    sop.n = n;
    sop.starts = starts.data();
    sop.summary = nullptr;
    phi::funcs::ScanCpu(ScanLayout{1, n, 1}, true, false, sop);
    int64_t M = 0;
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(starts[j], M);
      M += counts[j];
    }
    std::vector<int64_t> marker(static_cast<size_t>(M), -1);
    for (int64_t j = 0; j < n; ++j) {
      if (counts[j] > 0) marker[starts[j]] = j;
    }
    std::vector<double> x(static_cast<size_t>(outer * n * inner));
    for (auto& v : x) v = static_cast<double>(static_cast<int>(gen() % 17) - 8);
    std::vector<double> out(static_cast<size_t>(outer * M * inner), -1.0);
    phi::funcs::RepeatGatherOp<double> gop;
    gop.marker = marker.data();
    gop.x = x.data();
    gop.out = out.data();
    gop.index = phi::funcs::RepeatIndex(inner, M, n);
    phi::funcs::SetCpuNumThreads(2);
    phi::funcs::ScanCpu(ScanLayout{outer, M, inner}, false, false, gop);
    std::vector<double> grad(x.size(), 0.0), ref(x.size(), 0.0);
    for (int64_t o = 0; o < outer; ++o) {
      int64_t i = 0;
      for (int64_t j = 0; j < n; ++j) {
        for (int32_t k = 0; k < counts[j]; ++k, ++i) {
          for (int64_t c = 0; c < inner; ++c) {
            ASSERT_EQ(out[(o * M + i) * inner + c], x[(o * n + j) * inner + c]);
            ref[(o * n + j) * inner + c] += out[(o * M + i) * inner + c];
          }
        }
      }
    }
    phi::funcs::RepeatSegmentSumOp<double, double> rop;
    rop.marker = marker.data();
    rop.out_grad = out.data();
    rop.x_grad = grad.data();
    rop.index = phi::funcs::RepeatIndex(inner, M, n);
    phi::funcs::ScanCpu(ScanLayout{outer, M, inner}, false, true, rop);
    EXPECT_EQ(grad, ref);
  }
}

}  // namespace
