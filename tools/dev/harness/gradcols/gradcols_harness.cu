// logcumsumexp's float32 gradient on columns (issue 29): the telescoped thread steps of before
// (GpuTileScan<LogcumsumexpGradOp<float, double>>::ThreadTelescoped) against LseGradColumns
// (kernels/gpu/logcumsumexp_grad_rows.cuh: per-element gates, float64 recurrence), side by side in
// one binary, both through the engine's three column phases as ColumnScanKernel runs them (segment
// totals, ScanSegmentTotals, the segments again from their prefixes), in a few chunk sizes and
// blocks-per-SM bounds; and the library's own route (ScanGpuLaunch: `lib`, built here with
// -DPO_LSE_GRAD_COLS=1, so its three phases, one pass and one-segment columns take the new steps).
// Each case: x from a distribution (N(0, 2), -inf runs, NaN, +inf, near 0, crossing 0, far below
// 0, jumps), out its forward (long double, rounded to float), out_grad ~ N(0, 1); checked against
// the op's own recurrence in long double on those outputs (docs/spec.md §1, gradient: err in units
// of 1e-6 of the same recurrence over |out_grad|, ok <= 10; NaN, +-inf and the exact zeros (x =
// -inf, an exclusive scan's first step) must match), run twice (same bits), timed x a copy of the
// tensor (float32, read + write).
// Build: bash tools/dev/harness/build.sh gradcols (HARNESS_NVCC_FLAGS="-DPO_LSE_GRAD_COLS=1");
// run: gradcols_harness [--only <substring of the case name>] [--no-check] [--small: two small cases,
// untimed, for compute-sanitizer] [--lib-only: the library's route alone]
#include "tools/dev/harness/harness.cuh"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)

#include <cmath>
#include <limits>

#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "tools/dev/harness/lse_grad_ref.h"

namespace sg = phi::funcs::scan_gpu;
using Op = phi::funcs::LogcumsumexpGradOp<float, double>;
using State = Op::State;
using Tiles = sg::GpuTileScan<Op>;

// ColumnScanKernel with the thread steps picked: kNew LseGradColumns (kLean: LseGradColMath's
// arithmetic, else LseGradRowMath's), else the telescoped chunks.
template <int kPhase, int kItems, bool kNew, int kMinBlocks, bool kLean = true>
__global__ void __launch_bounds__(sg::ScanPolicy::kThreads, kMinBlocks)
    GcColumnKernel(Op op, sg::LineGeometry g, int64_t lines, int64_t nseg, int64_t seg_len, State* totals,
                   bool exclusive) {
  const int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (t >= lines * nseg) return;
  const int64_t seg = t / lines, ln = t - seg * lines;
  const int64_t s0 = seg * seg_len, s1 = s0 + seg_len < g.length ? s0 + seg_len : g.length;
  const sg::OpLine<Op> line{op, g, g.Base(ln)};
  constexpr bool kStore = kPhase != 1;
  State carry = kPhase == 3 ? totals[ln * nseg + seg] : op.Identity();
  if (kNew) {
    carry = sg::LseGradColumns::ThreadSteps<kItems, kStore, kLean>(op, line, s0, s1, carry, exclusive);
  } else {
    carry = Tiles::template ThreadTelescoped<kItems, kStore>(op, line, s0, s1, carry, exclusive);
  }
  if (kPhase == 1) totals[ln * nseg + seg] = carry;
}

// The three phases as ScanColumnsThreePhase launches them (its segment count).
template <int kItems, bool kNew, int kMinBlocks, bool kLean = true, int kItems1 = kItems>
void ThreePhases(cudaStream_t stream, harness::Scratch& scratch, const sg::LineGeometry& g, int64_t lines,
                 bool exclusive, const Op& op) {
  constexpr int64_t kTarget = sg::TileColumnThreads<Tiles>::value;
  int64_t nseg = 1;
  if (lines < kTarget) {
    nseg = std::min({(kTarget + lines - 1) / lines, sg::ScanPolicy::kMaxColumnSegments, (g.length + 63) / 64});
    nseg = std::max<int64_t>(nseg, 1);
  }
  const int64_t seg_len = (g.length + nseg - 1) / nseg;
  nseg = (g.length + seg_len - 1) / seg_len;
  const unsigned blocks = sg::Blocks(lines * nseg);
  if (nseg == 1) {
    GcColumnKernel<0, kItems, kNew, kMinBlocks, kLean><<<blocks, sg::ScanPolicy::kThreads, 0, stream>>>(
        op, g, lines, 1, seg_len, nullptr, exclusive);
    HARNESS_CHECK(cudaGetLastError());
    return;
  }
  State* totals = static_cast<State*>(scratch(lines * nseg * int64_t{sizeof(State)}));
  GcColumnKernel<1, kItems1, kNew, kMinBlocks, kLean><<<blocks, sg::ScanPolicy::kThreads, 0, stream>>>(
      op, g, lines, nseg, seg_len, totals, exclusive);
  HARNESS_CHECK(cudaGetLastError());
  sg::ScanSegmentTotals(stream, lines, nseg, totals, op);
  GcColumnKernel<3, kItems, kNew, kMinBlocks, kLean><<<blocks, sg::ScanPolicy::kThreads, 0, stream>>>(
      op, g, lines, nseg, seg_len, totals, exclusive);
  HARNESS_CHECK(cudaGetLastError());
}

// The paths: the library's route, the telescoped steps as the library ran them (8 steps a chunk,
// 3 blocks an SM), and LseGradColumns in the three phases: "lean" LseGradColMath's arithmetic,
// "row" LseGradRowMath's; i<steps a chunk>/<blocks an SM> (i16:8: 16 steps a chunk for the totals,
// 8 for the stores). "1p k<steps> g<lines>/<blocks an SM>": the one pass of scan_columns.cuh
// (OnePassColumns) with the op's thread steps (ThreadColumnSteps: each element read from DRAM
// once, 16 bytes against the three phases' 24), here on whichever steps the build's
// PO_LSE_GRAD_COLS picks (new binary: LseGradColumns; old: the telescoped chunks).
enum class Path { kLib, kOld8, kRow8mb4, kNew8, kNew8mb4, kNew16mb4, kNew16x8mb4, kNew8mb5, kNew4mb5,
                  k1pK16G32, k1pK32G32, k1pK16G64, k1pK8G32 };
static const char* PathName(Path p) {
  switch (p) {
    case Path::kLib: return "lib";
    case Path::kOld8: return "3p old i8/3";
    case Path::kRow8mb4: return "3p row i8/4";
    case Path::kNew8: return "3p lean i8/3";
    case Path::kNew8mb4: return "3p lean i8/4";
    case Path::kNew16mb4: return "3p lean i16/4";
    case Path::kNew16x8mb4: return "3p lean i16:8/4";
    case Path::kNew8mb5: return "3p lean i8/5";
    case Path::kNew4mb5: return "3p lean i4/5";
    case Path::k1pK16G32: return "1p k16 g32/4";
    case Path::k1pK32G32: return "1p k32 g32/4";
    case Path::k1pK16G64: return "1p k16 g64/4";
    case Path::k1pK8G32: return "1p k8 g32/4";
  }
  return "?";
}

using harness::Shape;

struct Options {
  bool check = true, small = false, lib_only = false;
  std::vector<std::string> only;
} g_opt;

// x's distributions: the benchmark's N(0, 2), and the awkward ones.
enum class Data { kNormal, kNegInfRuns, kNaN, kPosInf, kNear0, kCross0, kNeg, kJumps };
static const char* DataName(Data d) {
  switch (d) {
    case Data::kNormal: return "";
    case Data::kNegInfRuns: return " -inf runs";
    case Data::kNaN: return " nan";
    case Data::kPosInf: return " +inf";
    case Data::kNear0: return " near0";
    case Data::kCross0: return " cross0";
    case Data::kNeg: return " neg";
    case Data::kJumps: return " jumps";
  }
  return "";
}

// x in each line's forward order (the runs of -inf lie along the lines: a forward's leading run,
// some lines' whole, and runs inside), and out_grad ~ N(0, 1); each line from its own generator
// (seeded by the case and the line: the lines in parallel, the data the same every run).
static uint64_t g_case_seed = 20261130;
static void MakeData(Data d, const Shape& s, bool fwd_reverse, std::vector<float>& x, std::vector<float>& og) {
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t L = s.length, lines = s.outer * s.inner;
  x.assign(s.numel(), 0.f);
  og.assign(s.numel(), 0.f);
  const uint64_t seed = g_case_seed++ * 0x9E3779B97F4A7C15ull;
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t ln = 0; ln < lines; ++ln) {
    std::mt19937_64 rng(seed ^ static_cast<uint64_t>(ln));
    std::normal_distribution<float> normal(0.f, 2.f), neg(-30.f, 3.f), unit(0.f, 1.f);
    std::uniform_real_distribution<float> near0(-4.f, 0.5f), cross0(-14.f, -6.f), u(0.f, 1.f);
    const int64_t base = ln / s.inner * L * s.inner + ln % s.inner;
    int64_t run = 0;
    if (d == Data::kNegInfRuns) {
      const float r = u(rng);
      run = r < 0.05f ? L : r < 0.4f ? static_cast<int64_t>(u(rng) * static_cast<float>(L)) : 0;
    }
    for (int64_t k = 0; k < L; ++k) {
      const int64_t off = base + (fwd_reverse ? L - 1 - k : k) * s.inner;
      float v = 0.f;
      switch (d) {
        case Data::kNormal: v = normal(rng); break;
        case Data::kNegInfRuns:
          if (run == 0 && u(rng) < 0.01f) run = 1 + static_cast<int64_t>(u(rng) * 300.f);
          v = run > 0 ? -inf : normal(rng);
          if (run > 0) --run;
          break;
        case Data::kNaN: v = u(rng) < 2e-4f ? std::numeric_limits<float>::quiet_NaN() : normal(rng); break;
        case Data::kPosInf: v = u(rng) < 2e-4f ? inf : normal(rng); break;
        case Data::kNear0: v = near0(rng); break;
        case Data::kCross0: v = cross0(rng); break;
        case Data::kNeg: v = neg(rng); break;
        case Data::kJumps: v = u(rng) < 0.003f ? 8.f + 12.f * u(rng) : normal(rng); break;  // gates far below 1
      }
      x[off] = v;
      og[off] = unit(rng);
    }
  }
}

void Case(const Shape& s, Data d, bool exclusive, bool fwd_reverse, const std::vector<Path>& paths,
          cudaStream_t stream) {
  std::string name = std::string("lse grad f32 ") + s.name + DataName(d);
  if (exclusive) name += " excl";
  if (fwd_reverse) name += " rev";
  if (!harness::Selected(g_opt.only, name)) return;
  const int64_t n = s.numel();
  const double copy_ms = g_opt.small ? NAN : harness::CopyMs(stream, n * 4);
  std::vector<float> hx, ho, hg;
  MakeData(d, s, fwd_reverse, hx, hg);
  harness::LseForward(s.outer, s.length, s.inner, fwd_reverse, exclusive, hx, ho);
  harness::LseGradTensors t(hx, ho, hg);
  Op op = t.MakeOp<Op>(exclusive);
  const phi::funcs::ScanLayout l{s.outer, s.length, s.inner};
  const sg::LineGeometry geo{s.length, s.inner, !fwd_reverse};
  const int64_t lines = s.outer * s.inner;
  for (Path path : paths) {
    if (g_opt.lib_only && path != Path::kLib) continue;
    harness::Scratch scratch;
    auto launch = [&] {
      scratch.Begin();
      switch (path) {
        case Path::kLib: phi::funcs::ScanGpuLaunch(stream, scratch, l, exclusive, !fwd_reverse, op); break;
        case Path::kOld8: ThreePhases<8, false, 3>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::kRow8mb4: ThreePhases<8, true, 4, false>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::kNew8: ThreePhases<8, true, 3>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::kNew8mb4: ThreePhases<8, true, 4>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::kNew16mb4: ThreePhases<16, true, 4>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::kNew16x8mb4: ThreePhases<8, true, 4, true, 16>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::kNew8mb5: ThreePhases<8, true, 5>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::kNew4mb5: ThreePhases<4, true, 5>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::k1pK16G32: sg::OnePassColumns<sg::ThreadColumnSteps<Op, 16, 32, 4>>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::k1pK32G32: sg::OnePassColumns<sg::ThreadColumnSteps<Op, 32, 32, 4>>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::k1pK16G64: sg::OnePassColumns<sg::ThreadColumnSteps<Op, 16, 64, 4>>(stream, scratch, geo, lines, exclusive, op); break;
        case Path::k1pK8G32: sg::OnePassColumns<sg::ThreadColumnSteps<Op, 8, 32, 4>>(stream, scratch, geo, lines, exclusive, op); break;
      }
    };
    bool same = false;
    const std::vector<float> first = harness::TwoRuns(t.x_grad, scratch, stream, launch, &same);
    double err = NAN;
    if (g_opt.check) {
      err = harness::LseGradError(s.outer, s.length, s.inner, fwd_reverse, exclusive, hx, ho, hg, first);
    }
    const double ms = g_opt.small ? NAN : harness::TimeMs(stream, [&] { launch(); });
    scratch.Release();
    std::string v = PathName(path);
    if (!same) v += " NONDET";
    harness::Row(name, v, ms, copy_ms, err, same && (!g_opt.check || err <= 10.0));
  }
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-check")) g_opt.check = false;
    if (!std::strcmp(argv[i], "--small")) g_opt.small = true;
    if (!std::strcmp(argv[i], "--lib-only")) g_opt.lib_only = true;
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) g_opt.only.push_back(argv[++i]);
  }
  cudaStream_t stream = harness::Start();
  harness::Header();
  const std::vector<Path> all{Path::kLib,       Path::kOld8,        Path::kRow8mb4,  Path::kNew8,
                              Path::kNew8mb4,    Path::kNew16mb4,    Path::kNew16x8mb4, Path::kNew8mb5,
                              Path::kNew4mb5,    Path::k1pK16G32,    Path::k1pK32G32, Path::k1pK16G64,
                              Path::k1pK8G32};
  const std::vector<Path> two{Path::kLib, Path::kOld8, Path::kRow8mb4, Path::kNew8mb4, Path::k1pK16G32};
  // --small: two cases for memcheck / racecheck (untimed).
  if (g_opt.small) {
    const Shape s{"[3, 700, 37] axis 1", 3, 700, 37};
    Case(s, Data::kNegInfRuns, false, false, two, stream);
    Case(s, Data::kJumps, true, true, two, stream);
    return 0;
  }
  // The benchmark shapes: every variant, inclusive; the exclusive reverse form and the awkward data
  // on the old and new steps.
  const Shape big[] = {{"[16384, 4096] axis 0", 1, 16384, 4096}, {"[32, 4, 2048, 128] axis 2", 128, 2048, 128}};
  for (const Shape& s : big) {
    Case(s, Data::kNormal, false, false, all, stream);
    Case(s, Data::kNormal, true, true, two, stream);
  }
  // Awkward shapes: lines off the vector width and the 256-line blocks, lengths off the chunk and
  // the segment, one segment a line (ColumnScanKernel<0>: 2^18 lines), few lines (the library's
  // one pass with the thread steps), tiles across an outer index. Every distribution inclusive;
  // N(0, 2), the -inf runs and the jumps also exclusive, reversed and both.
  const Shape awk[] = {
      {"[37, 1000, 30] axis 1", 37, 1000, 30},       {"[3, 5003, 101] axis 1", 3, 5003, 101},
      {"[4096, 100, 7] axis 1", 4096, 100, 7},       {"[2^17, 16] axis 0", 1, int64_t{1} << 17, 16},
      {"[13, 2^18] axis 0", 1, 13, int64_t{1} << 18}, {"[2048, 1031] axis 0", 1, 2048, 1031},
  };
  const Data datas[] = {Data::kNormal, Data::kNegInfRuns, Data::kNaN,  Data::kPosInf,
                        Data::kNear0,  Data::kCross0,     Data::kNeg, Data::kJumps};
  for (const Shape& s : awk) {
    for (Data d : datas) {
      const bool modes = d == Data::kNormal || d == Data::kNegInfRuns || d == Data::kJumps;
      for (int mode = 0; mode < (modes ? 4 : 1); ++mode) Case(s, d, mode & 1, (mode & 2) != 0, two, stream);
    }
  }
  return 0;
}
