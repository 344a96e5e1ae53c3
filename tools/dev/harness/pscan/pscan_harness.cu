// pscan's kernel harness: the library's launch layer with pscan's tiles (kernels/gpu/pscan_tiles.cuh)
// against the engine's generic tiles on the same op, on the shapes of tools/bench/bench_pscan.py
// (the seed's a [4, T] with x [4, T, 4096], and [8 * 1536, T] rows) and a few awkward ones.
// Every case: gates U(0.999, 1) (per row of D when the gate is [N, T]), x U(-1, 1), outputs
// poisoned, two runs compared bitwise, the number of outputs whose bits differ from the generic
// tiles' ("!= gen": 0 expected on columns, whose tiles keep the generic order; rows' vector
// tiles combine in their own order), a float64 host recurrence (max |out - ref| / (4e-6 S),
// S = max(1, the recurrence on |a| and |x|), the library's float32 measure; ok <= 1), and the
// time against a copy of the bytes
// pscan moves (x and a read, out written; bench_pscan's floor).
// The one-pass columns of a broadcast gate (kernels/gpu/pscan_onepass.cuh, "1p L×C/mb": steps
// per chunk, columns per tile, blocks per SM) run beside them wherever they apply (a [N, T]
// gate), launched directly (the library takes them only with -DPO_PSCAN_ONEPASS=1): checked
// the same way, "!= fast" counts the outputs whose bits differ from the op's tiles' (their
// combination order differs; informative only).
// Build: HARNESS_NVCC_FLAGS='-DPO_PSCAN_...' bash tools/dev/harness/build.sh pscan;
// run: build-harness/pscan_harness [--quick] [--no-check] [--no-onepass] [--no-persistent] [--persistent-only] [--only S]
#include "tools/dev/harness/harness.cuh"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)

#include <cmath>

#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/pscan_tiles.cuh"
#include "paddle_ops/common/common.cc"  // FastDivMod's error type (one nvcc call, no library)

using phi::funcs::ScanLayout;
using Op = phi::funcs::PscanOp<float, float>;
struct GenericPscanOp : Op {};  // the engine's generic tiles

struct Case {
  const char* name;
  int64_t N, T, D;
  bool per_row, reverse;
  bool h0 = false;  // an initial state [N, D]
};

// The one-pass configurations timed: steps per chunk, columns per tile, blocks per SM.
// "1pp": the persistent blocks, two tiles in flight each.
template <int kSteps, int kCols, int kMinBlocks, bool kPersistent = false>
struct OnePassConfig {
  static constexpr bool persistent = kPersistent;
  static std::string Name() {
    return std::string(kPersistent ? "1pp " : "1p ") + std::to_string(kSteps) + "x" + std::to_string(kCols) + "/" +
           std::to_string(kMinBlocks);
  }
  template <typename Scratch>
  static bool Launch(cudaStream_t stream, Scratch& scratch, const ScanLayout& l, bool reverse, const Op& op) {
    return phi::funcs::pscan_onepass::Launch<kSteps, kCols, kMinBlocks, kPersistent>(
        stream, scratch, l.outer, l.length, l.inner, reverse, false, op);
  }
};

int main(int argc, char** argv) {
  bool quick = false, check = true, onepass = true, persistent = true, others = true;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    if (!std::strcmp(argv[i], "--no-check")) check = false;
    if (!std::strcmp(argv[i], "--no-onepass")) onepass = false;
    if (!std::strcmp(argv[i], "--no-persistent")) persistent = false;
    if (!std::strcmp(argv[i], "--persistent-only")) others = false;  // only the "1pp" rows
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only.push_back(argv[++i]);
  }
  cudaStream_t stream = harness::Start();
  const Case cases[] = {
      {"[3, 1001, 5] per row rev", 3, 1001, 5, true, true},
      {"[2, 3000, 7] per element", 2, 3000, 7, false, false},
      {"[1, 70001, 33] per row", 1, 70001, 33, true, false},
      {"[2, 4099, 300] per row h0", 2, 4099, 300, true, false, true},
      {"[3, 2500, 520] per row rev h0", 3, 2500, 520, true, true, true},
      {"seed [4, 8192, 4096]", 4, 8192, 4096, true, false},
      {"[12288, 1024, 1] rows", 12288, 1024, 1, false, false},
      {"[12288, 8192, 1] rows", 12288, 8192, 1, false, false},
  };
  harness::Header();
  for (const Case& c : cases) {
    const bool big = c.N * c.T * c.D > (int64_t{1} << 26);
    if ((quick && big) || !harness::Selected(only, c.name)) continue;
    const int64_t n = c.N * c.T * c.D, na = c.per_row ? c.N * c.T : n, nh = c.h0 ? c.N * c.D : 0;
    std::vector<float> ha(na), hx(n), hh(nh);
    std::uniform_real_distribution<float> gate(0.999f, 1.f), val(-1.f, 1.f);
    for (auto& v : ha) v = gate(harness::Rng());
    for (auto& v : hx) v = val(harness::Rng());
    for (auto& v : hh) v = val(harness::Rng());
    harness::DeviceBuffer<float> a(na), x(n), h0(nh), out(n), gen(n);
    a.Upload(ha);
    x.Upload(hx);
    if (nh) h0.Upload(hh);
    const ScanLayout l{c.N, c.T, c.D};
    auto make = [&](auto op, float* o) {
      op.a = a.p;
      op.x = x.p;
      op.initial_state = nh ? h0.p : nullptr;
      op.out = o;
      op.index = phi::funcs::PscanIndex(l, c.per_row);
      return op;
    };
    const Op fast = make(Op{}, out.p);
    const GenericPscanOp generic = make(GenericPscanOp{}, gen.p);
    harness::Scratch scratch;
    auto run_fast = [&] { scratch.Begin(); phi::funcs::ScanGpuLaunch(stream, scratch, l, false, c.reverse, fast); };
    auto run_gen = [&] { scratch.Begin(); phi::funcs::ScanGpuLaunch(stream, scratch, l, false, c.reverse, generic); };
    // Two poisoned runs of `run` into `buf`: the first's outputs, and whether the second's equal them bit for bit.
    auto twice = [&](auto&& run, harness::DeviceBuffer<float>& buf, bool* same) {
      std::vector<float> first;
      *same = true;
      for (int r = 0; r < 2; ++r) {
        buf.Poison();
        run();
        HARNESS_CHECK(cudaStreamSynchronize(stream));
        if (r == 0) first = buf.Download(); else *same = std::memcmp(first.data(), buf.Download().data(), n * 4) == 0;
      }
      return first;
    };
    auto differ = [&](const std::vector<float>& p, const std::vector<float>& q) {
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) count += std::memcmp(&p[i], &q[i], 4) != 0;
      return count;
    };
    // The float64 recurrence: max |out - ref| / (4e-6 S), S = max(1, the recurrence on |a| and |x|).
    auto error = [&](const std::vector<float>& got) {
      if (!check) return double(NAN);
      double err = 0;
#pragma omp parallel for reduction(max : err)
      for (int64_t line = 0; line < c.N * c.D; ++line) {
        const int64_t o = line / c.D, d = line % c.D;
        double h = 0, m = 0, worst = 0;
        for (int64_t k = 0; k < c.T; ++k) {
          const int64_t t = c.reverse ? c.T - 1 - k : k;
          const int64_t off = (o * c.T + t) * c.D + d;
          const double at = ha[c.per_row ? o * c.T + t : off];
          if (k == 0) {
            h = nh ? at * hh[o * c.D + d] + hx[off] : hx[off];
            m = nh ? std::fabs(at * hh[o * c.D + d]) + std::fabs(hx[off]) : std::fabs(hx[off]);
          } else {
            h = at * h + hx[off];
            m = std::fabs(at) * m + std::fabs(hx[off]);
          }
          const double e = std::fabs(got[off] - h) / (4e-6 * std::max(1.0, m));
          if (!(e <= worst)) worst = e != e ? INFINITY : e;
        }
        err = std::max(err, worst);
      }
      return err;
    };
    bool same = true;
    const std::vector<float> first = twice(run_fast, out, &same);
    gen.Poison();
    run_gen();
    HARNESS_CHECK(cudaStreamSynchronize(stream));
    const std::vector<float> hg = gen.Download();
    const double err = others ? error(first) : NAN;
    const double copy = harness::CopyMs(stream, (2 * n + na) * 4 / 2);
    std::string v = std::string("fast != gen ") + std::to_string(differ(first, hg));
    if (!same) v += " NONDET";
    // The row tiles' own order, and with PO_PSCAN_ONEPASS the one pass's: not held to the generic tiles' bits.
    const bool exact = c.D != 1 && !PO_PSCAN_ONEPASS;
    if (others) {
      harness::Row(c.name, v, harness::TimeMs(stream, run_fast), copy, err,
                   same && (!exact || differ(first, hg) == 0) && (!check || err <= 1));
      harness::Row(c.name, "generic", harness::TimeMs(stream, run_gen), copy, NAN, true);
    }
    // The one-pass configurations, where they apply (a gate broadcast over D).
    auto one = [&](auto config) {
      using Config = decltype(config);
      auto run = [&] { scratch.Begin(); return Config::Launch(stream, scratch, l, c.reverse, fast); };
      scratch.Begin();
      if (!onepass || !c.per_row || (Config::persistent ? !persistent : !others)) return;
      if (!Config::Launch(stream, scratch, l, c.reverse, fast)) return;
      bool det = true;
      const std::vector<float> got = twice(run, out, &det);
      const double e = error(got);
      std::string name = Config::Name() + " != fast " + std::to_string(differ(got, first));
      if (!det) name += " NONDET";
      harness::Row(c.name, name, harness::TimeMs(stream, run), copy, e, det && (!check || e <= 1));
    };
    one(OnePassConfig<32, 256, 4>{});
    one(OnePassConfig<64, 256, 3>{});
    one(OnePassConfig<16, 256, 4>{});
    one(OnePassConfig<32, 128, 8>{});
    one(OnePassConfig<64, 128, 6>{});
    one(OnePassConfig<32, 256, 3, true>{});
    one(OnePassConfig<32, 128, 6, true>{});
    one(OnePassConfig<64, 128, 3, true>{});
    scratch.Release();
  }
  return 0;
}
