// gla's CPU forms (kernels/gla/chunk_cpu.cc, one Highway source for every target) on their own,
// on every target of this architecture that the CPU runs (PADDLE_OPS_CPU_ISA set to each; the
// others skipped, saying so): the chunked form in float32 against the recurrent form in float64
// (values, the final state and every gradient within docs/spec.md §5's float32 bound, relative
// RMS 1e-5), on shapes with partial chunks, partial secondary chunks and head dims that are not a
// whole number of vectors, both layouts; and with gates at -inf and -1e30 (the chunked form's
// gate floor), where the outputs stay finite and equal to the reference; and with strongly decayed
// gates (gk_grad, docs/spec.md §5). This file is also cross-built for aarch64 and run under qemu
// (tools/dev/test_arm.sh: NEON, SVE, SVE2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/funcs/simd/cpu_isa.h"
#include "kernels/gla/chunk_cpu.h"
#include "paddle_ops/common/flags.h"

namespace {

namespace simd = phi::funcs::simd;
namespace gla_cpu = phi::funcs::gla_cpu;
using phi::GlaShape;

// One call's inputs and everything it computes, in T.
template <typename T>
struct Call {
  GlaShape s;
  std::vector<T> q, k, v, g, dout, o, dq, dk, dv, dg;
  std::vector<float> h0, dfinal, fs, dh0;

  template <typename U>
  explicit Call(const Call<U>& c)
      : s(c.s), q(c.q.begin(), c.q.end()), k(c.k.begin(), c.k.end()), v(c.v.begin(), c.v.end()),
        g(c.g.begin(), c.g.end()), dout(c.dout.begin(), c.dout.end()), h0(c.h0), dfinal(c.dfinal) {}
  Call(const GlaShape& shape, uint64_t seed) : s(shape) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal;
    auto fill = [&](std::vector<T>& x, int64_t D) {
      x.resize(static_cast<size_t>(s.B * s.H * s.T * D));
      for (auto& e : x) e = normal(rng);
    };
    fill(q, s.Dk), fill(k, s.Dk), fill(v, s.Dv), fill(g, s.Dk), fill(dout, s.Dv);
    for (auto& e : g) e = -std::log1p(std::exp(-e)) / 4;  // log-sigmoid decays, in [-inf, 0)
    h0.resize(static_cast<size_t>(s.heads() * s.StateSize()));
    dfinal.resize(h0.size());
    for (auto& e : h0) e = normal(rng);
    for (auto& e : dfinal) e = normal(rng);
  }

  void Run(bool chunked) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.Dk));
    o.assign(v.size(), T(0)), fs.assign(h0.size(), 0.f);
    gla_cpu::Forward<T>(phi::GlaData<T>{s, q.data(), k.data(), v.data(), g.data(), h0.data(), o.data(), fs.data()},
                        scale, chunked);
    dq.assign(q.size(), T(0)), dk.assign(q.size(), T(0)), dv.assign(v.size(), T(0)), dg.assign(q.size(), T(0));
    dh0.assign(h0.size(), 0.f);
    gla_cpu::Backward<T>(phi::GlaGradData<T>{s, q.data(), k.data(), v.data(), g.data(), dout.data(), h0.data(),
                                             dfinal.data(), dq.data(), dk.data(), dv.data(), dg.data(), dh0.data()},
                         scale, chunked);
  }
};

// sqrt(mean((a - e)^2)) / sqrt(mean(e^2)); infinite where a has a non-finite element.
template <typename A, typename E>
double RelRms(const std::vector<A>& a, const std::vector<E>& e) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    if (!std::isfinite(static_cast<double>(a[i]))) return std::numeric_limits<double>::infinity();
    const double d = static_cast<double>(a[i]) - static_cast<double>(e[i]);
    err += d * d, ref += static_cast<double>(e[i]) * static_cast<double>(e[i]);
  }
  return ref > 0 ? std::sqrt(err / ref) : std::sqrt(err);
}

// The chunked float32 call against the recurrent float64 one.
void Check(Call<float> c, const std::string& what) {
  Call<double> ref(c);
  ref.Run(false);
  c.Run(true);
  const double bound = 1e-5;
  EXPECT_LE(RelRms(c.o, ref.o), bound) << what << ": o";
  EXPECT_LE(RelRms(c.fs, ref.fs), bound) << what << ": final_state";
  EXPECT_LE(RelRms(c.dq, ref.dq), bound) << what << ": q_grad";
  EXPECT_LE(RelRms(c.dk, ref.dk), bound) << what << ": k_grad";
  EXPECT_LE(RelRms(c.dv, ref.dv), bound) << what << ": v_grad";
  EXPECT_LE(RelRms(c.dg, ref.dg), bound) << what << ": gk_grad";
  EXPECT_LE(RelRms(c.dh0, ref.dh0), bound) << what << ": initial_state_grad";
}

// Whether the target the flag now allows is `name` (the fallback: emu128 or, where Highway's
// EMU128 is marked broken, scalar).
bool TargetInUseIs(const std::string& name) {
  const std::string in_use = simd::CpuTargetName(simd::CpuTargetInUse());
  return in_use == name || (name == "emu128" && in_use == "scalar");
}

TEST(GlaCpuChunk, ChunkedMatchesRecurrentOnEveryTarget) {
  const std::vector<GlaShape> shapes = {
      {1, 2, 100, 40, 72, true, 0},  // a partial last chunk and secondary chunk, odd head dims
      {2, 1, 67, 33, 17, false, 0},  // [B, T, H, D] rows
      {1, 1, 32, 128, 128, true, 0},
  };
  for (const char* t : {"avx3", "avx2", "sse4", "ssse3", "sve2", "sve", "neon", "emu128"}) {
    try {
      paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", t);
    } catch (const std::exception&) {
      continue;  // another architecture's target
    }
    if (!TargetInUseIs(t)) {
      std::cout << "[  SKIPPED ] target " << t << ": this CPU lacks it\n";
      continue;
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
      Check(Call<float>(shapes[i], 7 + i), std::string(t) + " shape " + std::to_string(i));
    }
    // Gates at -inf and -1e30 (a decay of exactly 0) between ordinary ones.
    Call<float> extreme(shapes[0], 3);
    for (size_t i = 0; i < extreme.g.size(); i += 37) extreme.g[i] = -std::numeric_limits<float>::infinity();
    for (size_t i = 5; i < extreme.g.size(); i += 41) extreme.g[i] = -1e30f;
    Check(extreme, std::string(t) + " extreme gates");
    // Strongly decayed channels (gates near -4 and -10), a final-state gradient: gk_grad's terms are
    // far larger than it (docs/spec.md §5; the reverse sum carried across the chunks was 4e-5 and
    // 2e-2 off here).
    for (float shift : {4.f, 10.f}) {
      Call<float> decayed(shapes[0], 5);
      for (auto& e : decayed.g) e -= shift;
      Check(decayed, std::string(t) + " gates below -" + std::to_string(static_cast<int>(shift)));
    }
  }
  paddle_ops::flags::SetFlag("PADDLE_OPS_CPU_ISA", "auto");
}

}  // namespace
