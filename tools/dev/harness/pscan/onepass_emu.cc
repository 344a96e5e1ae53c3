// Host emulation of pscan's one-pass columns (kernels/gpu/pscan_onepass.cuh) with the kernel's
// own decomposition (kernels/gpu/pscan_onepass_plan.h: the tickets, the status slots, the chunk
// folds, the low and high block folds, the published block and the carry-in), in float32 with
// pscan's combine, against the float64 sequential recurrence. Per shape:
// - the error, max |out - ref| / (4e-6 S), S = max(1, the recurrence on |a| and |x|) (the
//   harness's and the library's float32 measure; ok <= 1), beside the float32 left-to-right
//   loop's in the same units;
// - every block a tile reads was published by a tile of a smaller ticket (the kernel's
//   progress argument), and no tile reads a block before it is published, when tiles run one
//   after the other in ticket order;
// - the outputs of three schedules are equal bit for bit: each tile whole in ticket order,
//   every tile's first half (aggregate, publication) in ticket order then every second half
//   (carry-in, outputs) in reverse order, and the persistent kernel's (7 blocks, two tickets
//   each, one more per tile, stepped in a random order; a step that would wait retried later;
//   a round where no block can move is reported as a deadlock);
// - a chunk's A is the same in every column (one A per published block).
// No GPU: g++ -O2 -std=c++17 -I. -o build-harness/pscan_onepass_emu tools/dev/harness/pscan/onepass_emu.cc
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/gpu/pscan_onepass_plan.h"
#include "kernels/impl/pscan_ops.h"

namespace {

using phi::funcs::GatedState;
using phi::funcs::PscanCombine;
namespace po = phi::funcs::pscan_onepass;
using State = GatedState<float>;
const PscanCombine<float> kOp{};

struct Shape {
  const char* name;
  int64_t N, T, D;
  int L, C;
  bool reverse, h0;
  float gate_lo, gate_hi;
};

struct Emulation {
  Shape sh;
  po::Plan plan;
  const std::vector<float>&a, &x, &h;
  std::vector<float> A, B, out;
  std::vector<int64_t> writer;  // ticket + 1 of the tile that published a slot, 0: none
  std::vector<State> agg, s_low;  // per tile and column, between the halves
  bool bad = false;

  Emulation(const Shape& s, const std::vector<float>& a_, const std::vector<float>& x_, const std::vector<float>& h_)
      : sh(s), plan(s.N, s.T, s.D, s.L, s.C), a(a_), x(x_), h(h_) {
    const int64_t slots = plan.Groups() * plan.SlotsPerGroup();
    A.assign(slots, NAN);
    B.assign(slots * s.C, NAN);
    writer.assign(slots, 0);
    out.assign(x.size(), NAN);
    agg.resize(plan.Tiles() * s.C);
    s_low.resize(plan.Tiles() * s.C);
  }
  void Fail(const char* what, int64_t ticket) {
    if (!bad) std::printf("  FAIL %s (ticket %lld)\n", what, static_cast<long long>(ticket));
    bad = true;
  }
  // The block at (level, k) of `group`, read by `ticket`'s column j.
  State Get(int64_t ticket, int64_t group, int level, int64_t k, int j) {
    const int64_t slot = plan.Slot(group, level, k);
    if (writer[slot] == 0) Fail("a block read before its publication", ticket);
    if (writer[slot] > ticket) Fail("a block published by a later ticket", ticket);
    return State{A[slot], B[slot * sh.C + j]};
  }
  struct Tile {
    int64_t chunk, group, n, d0, s0, t0, stride;
    int ns;
  };
  Tile TileOf(int64_t ticket) const {
    Tile t;
    plan.TileOf(ticket, &t.chunk, &t.group);
    const int64_t cb = plan.ColBlocks();
    t.n = t.group / cb;
    t.d0 = (t.group - t.n * cb) * sh.C;
    t.s0 = t.chunk * sh.L;
    t.ns = static_cast<int>(std::min<int64_t>(sh.L, sh.T - t.s0));
    t.t0 = sh.reverse ? sh.T - 1 - t.s0 : t.s0;
    t.stride = sh.reverse ? -sh.D : sh.D;
    return t;
  }
  // Item k of the tile in column d (the kernel's `item`: gate 0 and the initial state at the line's first step).
  State Item(const Tile& t, int64_t d, int k) const {
    const int64_t tt = t.t0 + (sh.reverse ? -k : k);
    const int64_t off = (t.n * sh.T + tt) * sh.D + d;
    if (t.chunk == 0 && k == 0) {
      if (sh.h0) return State{0.f, a[t.n * sh.T + tt] * h[t.n * sh.D + d] + x[off]};
      return State{0.f, x[off]};
    }
    return State{a[t.n * sh.T + tt], x[off]};
  }
  template <int kSteps>
  void FirstHalf(int64_t ticket) {
    const Tile t = TileOf(ticket);
    float a0 = NAN;
    for (int j = 0; j < sh.C; ++j) {
      const int64_t d = t.d0 + j;
      if (d >= sh.D) continue;  // an inactive column's aggregate is never read
      const State g = po::FoldChunk<kSteps>(kOp, t.ns, [&](int k) { return Item(t, d, k); });
      State lo = kOp.Identity();
      if (po::LowBits(t.chunk) != 0) {
        lo = po::FoldLow<4>(kOp, t.chunk, [&](int level, int64_t k) { return Get(ticket, t.group, level, k, j); });
      }
      agg[ticket * sh.C + j] = g;
      s_low[ticket * sh.C + j] = lo;
      if (t.chunk + 1 < plan.Chunks()) {
        const State v = po::BlockValue(kOp, t.chunk, lo, g);
        const int level = po::TrailingOnes(t.chunk);
        const int64_t slot = plan.Slot(t.group, level, t.chunk >> level);
        if (j == 0) {
          A[slot] = v.a;
          a0 = v.a;
        } else if (std::memcmp(&a0, &v.a, 4) != 0) {
          Fail("a block's A differs between columns", ticket);
        }
        B[slot * sh.C + j] = v.b;
        writer[slot] = ticket + 1;
      }
    }
  }
  void SecondHalf(int64_t ticket) {
    const Tile t = TileOf(ticket);
    for (int j = 0; j < sh.C; ++j) {
      const int64_t d = t.d0 + j;
      if (d >= sh.D) continue;
      State p_high = kOp.Identity();
      if (po::HighBits(t.chunk) != 0) {
        p_high = po::FoldHigh<4>(kOp, t.chunk, [&](int level, int64_t k) { return Get(ticket, t.group, level, k, j); });
      }
      State carry = po::CarryIn(kOp, t.chunk, p_high, s_low[ticket * sh.C + j]);
      for (int k = 0; k < t.ns; ++k) {
        carry = kOp.Combine(carry, Item(t, d, k));
        out[(t.n * sh.T + t.t0 + (sh.reverse ? -k : k)) * sh.D + d] = carry.b;
      }
    }
  }
  // Whether every block of chunk's `mask` bits is published (the kernel's WaitBlocks would return).
  bool Published(int64_t ticket, uint64_t mask) const {
    const Tile t = TileOf(ticket);
    for (int b = 0; b < 64; ++b) {
      if (((mask >> b) & 1) && writer[plan.Slot(t.group, b, (t.chunk >> b) - 1)] == 0) return false;
    }
    return true;
  }
  // PscanOnePassPersistentKernel's schedule: `blocks` persistent blocks, each taking two tickets
  // and then one more per tile (before the tile's look-back), stepped in a random order; a
  // step that would wait is retried later. False: no block could move (a deadlock).
  template <int kSteps>
  bool RunPersistent(int blocks, uint64_t seed) {
    struct Block {
      int64_t cur = -1, next = -1;
      int phase = 0;  // 0: tickets to take, 1: first half due, 2: second half due, 3: done
    };
    std::vector<Block> bl(blocks);
    int64_t counter = 0;
    const int64_t tiles = plan.Tiles();
    std::mt19937_64 rng(seed);
    for (;;) {
      bool moved = false, all_done = true;
      std::vector<int> order(blocks);
      for (int i = 0; i < blocks; ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      for (int i : order) {
        Block& b = bl[i];
        if (b.phase == 3) continue;
        all_done = false;
        if (b.phase == 0) {
          b.cur = counter++;
          b.next = counter++;
          b.phase = b.cur < tiles ? 1 : 3;
          moved = true;
        } else if (b.phase == 1 && Published(b.cur, po::LowBits(TileOf(b.cur).chunk))) {
          FirstHalf<kSteps>(b.cur);
          b.phase = 2;
          moved = true;
        } else if (b.phase == 2 && Published(b.cur, po::HighBits(TileOf(b.cur).chunk))) {
          SecondHalf(b.cur);
          if (b.next >= tiles) {
            b.phase = 3;
          } else {
            b.cur = b.next;
            b.next = counter++;
            b.phase = 1;
          }
          moved = true;
        }
      }
      if (all_done) return true;
      if (!moved) return false;
    }
  }
  template <int kSteps>
  void Run(bool split) {
    const int64_t tiles = plan.Tiles();
    if (!split) {
      for (int64_t i = 0; i < tiles; ++i) {
        FirstHalf<kSteps>(i);
        SecondHalf(i);
      }
    } else {
      for (int64_t i = 0; i < tiles; ++i) FirstHalf<kSteps>(i);
      for (int64_t i = tiles - 1; i >= 0; --i) SecondHalf(i);
    }
  }
};

// mode 0: tiles whole in ticket order; 1: first halves, then second halves in reverse; 2: the
// persistent blocks (7 of them, random steps).
template <int kSteps>
std::vector<float> Emulate(const Shape& s, const std::vector<float>& a, const std::vector<float>& x,
                           const std::vector<float>& h, int mode, bool* bad) {
  Emulation e(s, a, x, h);
  if (mode == 2) {
    if (!e.RunPersistent<kSteps>(7, 99)) e.Fail("persistent blocks deadlocked", -1);
  } else {
    e.Run<kSteps>(mode == 1);
  }
  *bad |= e.bad;
  return e.out;
}

std::vector<float> EmulateAny(const Shape& s, const std::vector<float>& a, const std::vector<float>& x,
                              const std::vector<float>& h, int mode, bool* bad) {
  switch (s.L) {
    case 16: return Emulate<16>(s, a, x, h, mode, bad);
    case 32: return Emulate<32>(s, a, x, h, mode, bad);
    case 64: return Emulate<64>(s, a, x, h, mode, bad);
  }
  std::printf("unsupported L %d\n", s.L);
  *bad = true;
  return {};
}

}  // namespace

int main() {
  const Shape shapes[] = {
      {"[2, 1000, 300] L32 C256 h0", 2, 1000, 300, 32, 256, false, true, 0.999f, 1.f},
      {"[3, 2500, 520] L64 C128 rev h0", 3, 2500, 520, 64, 128, true, true, 0.999f, 1.f},
      {"[1, 70001, 33] L32 C256", 1, 70001, 33, 32, 256, false, false, 0.999f, 1.f},
      {"[4, 8192, 256] L32 C256 (seed T)", 4, 8192, 256, 32, 256, false, false, 0.999f, 1.f},
      {"[4, 8192, 256] L16 C256 rev", 4, 8192, 256, 16, 256, true, false, 0.999f, 1.f},
      {"[2, 5000, 64] L32 C256 gates U(-1,1)", 2, 5000, 64, 32, 256, false, true, -1.f, 1.f},
      {"[2, 1, 300] L32 C256 (one step)", 2, 1, 300, 32, 256, false, true, 0.999f, 1.f},
      {"[1, 33, 5] L32 C256 (two chunks)", 1, 33, 5, 32, 256, true, false, 0.999f, 1.f},
      {"[2, 64, 40] L16 C128", 2, 64, 40, 16, 128, false, false, 0.999f, 1.f},
  };
  std::mt19937_64 rng(20261129);
  bool all_ok = true;
  std::printf("| shape | chunks | tiles | err (one pass) | err (float32 loop) | schedules equal | ok |\n|---|---|---|---|---|---|---|\n");
  for (const Shape& s : shapes) {
    std::uniform_real_distribution<float> gate(s.gate_lo, s.gate_hi), val(-1.f, 1.f);
    std::vector<float> a(s.N * s.T), x(s.N * s.T * s.D), h(s.h0 ? s.N * s.D : 0);
    for (auto& v : a) v = gate(rng);
    for (auto& v : x) v = val(rng);
    for (auto& v : h) v = val(rng);
    bool bad = false;
    const std::vector<float> seq = EmulateAny(s, a, x, h, 0, &bad);
    const std::vector<float> split = EmulateAny(s, a, x, h, 1, &bad);
    const std::vector<float> pers = EmulateAny(s, a, x, h, 2, &bad);
    const bool same = seq.size() == split.size() && std::memcmp(seq.data(), split.data(), seq.size() * 4) == 0 &&
                      seq.size() == pers.size() && std::memcmp(seq.data(), pers.data(), seq.size() * 4) == 0;
    double err = 0, err_loop = 0;
    for (int64_t line = 0; line < s.N * s.D; ++line) {
      const int64_t o = line / s.D, d = line % s.D;
      double r = 0, m = 0;
      float f = 0;
      for (int64_t k = 0; k < s.T; ++k) {
        const int64_t t = s.reverse ? s.T - 1 - k : k;
        const int64_t off = (o * s.T + t) * s.D + d;
        const double at = a[o * s.T + t];
        if (k == 0) {
          const double h0 = s.h0 ? h[o * s.D + d] : 0.0;
          r = at * h0 + x[off];
          m = std::fabs(at * h0) + std::fabs(x[off]);
          f = s.h0 ? a[o * s.T + t] * h[o * s.D + d] + x[off] : x[off];
        } else {
          r = at * r + x[off];
          m = std::fabs(at) * m + std::fabs(x[off]);
          f = a[o * s.T + t] * f + x[off];
        }
        const double scale = 4e-6 * std::max(1.0, m);
        const double e = std::fabs(seq[off] - r) / scale;
        err = e == e ? std::max(err, e) : INFINITY;
        err_loop = std::max(err_loop, std::fabs(f - r) / scale);
      }
    }
    const po::Plan plan(s.N, s.T, s.D, s.L, s.C);
    const bool ok = !bad && same && err <= 1;
    all_ok &= ok;
    std::printf("| %s | %lld | %lld | %.3g | %.3g | %s | %s |\n", s.name, static_cast<long long>(plan.Chunks()),
                static_cast<long long>(plan.Tiles()), err, err_loop, same ? "yes" : "NO", ok ? "ok" : "FAIL");
  }
  std::printf(all_ok ? "all ok\n" : "FAILED\n");
  return all_ok ? 0 : 1;
}
