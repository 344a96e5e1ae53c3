// The scan engine's kernel harness: the library's launch layer (kernels/funcs/gpu/scan_launch.cuh)
// with the ops' real tiles, on the benchmark shapes of tools/bench/bench_gpu.py, each checked
// against a float64 (or exact integer) host reference, for determinism (two runs, same bits) and
// for outputs left unwritten (poisoned first), and timed against a copy of the same bytes.
// Build: bash tools/dev/harness/build.sh scan; run: build-harness/scan_harness [--quick] [--seg]
// [--types] [--grad] [--columns] [--no-compare] [--strips] [--lookback] [--rows] [--row-target N] [--path <substring of a column path's name>]
// [--only <substring of the case name>]
#include "tools/dev/harness/harness.cuh"

#include <cstdint>

// --row-target N: the engine's row-count target fixed at N rows for every op (0: each op's own).
static int64_t g_row_target = 0;
#define PO_SCAN_ROW_TARGET g_row_target

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)

#include <cmath>
#include <limits>

#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/cumsum_tiles.cuh"
#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"
#include "tools/dev/harness/lse_grad_ref.h"
#include "tools/dev/harness/scan/scan_column_chain.cuh"

using harness::Shape;
using phi::funcs::ScanLayout;

// The shapes after the benchmark's (harness::kBenchShapes).
static const Shape kMoreShapes[] = {
    {"[64, 2^20] last", 64, int64_t{1} << 20, 1},
    // short rows of other lengths (the staged rows, scan_staged_rows.cuh), 2^24 elements each
    {"[2^20, 16] last", int64_t{1} << 20, 16, 1},
    {"[2^19, 32] last", int64_t{1} << 19, 32, 1},
    {"[2^17, 128] last", int64_t{1} << 17, 128, 1},
    {"[2^16, 256] last", int64_t{1} << 16, 256, 1},
    {"[2^15, 512] last", int64_t{1} << 15, 512, 1},
};

// Row counts around the engine's row-count target (--rows): 1,024 to 4,000 rows, long enough for
// the warp segments; --row-target N times each routing on them.
static const Shape kRowCountShapes[] = {
    {"[2048, 16384] last", 2048, 16384, 1}, {"[3072, 8192] last", 3072, 8192, 1},
    {"[2048, 4096] last", 2048, 4096, 1},   {"[4000, 4096] last", 4000, 4096, 1},
    {"[2048, 1024] last", 2048, 1024, 1},   {"[3500, 2048] last", 3500, 2048, 1},
    {"[1024, 16384] last", 1024, 16384, 1}, {"[1536, 8192] last", 1536, 8192, 1},
    {"[1024, 4096] last", 1024, 4096, 1},   {"[1500, 2048] last", 1500, 2048, 1},
};

// Awkward column shapes (--columns): lines off the tile width, lengths off the segment,
// inner not a multiple of the vector width (no vector accesses for 4-byte elements), tiles
// across an outer index, one tile of lines down 4096 segments (a deep look-back tree), and a
// length shorter than one segment.
static const Shape kColumnShapes[] = {
    {"[37, 1000, 30] axis 1", 37, 1000, 30},
    {"[3, 5000, 100] axis 1", 3, 5000, 100},
    {"[2^19, 16] axis 0", 1, int64_t{1} << 19, 16},
    {"[4096, 100, 7] axis 1", 4096, 100, 7},
};

// Rows short enough for the staged rows: with -DPO_SCAN_STAGED_SWITCH each case runs twice on the
// same data, the logical warps ("warps") and the staged rows ("staged").
static bool ShortRows(const Shape& s) { return s.inner == 1 && s.length <= 512 && s.outer > 64; }

// logcumsumexp: max relative error where |ref| >= 0.5 (bound 2.5e-7 for float32) and where
// 1e-6 <= |ref| < 0.5 (bound 1e-6); both folded into one measure, err / bound (ok <= 1).
// float16/bfloat16: one ulp of the output type (spec §1); float64: 1e-14 * max(1, |ref|), as the
// library's tests (unittests/cpp/test_scan_kernels.cc's Near).
template <typename T>
double Ulp(double ref);
template <>
double Ulp<phi::dtype::float16>(double r) {
  return std::ldexp(1.0, std::max(std::ilogb(std::fabs(r)), -14) - 10);
}
template <>
double Ulp<phi::dtype::bfloat16>(double r) {
  return std::ldexp(1.0, std::max(std::ilogb(std::fabs(r)), -126) - 7);
}

template <typename T>
double LseError(const Shape& s, const std::vector<T>& x, const std::vector<T>& out, bool exclusive, bool reverse) {
  return harness::ForEachLine(s.outer, s.length, s.inner, reverse, [&](auto at, double& worst) {
    double m = -INFINITY;
    long double sum = 0;
    for (int64_t k = 0; k < s.length; ++k) {
      const int64_t off = at(k);
      auto value = [&] { return m == -INFINITY ? -INFINITY : m + std::log(static_cast<double>(sum)); };
      double ref = 0;
      if (exclusive) ref = value();
      const double v = static_cast<double>(static_cast<float>(x[off]));
      if (v > m) {
        sum = sum * std::exp(static_cast<long double>(m - v)) + 1.0L;
        m = v;
      } else {
        sum += std::exp(static_cast<long double>(v - m));
      }
      if (!exclusive) ref = value();
      const double o = static_cast<double>(out[off]);
      if (std::isinf(ref)) {
        if (o != ref) worst = INFINITY;
        continue;
      }
      double e;
      if constexpr (std::is_same<T, float>::value) {
        if (std::fabs(ref) < 1e-6) continue;
        const double bound = std::fabs(ref) >= 0.5 ? 2.5e-7 : 1e-6;
        e = std::fabs(o - ref) / std::fabs(ref) / bound;
      } else if constexpr (std::is_same<T, double>::value) {  // as the library's tests: 1e-14 * max(1, |ref|)
        e = std::fabs(o - ref) / std::max(1.0, std::fabs(ref)) / 1e-14;
      } else {
        e = std::fabs(o - ref) / Ulp<T>(ref);
      }
      if (!(e <= worst)) worst = e;  // NaN wins
    }
  });
}

// cumsum float32: the error against a long-double running sum, over the running sum of |x|
// (docs/spec.md §2 measures float32 within 4e-6 of it; this reports err / 4e-6).
// float64: within 1e-14 of the running sum of |x| (err / 1e-14). float16/bfloat16: spec §2's rule
// itself, |out - exact| <= |round(float64 loop) - exact| (exact: the long-double sum), counted
// as violations (ok: none).
template <typename T>
double CumsumError(const Shape& s, const std::vector<T>& x, const std::vector<T>& out, bool exclusive, bool reverse) {
  constexpr bool k16 = !std::is_same<T, float>::value && !std::is_same<T, double>::value;
  constexpr bool k32 = std::is_same<T, float>::value;
  const double unit = k32 ? 4e-6 : 1e-14;
  return harness::ForEachLine(s.outer, s.length, s.inner, reverse, [&](auto at, double& worst) {
    long double sum = 0, mag = 0;
    double loop = 0;
    int64_t beyond = 0;  // float32: outputs further from the exact sum than the rounded float64 loop
    for (int64_t k = 0; k < s.length; ++k) {
      const int64_t off = at(k);
      const double xv = static_cast<double>(x[off]);
      if (!exclusive) sum += xv, mag += std::fabs(xv), loop += xv;
      const double o = static_cast<double>(out[off]);
      if constexpr (k16) {
        const double r64 = static_cast<double>(static_cast<T>(static_cast<float>(loop)));
        const long double slack = 1e-3L * Ulp<T>(static_cast<double>(sum));
        if (std::fabs(o - sum) > std::fabs(r64 - sum) + slack) worst += 1;
      } else {
        if constexpr (k32) {  // spec §2's rule itself; 1e-3 of a float ulp of slack for the long double sum
          const double r64 = static_cast<double>(static_cast<float>(loop));
          const long double ulp = std::ldexp(1.0, std::max(std::ilogb(static_cast<double>(sum)), -126) - 23);
          if (sum != 0 && std::fabs(o - sum) > std::fabs(r64 - sum) + 1e-3L * ulp) ++beyond;
        }
        const double e = std::fabs(static_cast<double>(o - sum)) / std::max(1e-30L, mag) / unit;
        if (!(e <= worst)) worst = e;
      }
      if (exclusive) sum += xv, mag += std::fabs(xv), loop += xv;
    }
    if (beyond > 0) worst = std::max(worst, 1000.0 + static_cast<double>(beyond));  // FAIL, counted
  });
}

// Integer cumsum: the outputs that differ from the exact sum (wrapping as two's complement).
template <typename T>
double IntCumsumError(const Shape& s, const std::vector<T>& x, const std::vector<T>& out, bool exclusive,
                      bool reverse) {
  using U = std::make_unsigned_t<T>;
  return harness::ForEachLine(s.outer, s.length, s.inner, reverse, [&](auto at, double& bad) {
    U sum = 0;
    for (int64_t k = 0; k < s.length; ++k) {
      const int64_t off = at(k);
      if (!exclusive) sum += static_cast<U>(x[off]);
      if (out[off] != static_cast<T>(sum)) bad += 1;
      if (exclusive) sum += static_cast<U>(x[off]);
    }
  });
}

// Column launches to compare (cases with inner > 1; --columns picks the column shapes): the
// library's ScanGpuLaunch ("default": the one pass of scan_columns.cuh below 1024 lines, else
// the three phases), the three phases, the one pass with its default tiles (DefaultColumnSteps)
// and with other tile shapes (register steps: kSteps x kGroups / blocks per SM; thread steps:
// kSteps x kGroups); the 16-bit types take only the first three.
enum class ColumnPath {
  kLibrary, kThreePhase, kOnePass, kAlt1, kAlt2, kAlt3,
  kStrip, kStrip1, kStrip2, kStrip3, kStrip4, kStrip5,  // --strips: the column strips (scan_columns.cuh)
  kStrip6, kStrip7, kStrip8,                            // float32 strips of 16 and 8 lines (not yet run)
  kLb, kLbP, kLb1, kLb2, kLbP1, kLbP2, kLbP3             // --lookback: the chained look-back (scan_column_chain.cuh)
};
static const char* ColumnPathName(ColumnPath c, bool reg) {
  switch (c) {
    case ColumnPath::kThreePhase:
      return "3 phases";
    case ColumnPath::kOnePass:
      return "1p default";
    case ColumnPath::kAlt1:
      return reg ? "1p k8 g16/mb4" : "1p k8 g64";
    case ColumnPath::kAlt2:
      return reg ? "1p k8 g32/mb3" : "1p k32 g32";
    case ColumnPath::kAlt3:
      return reg ? "1p k8 g8/mb3" : "1p k16 g64";
    case ColumnPath::kStrip:
      return "strip default";
    case ColumnPath::kStrip1:
      return "st k8 g8 s2/2";
    case ColumnPath::kStrip2:
      return "st k4 g8 s4/2";
    case ColumnPath::kStrip3:
      return "st k8 g16 s3/2";
    case ColumnPath::kStrip4:
      return "st k8 g32 s3/1";
    case ColumnPath::kStrip5:
      return "st k8 g8 s4/1";
    case ColumnPath::kStrip6:
      return "st v2 k8 g8 s3/2";
    case ColumnPath::kStrip7:
      return "st v2 k16 g8 s2/2";
    case ColumnPath::kStrip8:
      return "st v1 k8 g8 s3/2";
    case ColumnPath::kLb:
      return "lb default";
    case ColumnPath::kLbP:
      return "lbp default";
    case ColumnPath::kLb1:
      return "lb k8 g32/mb3";
    case ColumnPath::kLb2:
      return "lb k8 g8/mb3";
    case ColumnPath::kLbP1:
      return "lbp k4 g16/mb4";
    case ColumnPath::kLbP2:
      return "lbp k8 g8/mb2";
    case ColumnPath::kLbP3:
      return "lbp k8 g32/mb2";
    default:
      return "default";
  }
}

template <typename Op>
constexpr bool RegisterColumns() {
  return phi::funcs::scan_gpu::TileColumnTile<phi::funcs::scan_gpu::GpuTileScan<Op>>::value;
}

template <typename Op, typename Scratch>
void LaunchColumns(ColumnPath path, cudaStream_t stream, Scratch& scratch, const ScanLayout& l, bool exclusive,
                   bool reverse, const Op& op) {
  namespace sg = phi::funcs::scan_gpu;
  const sg::LineGeometry g{l.length, l.inner, reverse};
  const int64_t lines = l.outer * l.inner;
  if (path == ColumnPath::kThreePhase) {
    sg::ScanColumnsThreePhase(stream, scratch, g, lines, exclusive, op);
    return;
  }
  if (path >= ColumnPath::kLb) {  // the chained look-back, float32 only (nothing launched otherwise: FAIL)
    if constexpr (RegisterColumns<Op>()) {
      using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
      if constexpr (std::is_same<T, float>::value) {
        using D = typename sg::DefaultLookbackShape<Op>::type;
        if (path == ColumnPath::kLb) sg::LookbackColumns<D>(stream, scratch, g, lines, exclusive, op, false);
        if (path == ColumnPath::kLbP) sg::LookbackColumns<D>(stream, scratch, g, lines, exclusive, op, true);
        if (path == ColumnPath::kLb1) sg::LookbackColumns<sg::LookbackColumnShape<Op, 4, 8, 32, 3>>(stream, scratch, g, lines, exclusive, op, false);
        if (path == ColumnPath::kLb2) sg::LookbackColumns<sg::LookbackColumnShape<Op, 4, 8, 8, 3>>(stream, scratch, g, lines, exclusive, op, false);
        if (path == ColumnPath::kLbP1) sg::LookbackColumns<sg::LookbackColumnShape<Op, 4, 4, 16, 4>>(stream, scratch, g, lines, exclusive, op, true);
        if (path == ColumnPath::kLbP2) sg::LookbackColumns<sg::LookbackColumnShape<Op, 4, 8, 8, 2>>(stream, scratch, g, lines, exclusive, op, true);
        if (path == ColumnPath::kLbP3) sg::LookbackColumns<sg::LookbackColumnShape<Op, 4, 8, 32, 2>>(stream, scratch, g, lines, exclusive, op, true);
      }
    }
    return;
  }
  if (path == ColumnPath::kOnePass) {
    sg::OnePassColumns<typename sg::DefaultColumnSteps<Op>::type>(stream, scratch, g, lines, exclusive, op);
    return;
  }
  if constexpr (RegisterColumns<Op>()) {  // the strips: vector accesses only (else nothing is launched: FAIL)
    using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
    if (path == ColumnPath::kStrip) {
      sg::StripColumns<typename sg::DefaultStripShape<Op>::type>(stream, g, lines, exclusive, op);
      return;
    }
    if constexpr (std::is_same<T, float>::value) {
      constexpr int V = sg::DefaultStripShape<Op>::kVec;
      bool launched = true;
      if (path == ColumnPath::kStrip1) launched = sg::StripColumns<sg::StripColumnShape<Op, V, 8, 8, 2, 2>>(stream, g, lines, exclusive, op);
      if (path == ColumnPath::kStrip2) launched = sg::StripColumns<sg::StripColumnShape<Op, V, 4, 8, 4, 2>>(stream, g, lines, exclusive, op);
      if (path == ColumnPath::kStrip3) launched = sg::StripColumns<sg::StripColumnShape<Op, V, 8, 16, 3, 2>>(stream, g, lines, exclusive, op);
      if (path == ColumnPath::kStrip4) launched = sg::StripColumns<sg::StripColumnShape<Op, V, 8, 32, 3, 1>>(stream, g, lines, exclusive, op);
      if (path == ColumnPath::kStrip5) launched = sg::StripColumns<sg::StripColumnShape<Op, V, 8, 8, 4, 1>>(stream, g, lines, exclusive, op);
      if (path == ColumnPath::kStrip6) launched = sg::StripColumns<sg::StripColumnShape<Op, 2, 8, 8, 3, 2>>(stream, g, lines, exclusive, op);
      if (path == ColumnPath::kStrip7) launched = sg::StripColumns<sg::StripColumnShape<Op, 2, 16, 8, 2, 2>>(stream, g, lines, exclusive, op);
      if (path == ColumnPath::kStrip8) launched = sg::StripColumns<sg::StripColumnShape<Op, 1, 8, 8, 3, 2>>(stream, g, lines, exclusive, op);
      (void)launched;
    }
    if (path >= ColumnPath::kStrip) return;
  }
  if constexpr (RegisterColumns<Op>()) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
    if constexpr (sizeof(T) > 2) {
      constexpr int V = sg::DefaultColumnSteps<Op>::kVec;
      if (path == ColumnPath::kAlt1) sg::OnePassColumns<sg::RegisterColumnSteps<Op, V, 8, 16, 4>>(stream, scratch, g, lines, exclusive, op);
      if (path == ColumnPath::kAlt2) sg::OnePassColumns<sg::RegisterColumnSteps<Op, V, 8, 32, 3>>(stream, scratch, g, lines, exclusive, op);
      if (path == ColumnPath::kAlt3) sg::OnePassColumns<sg::RegisterColumnSteps<Op, V, 8, 8, 3>>(stream, scratch, g, lines, exclusive, op);
    }
  } else {
    constexpr int mb = sg::TileMinBlocks<sg::GpuTileScan<Op>>::value;
    if (path == ColumnPath::kAlt1) sg::OnePassColumns<sg::ThreadColumnSteps<Op, 8, 64, mb>>(stream, scratch, g, lines, exclusive, op);
    if (path == ColumnPath::kAlt2) sg::OnePassColumns<sg::ThreadColumnSteps<Op, 32, 32, mb>>(stream, scratch, g, lines, exclusive, op);
    if (path == ColumnPath::kAlt3) sg::OnePassColumns<sg::ThreadColumnSteps<Op, 16, 64, mb>>(stream, scratch, g, lines, exclusive, op);
  }
}

struct Options {
  bool quick = false, seg = false, check = true, types = false, grad = false, columns_only = false,
       compare = true, vs_three_phase = false, strips = false, lookback = false, rows = false;
  std::vector<std::string> only;  // run only the cases whose name holds one of these
  std::vector<std::string> paths;  // --path: column paths whose name holds one of these ("default" always runs)
  bool PathSelected(const std::string& name) const {
    if (paths.empty() || name == "default") return true;
    for (const auto& p : paths) {
      if (name.find(p) != std::string::npos) return true;
    }
    return false;
  }
  std::vector<int> runs{-1, 0};   // short rows: -1 the logical warps, 0 the staged rows, K staged with K steps a thread
  bool Selected(const std::string& name) const {
    if (only.empty()) return true;
    for (const auto& o : only) {
      if (name.find(o) != std::string::npos) return true;
    }
    return false;
  }
};
static Options g_opt;

template <typename Op>
std::vector<ColumnPath> ColumnPaths(const Shape& s) {
  using T = std::remove_const_t<std::remove_pointer_t<decltype(Op::x)>>;
  if (s.inner == 1 || !g_opt.compare) return {ColumnPath::kLibrary};
  if (g_opt.vs_three_phase) return {ColumnPath::kLibrary, ColumnPath::kThreePhase};
  if (g_opt.lookback && RegisterColumns<Op>() && std::is_same<T, float>::value) {  // --lookback
    return {ColumnPath::kLibrary, ColumnPath::kThreePhase, ColumnPath::kLb,   ColumnPath::kLbP, ColumnPath::kLb1,
            ColumnPath::kLb2,     ColumnPath::kLbP1,       ColumnPath::kLbP2, ColumnPath::kLbP3};
  }
  if (g_opt.strips && RegisterColumns<Op>() && sizeof(T) > 2 &&
      s.inner % phi::funcs::scan_gpu::DefaultStripShape<Op>::kVec == 0) {  // --strips: the strips beside the library's path
    if (!std::is_same<T, float>::value) return {ColumnPath::kLibrary, ColumnPath::kThreePhase, ColumnPath::kStrip};
    return {ColumnPath::kLibrary, ColumnPath::kThreePhase, ColumnPath::kOnePass, ColumnPath::kStrip,
            ColumnPath::kStrip1,  ColumnPath::kStrip2,     ColumnPath::kStrip3,  ColumnPath::kStrip4,
            ColumnPath::kStrip5,  ColumnPath::kStrip6,     ColumnPath::kStrip7,  ColumnPath::kStrip8};
  }
  if (RegisterColumns<Op>() && sizeof(T) == 2) return {ColumnPath::kLibrary, ColumnPath::kThreePhase, ColumnPath::kOnePass};
  return {ColumnPath::kLibrary, ColumnPath::kThreePhase, ColumnPath::kOnePass,
          ColumnPath::kAlt1,    ColumnPath::kAlt2,       ColumnPath::kAlt3};
}

// One case: op built by make_op(x, out), checked by err_fn, timed against the copy.
template <typename T, typename MakeOp, typename Gen, typename ErrFn>
void RunCase(const char* opname, const Shape& s, bool exclusive, bool reverse, int64_t seg, MakeOp make_op, Gen gen,
             ErrFn err_fn, cudaStream_t stream, double copy_ms) {
  std::string name = std::string(opname) + " " + s.name;
  if (exclusive) name += " excl";
  if (reverse) name += " rev";
  if (!g_opt.Selected(name)) return;
  std::vector<T> hx(s.numel());
  for (auto& v : hx) v = gen();
  harness::DeviceBuffer<T> x(s.numel()), out(s.numel());
  x.Upload(hx);
  const ScanLayout l{s.outer, s.length, s.inner};
  auto op = make_op(x.p, out.p);
  for (ColumnPath path : ColumnPaths<decltype(op)>(s)) {
    if (!g_opt.PathSelected(ColumnPathName(path, RegisterColumns<decltype(op)>()))) continue;
    harness::Scratch scratch;
    auto launch = [&] {
      scratch.Begin();
      if (path == ColumnPath::kLibrary) {
        phi::funcs::ScanGpuLaunch(stream, scratch, l, exclusive, reverse, op, nullptr, seg);
      } else {
        LaunchColumns(path, stream, scratch, l, exclusive, reverse, op);
      }
    };
    // with -DPO_SCAN_STAGED_SWITCH: the logical warps, then the staged rows at each run length of
    // --runs (0: the policy's)
    std::vector<int> variants{-1};
#ifdef PO_SCAN_STAGED_SWITCH
    if (ShortRows(s)) variants = g_opt.runs;
#endif
    for (int v : variants) {
      std::string variant = seg ? "seg " + std::to_string(seg) : ColumnPathName(path, RegisterColumns<decltype(op)>());
#ifdef PO_SCAN_STAGED_SWITCH
      phi::funcs::scan_gpu::g_staged_rows = v >= 0;
      phi::funcs::scan_gpu::g_staged_run = v;
      if (ShortRows(s)) variant = v < 0 ? "warps" : v == 0 ? "staged" : "staged K" + std::to_string(v);
#else
      (void)v;
#endif
      bool same = false;
      const std::vector<T> first = harness::TwoRuns(out, scratch, stream, launch, &same);
      const double err = g_opt.check ? err_fn(s, hx, first, exclusive, reverse) : NAN;
      const double ms = harness::TimeMs(stream, [&] { launch(); });
      scratch.Release();
      if (!same) variant += " NONDET";
      harness::Row(name, variant, ms, copy_ms, err, same && (!g_opt.check || err <= 1.0));
    }
  }
#ifdef PO_SCAN_STAGED_SWITCH
  phi::funcs::scan_gpu::g_staged_rows = true;
  phi::funcs::scan_gpu::g_staged_run = 0;
#endif
}

// logcumsumexp's gradient (float32, the float64 recurrence): x ~ N(0, 2), out its forward
// logcumsumexp (long double, rounded to float), out_grad ~ N(0, 1); the gradient scans against the
// forward's direction. Reference: the op's own recurrence in long double on those float outputs
// (docs/spec.md §1, gradient); err = max |x_grad - ref| over the same sum taken of |out_grad|, in
// units of 1e-6 (ok <= 10). "generic" is the op through the engine's generic tiles (a type that
// GpuTileScan is not specialized for), "fast" the op's tiles (with -DPO_LSE_GRAD_ROWS=0 in
// HARNESS_NVCC_FLAGS: without the float32 row tiles of logcumsumexp_grad_rows.cuh).
struct GenericLseGradOp : phi::funcs::LogcumsumexpGradOp<float, double> {};

template <typename Op>
void GradCase(const char* variant, const Shape& s, bool exclusive, bool fwd_reverse, cudaStream_t stream,
              double copy_ms) {
  std::string name = std::string("lse grad f32 ") + s.name;
  if (exclusive) name += " excl";
  if (fwd_reverse) name += " rev";
  if (!g_opt.Selected(name)) return;
  std::normal_distribution<float> normal(0.f, 2.f), unit(0.f, 1.f);
  const int64_t n = s.numel();
  std::vector<float> hx(n), ho(n), hg(n);
  for (auto& v : hx) v = normal(harness::Rng());
  for (auto& v : hg) v = unit(harness::Rng());
  harness::LseForward(s.outer, s.length, s.inner, fwd_reverse, exclusive, hx, ho);
  harness::LseGradTensors t(hx, ho, hg);
  Op op = t.MakeOp<Op>(exclusive);
  const ScanLayout l{s.outer, s.length, s.inner};
  for (ColumnPath path : ColumnPaths<decltype(op)>(s)) {
    if (!g_opt.PathSelected(ColumnPathName(path, RegisterColumns<decltype(op)>()))) continue;
    harness::Scratch scratch;
    auto launch = [&] {
      scratch.Begin();
      if (path == ColumnPath::kLibrary) {
        phi::funcs::ScanGpuLaunch(stream, scratch, l, exclusive, !fwd_reverse, op);
      } else {
        LaunchColumns(path, stream, scratch, l, exclusive, !fwd_reverse, op);
      }
    };
    bool same = false;
    const std::vector<float> first = harness::TwoRuns(t.x_grad, scratch, stream, launch, &same);
    double err = NAN;
    if (g_opt.check) {
      err = harness::LseGradError(s.outer, s.length, s.inner, fwd_reverse, exclusive, hx, ho, hg, first);
    }
    const double ms = harness::TimeMs(stream, [&] { launch(); });
    scratch.Release();
    std::string v = s.inner > 1 ? std::string(variant) + " " + ColumnPathName(path, false) : std::string(variant);
    if (!same) v += " NONDET";
    harness::Row(name, v, ms, copy_ms, err, same && (!g_opt.check || err <= 10.0));
  }
}

// The carry-in per row (ScanGpuLaunch's init): 64 rows of 2^20 scanned from a carry c_r = r,
// against the host sum c_r + prefix; err in units of 4e-6 of the running sum of |x| as above.
void CarryInCase(cudaStream_t stream, double copy_ms) {
  const Shape s{"[64, 2^20] carry-in", 64, int64_t{1} << 20, 1};
  if (!g_opt.Selected("cumsum f32 [64, 2^20] carry-in")) return;
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  std::vector<float> hx(s.numel());
  for (auto& v : hx) v = uni(harness::Rng());
  using Op = phi::funcs::CumsumFloatOp<float, double>;
  std::vector<Op::State> hinit(s.outer);
  for (int64_t r = 0; r < s.outer; ++r) hinit[r] = Op::State::Of(static_cast<double>(r));
  harness::DeviceBuffer<float> x(s.numel()), out(s.numel());
  harness::DeviceBuffer<Op::State> init(s.outer);
  x.Upload(hx);
  init.Upload(hinit);
  out.Poison();
  harness::Scratch scratch;
  const Op op{{}, x.p, out.p};
  auto launch = [&] {
    scratch.Begin();
    phi::funcs::ScanGpuLaunch(stream, scratch, ScanLayout{s.outer, s.length, 1}, false, false, op, init.p);
  };
  launch();
  HARNESS_CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> o = out.Download();
  const double err = harness::ForEachLine(s.outer, s.length, s.inner, false, [&](auto at, double& worst) {
    const int64_t row = at(0) / s.length;
    long double sum = row, mag = row;
    for (int64_t k = 0; k < s.length; ++k) {
      sum += hx[at(k)];
      mag += std::fabs(hx[at(k)]);
      const double e = std::fabs(static_cast<double>(o[at(k)] - sum)) / std::max(1e-30L, mag) / 4e-6;
      if (!(e <= worst)) worst = e;
    }
  });
  const double ms = harness::TimeMs(stream, launch);
  harness::Row("cumsum f32 [64, 2^20] carry-in", "init r", ms, copy_ms, err, err <= 1.0);
}

// Integer cumsum from a carry-in per row (the engine's single pass, never the op's long rows):
// [4, 2^22] int64 from c_r = 1000 r - 1500, each form; err counts the outputs off the exact sum.
void IntCarryInCase(cudaStream_t stream, double copy_ms) {
  const Shape s{"[4, 2^22] carry-in", 4, int64_t{1} << 22, 1};
  std::uniform_int_distribution<int64_t> ints(-1000, 1000);
  std::vector<int64_t> hx(s.numel()), hinit(s.outer);
  for (auto& v : hx) v = ints(harness::Rng());
  for (int64_t r = 0; r < s.outer; ++r) hinit[r] = 1000 * r - 1500;
  harness::DeviceBuffer<int64_t> x(s.numel()), out(s.numel()), init(s.outer);
  x.Upload(hx);
  init.Upload(hinit);
  const phi::funcs::CumsumIntOp<int64_t> op{{}, x.p, out.p};
  const bool forms[3][2] = {{false, false}, {true, true}, {false, true}};
  for (const auto& f : forms) {
    std::string name = "cumsum i64 [4, 2^22] carry-in";
    if (f[0]) name += " excl";
    if (f[1]) name += " rev";
    if (!g_opt.Selected(name)) continue;
    harness::Scratch scratch;
    auto launch = [&] {
      scratch.Begin();
      phi::funcs::ScanGpuLaunch(stream, scratch, ScanLayout{s.outer, s.length, 1}, f[0], f[1], op, init.p);
    };
    bool same = false;
    const std::vector<int64_t> o = harness::TwoRuns(out, scratch, stream, launch, &same);
    const double err = harness::ForEachLine(s.outer, s.length, s.inner, f[1], [&](auto at, double& bad) {
      const int64_t row = at(0) / s.length;
      int64_t sum = hinit[row];
      for (int64_t k = 0; k < s.length; ++k) {
        if (!f[0]) sum += hx[at(k)];
        if (o[at(k)] != sum) bad += 1;
        if (f[0]) sum += hx[at(k)];
      }
    });
    const double ms = harness::TimeMs(stream, launch);
    scratch.Release();
    harness::Row(name, same ? "init" : "init NONDET", ms, copy_ms, err, same && err == 0);
  }
}

int main(int argc, char** argv) {
  Options& opt = g_opt;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) opt.quick = true;
    if (!std::strcmp(argv[i], "--seg")) opt.seg = true;
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) opt.only.push_back(argv[++i]);
    if (!std::strcmp(argv[i], "--no-check")) opt.check = false;
    if (!std::strcmp(argv[i], "--types")) opt.types = true;
    if (!std::strcmp(argv[i], "--grad")) opt.grad = true;
    if (!std::strcmp(argv[i], "--columns")) opt.columns_only = true;
    if (!std::strcmp(argv[i], "--no-compare")) opt.compare = false;
    if (!std::strcmp(argv[i], "--vs-3p")) opt.vs_three_phase = true;
    if (!std::strcmp(argv[i], "--strips")) opt.strips = true;
    if (!std::strcmp(argv[i], "--lookback")) opt.lookback = true;
    if (!std::strcmp(argv[i], "--rows")) opt.rows = true;
    if (!std::strcmp(argv[i], "--row-target") && i + 1 < argc) g_row_target = std::strtoll(argv[++i], nullptr, 10);
    if (!std::strcmp(argv[i], "--path") && i + 1 < argc) opt.paths.push_back(argv[++i]);
    if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {  // e.g. --runs -1,0,32
      opt.runs.clear();
      for (const char* p = argv[++i]; *p;) {
        char* end = nullptr;
        opt.runs.push_back(static_cast<int>(std::strtol(p, &end, 10)));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
      }
    }
  }
  cudaDeviceProp prop;
  HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
#ifdef HARNESS_VARIANT  // a compile-time variant (-D flags in HARNESS_NVCC_FLAGS), named here
  std::printf("variant: %s\n", HARNESS_VARIANT);
#endif
  cudaStream_t stream;
  HARNESS_CHECK(cudaStreamCreate(&stream));
  std::normal_distribution<float> normal(0.f, 2.f);
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  std::uniform_int_distribution<int64_t> ints(-1000, 1000);
  auto& rng = harness::Rng();
  auto lse = [](const float* x, float* o) { return phi::funcs::LogcumsumexpOp<float, double>{{}, x, o}; };
  auto csum = [](const float* x, float* o) { return phi::funcs::CumsumFloatOp<float, double>{{}, x, o}; };
  auto isum = [](const int64_t* x, int64_t* o) { return phi::funcs::CumsumIntOp<int64_t>{{}, x, o}; };
  auto isum32 = [](const int32_t* x, int32_t* o) { return phi::funcs::CumsumIntOp<int32_t>{{}, x, o}; };
  std::uniform_int_distribution<int32_t> ints32(-1000, 1000);
  // Integer cumsum, int64 and int32, each form on every shape; rows that the engine cuts into
  // segments also once as "seg 8192" (the engine's own single pass, not the op's long rows).
  auto int_cases = [&](const Shape& s, double copy4, double copy8) {
    const bool few_rows = s.inner == 1 && s.outer < 2048 && s.length > 512;
    const bool forms[3][2] = {{false, false}, {true, true}, {false, true}};  // {exclusive, reverse}
    for (const auto& f : forms) {
      if (f[1] && s.inner == 1 && !few_rows && !ShortRows(s)) continue;  // long rows filling the GPU: one form
      for (int64_t seg : few_rows ? std::vector<int64_t>{0, 8192} : std::vector<int64_t>{0}) {
        RunCase<int64_t>("cumsum i64", s, f[0], f[1], seg, isum, [&] { return ints(rng); }, IntCumsumError<int64_t>,
                         stream, copy8);
        RunCase<int32_t>("cumsum i32", s, f[0], f[1], seg, isum32, [&] { return ints32(rng); },
                         IntCumsumError<int32_t>, stream, copy4);
      }
    }
  };
  using F16 = phi::dtype::float16;
  using BF16 = phi::dtype::bfloat16;
  auto lse16 = [](const F16* x, F16* o) { return phi::funcs::LogcumsumexpOp<F16, double>{{}, x, o}; };
  auto lsebf = [](const BF16* x, BF16* o) { return phi::funcs::LogcumsumexpOp<BF16, double>{{}, x, o}; };
  auto lse64 = [](const double* x, double* o) { return phi::funcs::LogcumsumexpOp<double, double>{{}, x, o}; };
  auto csum16 = [](const F16* x, F16* o) { return phi::funcs::CumsumFloatOp<F16, double>{{}, x, o}; };
  auto csumbf = [](const BF16* x, BF16* o) { return phi::funcs::CumsumFloatOp<BF16, double>{{}, x, o}; };
  auto csum64 = [](const double* x, double* o) { return phi::funcs::CumsumFloatOp<double, double>{{}, x, o}; };
  harness::Header();
  std::vector<Shape> shapes(std::begin(harness::kBenchShapes), std::end(harness::kBenchShapes));
  shapes.insert(shapes.end(), std::begin(kMoreShapes), std::end(kMoreShapes));
  if (opt.columns_only) {  // the column shapes, and awkward ones for the column tiles
    const std::vector<Shape> all = std::move(shapes);
    shapes.clear();
    for (const Shape& s : all) {
      if (s.inner > 1) shapes.push_back(s);
    }
    for (const Shape& s : kColumnShapes) shapes.push_back(s);
  }
  if (opt.rows) shapes.assign(std::begin(kRowCountShapes), std::end(kRowCountShapes));
  for (const Shape& s : shapes) {
    if (opt.rows) {  // --rows: the forward of each op on the row counts around the targets
      const double copy2 = harness::CopyMs(stream, s.numel() * 2), copy4 = harness::CopyMs(stream, s.numel() * 4),
                   copy8 = harness::CopyMs(stream, s.numel() * 8);
      RunCase<float>("lse f32", s, false, false, 0, lse, [&] { return normal(rng); }, LseError<float>, stream, copy4);
      RunCase<F16>("lse f16", s, false, false, 0, lse16, [&] { return F16(normal(rng)); }, LseError<F16>, stream, copy2);
      RunCase<double>("lse f64", s, false, false, 0, lse64, [&] { return double(normal(rng)); }, LseError<double>, stream,
                      copy8);
      RunCase<float>("cumsum f32", s, false, false, 0, csum, [&] { return uni(rng); }, CumsumError<float>, stream, copy4);
      RunCase<int64_t>("cumsum i64", s, false, false, 0, isum, [&] { return ints(rng); }, IntCumsumError<int64_t>, stream,
                       copy8);
      continue;
    }
    if (opt.quick && s.numel() > (int64_t{1} << 24) && s.outer != 1) continue;
    const double copy4 = harness::CopyMs(stream, s.numel() * 4), copy8 = harness::CopyMs(stream, s.numel() * 8);
    if (opt.types && s.outer != 64) {  // --types: float16, bfloat16, float64 (x their own copy)
      const double copy2 = harness::CopyMs(stream, s.numel() * 2);
      RunCase<F16>("lse f16", s, false, false, 0, lse16, [&] { return F16(normal(rng)); }, LseError<F16>, stream, copy2);
      RunCase<BF16>("lse bf16", s, false, false, 0, lsebf, [&] { return BF16(normal(rng)); }, LseError<BF16>, stream, copy2);
      RunCase<double>("lse f64", s, false, false, 0, lse64, [&] { return double(normal(rng)); }, LseError<double>, stream, copy8);
      RunCase<F16>("cumsum f16", s, false, false, 0, csum16, [&] { return F16(uni(rng)); }, CumsumError<F16>, stream, copy2);
      RunCase<BF16>("cumsum bf16", s, false, false, 0, csumbf, [&] { return BF16(uni(rng)); }, CumsumError<BF16>, stream, copy2);
      RunCase<double>("cumsum f64", s, false, false, 0, csum64, [&] { return double(uni(rng)); }, CumsumError<double>, stream, copy8);
    }
    if (opt.grad) {  // --grad: logcumsumexp's gradient, generic and fast tiles
      using FastOp = phi::funcs::LogcumsumexpGradOp<float, double>;
      GradCase<GenericLseGradOp>("generic", s, false, false, stream, copy4);
      GradCase<FastOp>("fast", s, false, false, stream, copy4);
      if (s.inner == 1 && s.outer <= 4096) {
        GradCase<GenericLseGradOp>("generic", s, true, true, stream, copy4);
        GradCase<FastOp>("fast", s, true, true, stream, copy4);
      }
      continue;
    }
    std::vector<int64_t> segs{0};
    if (opt.seg && s.inner == 1 && s.outer < 4096) segs = {0, 2048, 8192, 16384};
    for (int64_t seg : segs) {
      RunCase<float>("lse f32", s, false, false, seg, lse, [&] { return normal(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("cumsum f32", s, false, false, seg, csum, [&] { return uni(rng); }, CumsumError<float>, stream, copy4);
    }
    if (s.outer == 4096) {  // logcumsumexp's other paths: outputs far below 0, outputs crossing 0
      std::normal_distribution<float> neg(-30.f, 3.f);
      std::uniform_real_distribution<float> near0(-4.f, 0.5f);
      RunCase<float>("lse f32 neg", s, false, false, 0, lse, [&] { return neg(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("lse f32 near0", s, false, false, 0, lse, [&] { return near0(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("lse f32 near0", s, true, true, 0, lse, [&] { return near0(rng); }, LseError<float>, stream, copy4);
    }
    if (ShortRows(s) && s.length == 64) {  // logcumsumexp's other paths on short rows; one direction at a time
      std::normal_distribution<float> neg(-30.f, 3.f);
      std::uniform_real_distribution<float> near0(-4.f, 0.5f);
      RunCase<float>("lse f32 neg", s, false, false, 0, lse, [&] { return neg(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("lse f32 near0", s, true, true, 0, lse, [&] { return near0(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("lse f32", s, true, false, 0, lse, [&] { return normal(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("cumsum f32", s, false, true, 0, csum, [&] { return uni(rng); }, CumsumError<float>, stream, copy4);
    }
    int_cases(s, copy4, copy8);
    if (s.inner > 1) {  // columns: exclusive and reverse
      RunCase<float>("lse f32", s, true, true, 0, lse, [&] { return normal(rng); }, LseError<float>, stream, copy4);
      // logcumsumexp's levels along a column (thread steps: precise, float-float, lean 1 and 2):
      // outputs crossing 0 quickly and slowly, and outputs far below 0.
      std::uniform_real_distribution<float> near0(-4.f, 0.5f), cross0(-14.f, -6.f);
      std::normal_distribution<float> neg(-30.f, 3.f);
      RunCase<float>("lse f32 near0", s, false, false, 0, lse, [&] { return near0(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("lse f32 cross0", s, true, true, 0, lse, [&] { return cross0(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("lse f32 neg", s, false, false, 0, lse, [&] { return neg(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("cumsum f32", s, true, true, 0, csum, [&] { return uni(rng); }, CumsumError<float>, stream, copy4);
      RunCase<float>("cumsum f32", s, false, true, 0, csum, [&] { return uni(rng); }, CumsumError<float>, stream, copy4);
    }
    if ((s.outer == 1 && s.inner == 1) || ShortRows(s)) {
      RunCase<float>("lse f32", s, true, true, 0, lse, [&] { return normal(rng); }, LseError<float>, stream, copy4);
      RunCase<float>("cumsum f32", s, true, true, 0, csum, [&] { return uni(rng); }, CumsumError<float>, stream, copy4);
    }
  }
  if (opt.rows) return 0;
  CarryInCase(stream, harness::CopyMs(stream, (int64_t{64} << 20) * 4));
  IntCarryInCase(stream, harness::CopyMs(stream, (int64_t{4} << 22) * 8));
  return 0;
}
