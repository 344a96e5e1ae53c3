// The chunked GPU kernels of gla (kernels/gla/chunk_gpu.cuh) run as host code, one
// thread per block (every step between two barriers of those kernels is a block-strided loop,
// so a single thread does a block's whole work in order), against the recurrent form in
// float64: float32, and float16/bfloat16 with their operands rounded as on the GPU (only the
// order of the float32 accumulation differs from the tensor cores'). This checks the kernels'
// indexing (partial chunks and tiles, both layouts) and algebra (exponents, masks, the
// secondary chunks, the state recurrences, the per-chunk sums of gk_grad, the hi/lo operand
// split) on any machine; the wmma products themselves are checked by the GPU tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

// Just enough of CUDA for the kernels to compile as host functions.
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
struct EmulatedDim3 {
  unsigned x = 0, y = 0, z = 0;
};
static EmulatedDim3 threadIdx, blockIdx, blockDim;
inline void __syncthreads() {}
namespace phi {
namespace funcs {
namespace gla {
unsigned char* HostSmem();
}  // namespace gla
}  // namespace funcs
}  // namespace phi

#include "kernels/gla/chunk_gpu.cuh"

namespace phi {
namespace funcs {
namespace gla {
unsigned char* HostSmem() {
  alignas(128) static unsigned char smem[256 * 1024];
  return smem;
}
}  // namespace gla
}  // namespace funcs
}  // namespace phi

namespace {

using phi::GlaShape;
namespace gla = phi::funcs::gla;

// Runs kernel(args...) once per block of the grid, with one thread per block.
template <typename Kernel, typename... Args>
void RunGrid(int64_t gx, int64_t gy, int64_t gz, Kernel kernel, Args... args) {
  blockDim = {1, 1, 1};
  threadIdx = {0, 0, 0};
  for (int64_t z = 0; z < gz; ++z)
    for (int64_t y = 0; y < gy; ++y)
      for (int64_t x = 0; x < gx; ++x) {
        blockIdx = {static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(z)};
        kernel(args...);
      }
}

struct Inputs {
  GlaShape s;
  std::vector<float> q, k, v, g, h0, dout, dfinal;
  float scale;
  int64_t qk_off = 0, v_off = 0;  // a sequence of a varlen call: its first row in the arrays
};

Inputs MakeInputs(int64_t B, int64_t H, int64_t T, int64_t Dk, int64_t Dv, bool head_first, float g_low,
                  bool with_h0, bool with_dfinal, unsigned seed) {
  Inputs in;
  in.s.B = B, in.s.H = H, in.s.T = T, in.s.Dk = Dk, in.s.Dv = Dv, in.s.head_first = head_first;
  in.scale = 1.0f / std::sqrt(static_cast<float>(Dk));
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> decay(g_low, 0.0f);
  auto fill = [&](std::vector<float>* x, int64_t n, bool is_decay) {
    x->resize(n);
    for (auto& e : *x) e = is_decay ? decay(rng) : normal(rng);
  };
  const int64_t nk = B * H * T * Dk, nv = B * H * T * Dv, ns = B * H * Dk * Dv;
  fill(&in.q, nk, false);
  fill(&in.k, nk, false);
  fill(&in.v, nv, false);
  fill(&in.g, nk, true);
  fill(&in.dout, nv, false);
  if (with_h0) fill(&in.h0, ns, false);
  if (with_dfinal) fill(&in.dfinal, ns, false);
  return in;
}

const float* OrNull(const std::vector<float>& x) { return x.empty() ? nullptr : x.data(); }

struct Results {
  std::vector<float> o, fs, dq, dk, dv, dg, dh0;
};

template <typename T>
std::vector<T> As(const std::vector<float>& x) {
  std::vector<T> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = static_cast<T>(x[i]);
  return out;
}

template <typename T>
std::vector<float> Floats(const std::vector<T>& x) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = static_cast<float>(x[i]);
  return out;
}

// The chunked forward and backward in type T, launched as kernels/gla/launch_gpu.cuh launches them
// (kStaged: the intra kernel as on sm_80/sm_90; else as on sm_86/sm_89; likewise kDqkStaged for
// the dq/dk kernel: its operand tiles in shared memory, or in global memory, the grid launched in
// parts of dqk_part blocks as LaunchDqkGlobal launches it).
template <typename T, bool kStaged = true, bool kDqkStaged = true>
Results RunChunked(const Inputs& in, int64_t dqk_part = 3) {
  const GlaShape& s = in.s;
  const int64_t NT = (s.T + gla::kChunk - 1) / gla::kChunk, BH = s.heads();
  const int64_t KT = (s.Dk + gla::kChunk - 1) / gla::kChunk, VT = (s.Dv + gla::kChunk - 1) / gla::kChunk;
  const std::vector<T> q = As<T>(in.q), k = As<T>(in.k), v = As<T>(in.v), g = As<T>(in.g), dout = As<T>(in.dout);
  std::vector<T> o(v.size()), dq(q.size()), dk(q.size()), dv(v.size()), dg(q.size());
  Results r;
  r.fs.assign(BH * s.Dk * s.Dv, NAN);
  std::vector<float> hs(BH * NT * s.Dk * s.Dv), dhs(hs.size()), A(BH * NT * 64 * 64), qdk(q.size()), dks(q.size());
  const float* h0 = OrNull(in.h0);
  const float* dfinal = OrNull(in.dfinal);
  // 1-D grids with the tiles fastest (BlockTile).
  const int64_t sx = BH * KT * VT, ox = BH * NT * VT, dx = BH * NT * KT;
  RunGrid(sx, 1, 1, gla::GlaStateKernel<T, false>, s, (k.data() + in.qk_off), (v.data() + in.v_off), (g.data() + in.qk_off), h0, in.scale, hs.data(),
          r.fs.data());
  RunGrid(BH * NT, 1, 1, gla::GlaIntraKernel<T, kStaged>, s, (q.data() + in.qk_off), (k.data() + in.qk_off), (g.data() + in.qk_off), in.scale, A.data());
  RunGrid(ox, 1, 1, gla::GlaOutputKernel<T, false>, s, (q.data() + in.qk_off), (v.data() + in.v_off), (g.data() + in.qk_off),
          static_cast<const float*>(hs.data()), static_cast<const float*>(A.data()), in.scale, (o.data() + in.v_off));
  // Backward (the forward states and scores are the same).
  if (h0) r.dh0.assign(BH * s.Dk * s.Dv, NAN);
  RunGrid(sx, 1, 1, gla::GlaStateKernel<T, true>, s, (q.data() + in.qk_off), (dout.data() + in.v_off), (g.data() + in.qk_off), dfinal, in.scale,
          dhs.data(), h0 ? r.dh0.data() : nullptr);
  RunGrid(ox, 1, 1, gla::GlaOutputKernel<T, true>, s, (k.data() + in.qk_off), (dout.data() + in.v_off), (g.data() + in.qk_off),
          static_cast<const float*>(dhs.data()), static_cast<const float*>(A.data()), in.scale, (dv.data() + in.v_off));
  if constexpr (kDqkStaged) {
    RunGrid(dx, 1, 1, gla::GlaDqkKernel<T>, s, (q.data() + in.qk_off), (k.data() + in.qk_off), (v.data() + in.v_off), (g.data() + in.qk_off), (dout.data() + in.v_off),
            static_cast<const float*>(hs.data()), static_cast<const float*>(dhs.data()), in.scale, (dq.data() + in.qk_off),
            (dk.data() + in.qk_off), qdk.data(), dks.data());
  } else {
    // Parts of dqk_part blocks sharing one scratch, filled with NaN first: every value the
    // kernel reads from it must be one it wrote.
    using MT = typename gla::Operand<T>::type;
    std::vector<MT> scratch(dqk_part * gla::DqkTileElems<T>());
    for (int64_t first = 0; first < dx; first += dqk_part) {
      for (auto& e : scratch) gla::ToOperand(NAN, &e);
      RunGrid(std::min(dqk_part, dx - first), 1, 1, gla::GlaDqkKernel<T, unsigned, MT*>, s, (q.data() + in.qk_off), (k.data() + in.qk_off),
              (v.data() + in.v_off), (g.data() + in.qk_off), (dout.data() + in.v_off), static_cast<const float*>(hs.data()),
              static_cast<const float*>(dhs.data()), in.scale, (dq.data() + in.qk_off), (dk.data() + in.qk_off), qdk.data(),
              dks.data(), static_cast<unsigned>(first), scratch.data());
    }
  }
  RunGrid(BH * s.Dk, 1, 1, gla::GlaDgKernel<T>, s, static_cast<const float*>(qdk.data()),
          static_cast<const float*>(dks.data()), static_cast<const T*>(k.data() + in.qk_off),
          static_cast<const T*>(g.data() + in.qk_off), static_cast<const float*>(hs.data()),
          static_cast<const float*>(dhs.data()), h0, static_cast<const float*>(OrNull(r.dh0)),
          (dg.data() + in.qk_off));
  r.o = Floats(o), r.dq = Floats(dq), r.dk = Floats(dk), r.dv = Floats(dv), r.dg = Floats(dg);
  return r;
}

// The recurrent form in float64 (the CPU kernels' reference code).
Results RunRecurrent(const Inputs& in) {
  const GlaShape& s = in.s;
  auto wide = [](const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); };
  const std::vector<double> q = wide(in.q), k = wide(in.k), v = wide(in.v), g = wide(in.g), dout = wide(in.dout);
  const float* h0 = OrNull(in.h0);
  const float* dfinal = OrNull(in.dfinal);
  std::vector<double> o(v.size()), dq(q.size()), dk(q.size()), dv(v.size()), dg(q.size());
  Results r;
  r.fs.resize(s.heads() * s.StateSize());
  if (h0) r.dh0.resize(r.fs.size());
  std::vector<double> fwork(s.ForwardWork()), bwork(s.BackwardWork());
  for (int64_t bh = 0; bh < s.heads(); ++bh) {
    const int64_t off = bh * s.StateSize();
    phi::GlaRecurrentForwardHead<double, double>(s, bh, q.data() + in.qk_off, k.data() + in.qk_off,
                                                 v.data() + in.v_off, g.data() + in.qk_off,
                                                 h0 ? h0 + off : nullptr, in.scale, o.data() + in.v_off,
                                                 r.fs.data() + off,
                                                 fwork.data());
    phi::GlaRecurrentBackwardHead<double, double>(s, bh, q.data() + in.qk_off, k.data() + in.qk_off,
                                                  v.data() + in.v_off, g.data() + in.qk_off,
                                                  h0 ? h0 + off : nullptr, dout.data() + in.v_off,
                                                  dfinal ? dfinal + off : nullptr, in.scale, dq.data() + in.qk_off,
                                                  dk.data() + in.qk_off, dv.data() + in.v_off,
                                                  dg.data() + in.qk_off, h0 ? r.dh0.data() + off : nullptr,
                                                  bwork.data());
  }
  auto narrow = [](const std::vector<double>& x) { return std::vector<float>(x.begin(), x.end()); };
  r.o = narrow(o), r.dq = narrow(dq), r.dk = narrow(dk), r.dv = narrow(dv), r.dg = narrow(dg);
  return r;
}

double RelRms(const std::vector<float>& a, const std::vector<float>& b) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    err += std::isfinite(d) ? d * d : INFINITY;
    ref += static_cast<double>(b[i]) * b[i];
  }
  return ref > 0 ? std::sqrt(err / ref) : std::sqrt(err);
}

struct Case {
  int64_t B, H, T, Dk, Dv;
  bool head_first;
  float g_low;
  bool with_h0, with_dfinal;
};

class GlaChunkEmulation : public ::testing::TestWithParam<Case> {};

// docs/spec.md §5: relative RMS error 1e-5 in float32, 4e-3 in the 16-bit types, for o, final_state and
// every gradient (the inputs rounded to the type first, the reference in float64).
template <typename T>
void CheckType(const Case& c, double tol) {
  Inputs in = MakeInputs(c.B, c.H, c.T, c.Dk, c.Dv, c.head_first, c.g_low, c.with_h0, c.with_dfinal,
                         static_cast<unsigned>(c.T * 31 + c.Dk));
  for (auto* x : {&in.q, &in.k, &in.v, &in.g, &in.dout}) *x = Floats(As<T>(*x));
  const Results got = RunChunked<T>(in), want = RunRecurrent(in);
  EXPECT_LE(RelRms(got.o, want.o), tol) << "o";
  EXPECT_LE(RelRms(got.fs, want.fs), tol) << "final_state";
  EXPECT_LE(RelRms(got.dq, want.dq), tol) << "q_grad";
  EXPECT_LE(RelRms(got.dk, want.dk), tol) << "k_grad";
  EXPECT_LE(RelRms(got.dv, want.dv), tol) << "v_grad";
  EXPECT_LE(RelRms(got.dg, want.dg), tol) << "gk_grad";
  if (c.with_h0) EXPECT_LE(RelRms(got.dh0, want.dh0), tol) << "initial_state_grad";
}

TEST_P(GlaChunkEmulation, Float32MatchesTheRecurrentForm) { CheckType<float>(GetParam(), 1e-5); }
TEST_P(GlaChunkEmulation, BFloat16MatchesTheRecurrentForm) { CheckType<phi::dtype::bfloat16>(GetParam(), 4e-3); }
TEST_P(GlaChunkEmulation, Float16MatchesTheRecurrentForm) { CheckType<phi::dtype::float16>(GetParam(), 4e-3); }

// The intra kernel without q and k staged in shared memory (sm_86/sm_89) gives the same bits as
// with them: the staged copies are the inputs' exact values.
template <typename T>
void CheckUnstagedIntra(const Case& c) {
  Inputs in = MakeInputs(c.B, c.H, c.T, c.Dk, c.Dv, c.head_first, c.g_low, c.with_h0, c.with_dfinal,
                         static_cast<unsigned>(c.T * 31 + c.Dk));
  for (auto* x : {&in.q, &in.k, &in.v, &in.g, &in.dout}) *x = Floats(As<T>(*x));
  const Results staged = RunChunked<T, true>(in), unstaged = RunChunked<T, false>(in);
  EXPECT_EQ(unstaged.o, staged.o);
  EXPECT_EQ(unstaged.dq, staged.dq);
  EXPECT_EQ(unstaged.dk, staged.dk);
  EXPECT_EQ(unstaged.dv, staged.dv);
  EXPECT_EQ(unstaged.dg, staged.dg);
}
TEST_P(GlaChunkEmulation, UnstagedIntraGivesTheSameBits) {
  CheckUnstagedIntra<float>(GetParam());
  CheckUnstagedIntra<phi::dtype::bfloat16>(GetParam());
  CheckUnstagedIntra<phi::dtype::float16>(GetParam());
}

// The dq/dk kernel with its operand tiles in global memory (sm_86/sm_89: GlaDqkKernel<T, unsigned, MT*>, the
// grid in parts of 1, 3 and 64 blocks) gives the same bits as with them in shared memory
// (GlaDqkKernel): dq, dk, dv, gk_grad and dh0, byte for byte; with the intra kernel unstaged too
// (the whole backward as those devices run it).
template <typename T>
void CheckGlobalDqkTiles(const Case& c) {
  Inputs in = MakeInputs(c.B, c.H, c.T, c.Dk, c.Dv, c.head_first, c.g_low, c.with_h0, c.with_dfinal,
                         static_cast<unsigned>(c.T * 17 + c.Dv));
  for (auto* x : {&in.q, &in.k, &in.v, &in.g, &in.dout}) *x = Floats(As<T>(*x));
  const Results usual = RunChunked<T, true, true>(in);
  for (int64_t part : {1, 3, 64}) {
    const Results global = RunChunked<T, true, false>(in, part);
    const Results small = RunChunked<T, false, false>(in, part);
    // Byte for byte; an empty result (no h0: dh0) compares equal without memcmp (null data()).
    const auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
      return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    };
    for (const Results* r : {&global, &small}) {
      EXPECT_TRUE(same(r->dq, usual.dq)) << part;
      EXPECT_TRUE(same(r->dk, usual.dk)) << part;
      EXPECT_TRUE(same(r->dv, usual.dv)) << part;
      EXPECT_TRUE(same(r->dg, usual.dg)) << part;
      EXPECT_TRUE(same(r->dh0, usual.dh0)) << part;
      EXPECT_TRUE(same(r->o, usual.o)) << part;
    }
  }
}
TEST_P(GlaChunkEmulation, GlobalDqkTilesGiveTheSameBits) {
  CheckGlobalDqkTiles<float>(GetParam());
  CheckGlobalDqkTiles<phi::dtype::bfloat16>(GetParam());
  CheckGlobalDqkTiles<phi::dtype::float16>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    AwkwardShapes, GlaChunkEmulation,
    ::testing::Values(Case{1, 1, 1, 3, 5, true, -1.f, true, true}, Case{2, 1, 15, 5, 7, false, -1.f, true, false},
                      Case{1, 2, 16, 16, 16, true, -1.f, false, true}, Case{1, 1, 63, 33, 70, true, -1.f, true, true},
                      Case{2, 2, 64, 64, 64, false, -0.5f, false, false},
                      Case{1, 2, 130, 24, 40, true, -1.f, true, true},
                      Case{1, 1, 200, 100, 20, false, -40.f, true, true},
                      Case{1, 1, 129, 128, 130, true, -0.1f, true, true},
                      Case{1, 2, 130, 20, 12, true, -40.f, true, true}));

// Gates at the edge of what the spec allows (-inf, -1e30, and -3e4, beside ordinary ones in the
// same chunks; test_gla_extreme_gates.py on the device): no NaN and no small gate lost in the
// float64 cumulative sums (kGateFloor in chunk_gpu.cuh), float32 and bfloat16.
template <typename T>
void CheckExtremeGates(float gate, double tol) {
  Inputs in = MakeInputs(1, 1, 130, 128, 40, true, -0.5f, true, true, 7u);
  for (size_t i = 0; i < in.g.size(); i += 97) in.g[i] = gate;
  for (auto* x : {&in.q, &in.k, &in.v, &in.g, &in.dout}) *x = Floats(As<T>(*x));
  const Results got = RunChunked<T>(in), want = RunRecurrent(in);
  EXPECT_LE(RelRms(got.o, want.o), tol) << "o, gate " << gate;
  EXPECT_LE(RelRms(got.fs, want.fs), tol) << "final_state, gate " << gate;
  EXPECT_LE(RelRms(got.dq, want.dq), tol) << "q_grad, gate " << gate;
  EXPECT_LE(RelRms(got.dk, want.dk), tol) << "k_grad, gate " << gate;
  EXPECT_LE(RelRms(got.dv, want.dv), tol) << "v_grad, gate " << gate;
  EXPECT_LE(RelRms(got.dg, want.dg), tol) << "gk_grad, gate " << gate;
  EXPECT_LE(RelRms(got.dh0, want.dh0), tol) << "initial_state_grad, gate " << gate;
}

TEST(GlaChunkEmulationGates, ExtremeGatesMatchTheRecurrentForm) {
  for (float gate : {-INFINITY, -1e30f, -3e4f}) {
    CheckExtremeGates<float>(gate, 1e-5);
    CheckExtremeGates<phi::dtype::bfloat16>(gate, 4e-3);
  }
}

// A gate whose factor is 0 on every channel of one step t0 (-inf, -1e30): gk_grad is exactly 0
// at t0 and the reverse sum starts again there (GlaDgKernel, as the recurrent form), so every
// gradient matches the recurrent form's; small Dk, where gk_grad is most sensitive
// (test_zero_factor_gate_cuts_the_gradient on the device).
TEST(GlaChunkEmulationGates, ZeroFactorStepRestartsTheGateGradient) {
  constexpr int64_t kT0 = 20;
  for (float gate : {-INFINITY, -1e30f}) {
    Inputs in = MakeInputs(1, 2, 36, 2, 8, true, -0.06f, true, true, 11u);
    for (int64_t bh = 0; bh < 2; ++bh) {
      for (int64_t c = 0; c < 2; ++c) in.g[in.s.QkRow(bh, kT0) + c] = gate;
    }
    const Results got = RunChunked<float>(in), want = RunRecurrent(in);
    for (int64_t bh = 0; bh < 2; ++bh) {
      for (int64_t c = 0; c < 2; ++c) EXPECT_EQ(got.dg[in.s.QkRow(bh, kT0) + c], 0.f) << "gate " << gate;
    }
    EXPECT_LE(RelRms(got.dg, want.dg), 1e-5) << "gk_grad, gate " << gate;
    EXPECT_LE(RelRms(got.dk, want.dk), 1e-5) << "k_grad, gate " << gate;
    EXPECT_LE(RelRms(got.dh0, want.dh0), 1e-5) << "initial_state_grad, gate " << gate;
  }
}

// float32 gk_grad of strongly decayed channels (docs/spec.md §5), dense normal inputs with a
// final-state gradient: GlaDgKernel sums each chunk's gk_grad from the state before it and the
// gradient after it, so it keeps float32's rounding; the reverse sum carried across the chunks
// (before 2026-11-29) left the final state's share and the last step's k dk, each exp(|gk|)
// times the result, with their rounding in every earlier step (5e-5 at gates near -4, far more
// near -10).
TEST(GlaChunkEmulationGates, StronglyDecayedFloat32GateGradient) {
  for (const auto& [lo, hi] : {std::pair<float, float>{-4.5f, -3.5f}, std::pair<float, float>{-12.f, -8.f}}) {
    for (bool with_dfinal : {true, false}) {
      Inputs in = MakeInputs(1, 2, 150, 128, 64, true, -1.f, true, with_dfinal, 13u);
      std::mt19937 rng(3);
      std::uniform_real_distribution<float> gate(lo, hi);
      for (auto& x : in.g) x = gate(rng);
      const Results got = RunChunked<float>(in), want = RunRecurrent(in);
      EXPECT_LE(RelRms(got.dg, want.dg), 1e-5) << "gk_grad, gates in [" << lo << ", " << hi << "]";
      EXPECT_LE(RelRms(got.dk, want.dk), 1e-5) << "k_grad, gates in [" << lo << ", " << hi << "]";
      EXPECT_LE(RelRms(got.dq, want.dq), 1e-5) << "q_grad, gates in [" << lo << ", " << hi << "]";
    }
  }
}

// A sequence of a varlen call (GlaSequence: B = 1, T its length, head_rows the whole T, the
// pointers at its first row) through the GPU kernels, both layouts, against the recurrent form on
// the same view; the rows outside the sequence stay untouched (0 in both).
TEST(GlaChunkEmulationVarlen, SequenceViewMatchesTheRecurrentForm) {
  for (bool head_first : {true, false}) {
    Inputs in = MakeInputs(1, 2, 150, 24, 40, head_first, -1.f, true, true, 5u);
    const int64_t bos = 37, len = 81;
    in.qk_off = in.s.Row(0, bos, in.s.Dk), in.v_off = in.s.Row(0, bos, in.s.Dv);
    in.s.head_rows = in.s.T, in.s.T = len;
    const Results got = RunChunked<float>(in), want = RunRecurrent(in);
    EXPECT_LE(RelRms(got.o, want.o), 1e-5) << "o, head_first " << head_first;
    EXPECT_LE(RelRms(got.fs, want.fs), 1e-5) << "final_state, head_first " << head_first;
    EXPECT_LE(RelRms(got.dq, want.dq), 1e-5) << "q_grad, head_first " << head_first;
    EXPECT_LE(RelRms(got.dg, want.dg), 1e-5) << "gk_grad, head_first " << head_first;
    EXPECT_LE(RelRms(got.dv, want.dv), 1e-5) << "v_grad, head_first " << head_first;
    double outside = 0;
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t t = 0; t < 150; ++t) {
        if (t >= bos && t < bos + len) continue;
        GlaShape full = in.s;
        full.T = 150, full.head_rows = 0;
        for (int64_t j = 0; j < in.s.Dv; ++j) outside += std::fabs(got.o[full.Row(h, t, in.s.Dv) + j]);
      }
    }
    EXPECT_EQ(outside, 0.0) << "rows outside the sequence written, head_first " << head_first;
  }
}

}  // namespace

// Whether the chunked kernels fit a device with a given shared memory per block (the per-block
// opt-in limits of the architectures the build targets): everything fits sm_80 and sm_90; on
// sm_86/sm_89 the forward fits with the intra kernel unstaged, the backward with the dq/dk
// kernel's operand tiles in global memory (DqkStaged false there, true on sm_80/sm_90); below
// that the recurrent form takes them. float32 only: on the host the 16-bit operands are
// stored as float32, so only float32's sizes are the GPU's (the 16-bit ones are checked by
// static_asserts in launch_gpu.cuh, under nvcc).
TEST(GlaChunkSmem, ChunkedKernelsFitTheDevice) {
  using phi::funcs::gla::ChunkedFits;
  using phi::funcs::gla::ChunkedSmem;
  using phi::funcs::gla::DqkStaged;
  using phi::funcs::gla::IntraStaged;
  constexpr size_t kSm80 = 163 * 1024, kSm86 = 99 * 1024, kSm90 = 227 * 1024;
  EXPECT_EQ((ChunkedSmem<float, false>()), 125952u);         // the intra kernel: 123 KB
  EXPECT_EQ((ChunkedSmem<float, false, false>()), 89088u);   // unstaged: 87 KB
  EXPECT_EQ((ChunkedSmem<float, true>()), 165120u);          // the dq/dk kernel: 161.25 KB
  EXPECT_EQ((ChunkedSmem<float, true, false>()), 91392u);    // its tiles in global memory: 89.25 KB
  for (size_t limit : {kSm80, kSm90}) {
    EXPECT_TRUE((ChunkedFits<float, false>(limit)));
    EXPECT_TRUE((ChunkedFits<float, true>(limit)));
    EXPECT_TRUE(IntraStaged<float>(limit));
    EXPECT_TRUE(DqkStaged<float>(limit));
  }
  EXPECT_TRUE((ChunkedFits<float, false>(kSm86)));
  EXPECT_FALSE(IntraStaged<float>(kSm86));
  EXPECT_TRUE((ChunkedFits<float, true>(kSm86)));
  EXPECT_FALSE(DqkStaged<float>(kSm86));
  EXPECT_TRUE(IntraStaged<float>(125952));  // exactly the size
  EXPECT_FALSE(IntraStaged<float>(125951));
  EXPECT_TRUE(DqkStaged<float>(165120));
  EXPECT_FALSE(DqkStaged<float>(165119));
  EXPECT_TRUE((ChunkedFits<float, true>(91392)));
  EXPECT_FALSE((ChunkedFits<float, true>(91391)));
  EXPECT_FALSE((ChunkedFits<float, false>(48 * 1024)));
  EXPECT_FALSE((ChunkedFits<float, true>(48 * 1024)));
}
