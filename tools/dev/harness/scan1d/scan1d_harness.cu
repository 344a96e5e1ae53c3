// The 1-D / long-row single-pass variants of tools/dev/harness/scan1d/scan1d_variants.cuh (issue 29),
// float32 logcumsumexp and cumsum: each case checked against a host reference (long double /
// double-double), run twice from poisoned outputs (bitwise equal), and timed against a copy of
// the same tensor in the same run. The library's own path on these shapes is timed by
// tools/dev/harness/scan (`--only '1-D'`, `--only '[4096, 16384]'`, `--only '[64, 2^20]'`).
// Build: bash tools/dev/harness/build.sh scan1d; run: build-harness/scan1d_harness
// [--no-check] [--only <substring of the case>] [--variant <substring of the variant>]
// [--skip <substring of the case>] [--skip-variant <substring of the variant>] [--checked-only (no
// diagnostics)] [--no-time]; -DSCAN1D_SET2 / -DSCAN1D_SET3: the second / third set; -DSCAN1D_LIB:
// the library's routed path (ScanGpuLaunch: "lib-new", its carry-in "lib-new init", and the path
// before, "lib-old") beside the harness's best
#include "tools/dev/harness/harness.cuh"
#include "tools/dev/harness/lse_grad_ref.h"

#include <cmath>
#include <limits>

#include "tools/dev/harness/scan1d/scan1d_variants.cuh"

#ifdef SCAN1D_LIB
#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)
#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/impl/cum_scan_ops.h"
#endif

namespace {

using LaunchFn = void (*)(cudaStream_t, void*, const float*, float*, int64_t, int64_t, bool, bool, int);
// The gradient's (x, out, out_grad -> x_grad; exclusive and reverse of the forward).
using GradFn = void (*)(cudaStream_t, const float*, const float*, const float*, float*, int64_t, int64_t, bool,
                        bool);

struct Variant {
  const char* name;
  LaunchFn lse, cumsum;  // null: not built for that op
  bool diag = false;     // a diagnostic (scan1d::kNoLB, kLdSt, kNoScan): outputs not checked
  bool init = false;     // a carry-in per row (g_init; SCAN1D_LIB's "lib-new init")
  GradFn grad = nullptr;  // logcumsumexp's gradient (SCAN1D_LIB's "lib-grad-*"; the grad cases)
};

// The carry-in of the "init" variants, per row r: r % 3 == 0 a state of several terms (m not a
// float, s not 1), 1 a single term (v, 1), 2 none (-inf, 0); on the device as the library's
// LogSumExpState<double> (m, s.hi, s.lo).
struct InitRow {
  double m, s;
};
InitRow InitOf(int64_t r) {
  if (r % 3 == 0) return InitRow{2.345678901234567, 2.5};
  if (r % 3 == 1) return InitRow{-1.5, 1.0};
  return InitRow{-INFINITY, 0.0};
}
void* g_init = nullptr;  // device: [rows] states, set before an init variant runs

template <int kThreads, int kItems, int kMinBlocks, int kFlags>
constexpr Variant V(const char* name, bool diag = false) {
  return Variant{name, scan1d::Launch<scan1d::LseV, kThreads, kItems, kMinBlocks, false, false, kFlags>,
                 scan1d::Launch<scan1d::CumsumV, kThreads, kItems, kMinBlocks, false, false, kFlags>, diag};
}

// Logcumsumexp only (scan1d::kSpread).
template <int kThreads, int kItems, int kMinBlocks, int kFlags>
constexpr Variant VL(const char* name) {
  return Variant{name, scan1d::Launch<scan1d::LseV, kThreads, kItems, kMinBlocks, false, false, kFlags>, nullptr};
}
// Cumsum only (scan1d::kExact).
template <int kThreads, int kItems, int kMinBlocks, int kFlags>
constexpr Variant VC(const char* name) {
  return Variant{name, nullptr, scan1d::Launch<scan1d::CumsumV, kThreads, kItems, kMinBlocks, false, false, kFlags>};
}

// name: b<threads>i<items a thread>mb<blocks an SM compiled for>, p persistent, c the cheap lane total.
#if defined(SCAN1D_LIB)
// The library's routed code (issue 29, the engine's block tiles: kernels/funcs/gpu/scan_block_rows.cuh
// with kernels/gpu/logcumsumexp_tiles.cuh's LseBlockTile) through ScanGpuLaunch, beside the
// harness's best (b512i16mb2i1s) and the tree (b256i16mb4): "lib-new" the routed path, "lib-old"
// the engine's warp segments of before (the same call with the row segment forced to 8192, which
// keeps rows off the block tiles), "lib-new init" the routed path from a carry-in per row.
harness::Scratch& g_scratch = *new harness::Scratch;  // released in main, never destroyed: no
                                                       // device call after the driver shuts down
template <int kWhich>  // 0: old, 1: new, 2: new with the carry-in
void LibLse(cudaStream_t stream, void*, const float* x, float* out, int64_t rows, int64_t L, bool exclusive,
            bool reverse, int) {
  using Op = phi::funcs::LogcumsumexpOp<float, double>;
  g_scratch.Begin();
  const Op op{{}, x, out};
  const auto* init = kWhich == 2 ? static_cast<const Op::State*>(g_init) : nullptr;
  phi::funcs::ScanGpuLaunch(stream, g_scratch, phi::funcs::ScanLayout{rows, L, 1}, exclusive, reverse, op, init,
                            kWhich == 0 ? 8192 : 0);
}
// logcumsumexp's float32 gradient (issue 29, the backward on the block tiles: LseGradBlockTile in
// kernels/gpu/logcumsumexp_grad_rows.cuh): "lib-grad-new" the routed path (rows that
// LseGradBlockRowsFor takes on BlockTile, kStash; rows of PO_LSE_GRAD_BLOCK_MIN_LENGTH steps or
// more that it leaves, of any count, on BlockTile2, kStash off), "lib-grad-old" the path before
// the block tiles (the row segment forced to 8192, as lib-old: the warp segments' telescoped
// tiles, or a warp a row where the rows fill the GPU), "grad-b<threads>i<items>mb<blocks>" the
// block tiles launched directly in other shapes (for rows the routed path keeps off them too;
// "-reg": out_grad held in registers across the look-back, LseGradBlockTile's kStash off; the
// smaller tiles, 256 x 16, 256 x 8 and 128 x 8, for rows of 4096, 2048 and 1024 steps).
using GradOp = phi::funcs::LogcumsumexpGradOp<float, double>;
GradOp MakeGradOp(const float* x, const float* out, const float* og, float* xg, bool exclusive) {
  GradOp op;
  op.x = x;
  op.out = out;
  op.out_grad = og;
  op.x_grad = xg;
  op.exclusive = exclusive;
  return op;
}
template <int kWhich>  // 0: old, 1: new
void LibGrad(cudaStream_t stream, const float* x, const float* out, const float* og, float* xg, int64_t rows,
             int64_t L, bool exclusive, bool reverse) {
  g_scratch.Begin();
  phi::funcs::ScanGpuLaunch(stream, g_scratch, phi::funcs::ScanLayout{rows, L, 1}, exclusive, !reverse,
                            MakeGradOp(x, out, og, xg, exclusive), nullptr, kWhich == 0 ? 8192 : 0);
}
template <int kThreads, int kItems, int kMinBlocks, bool kStash = true>
void BlockGrad(cudaStream_t stream, const float* x, const float* out, const float* og, float* xg, int64_t rows,
               int64_t L, bool exclusive, bool reverse) {
  using phi::funcs::scan_gpu::LseGradBlockTile;
  g_scratch.Begin();
  const phi::funcs::scan_gpu::LineGeometry g{L, 1, !reverse};
  phi::funcs::scan_gpu::LaunchBlockRows<LseGradBlockTile<kThreads, kItems, kStash>, kThreads, kItems, kMinBlocks>(
      stream, g_scratch, g, rows, exclusive, MakeGradOp(x, out, og, xg, exclusive), nullptr);
}
const Variant kVariants[] = {
    V<256, 16, 4, 0>("b256i16mb4"),
    VL<512, 16, 2, scan1d::kIncl | scan1d::kStep1 | scan1d::kSpread>("b512i16mb2i1s"),
    Variant{"lib-old", LibLse<0>, nullptr},
    Variant{"lib-new", LibLse<1>, nullptr},
    Variant{"lib-new init", LibLse<2>, nullptr, false, true},
    Variant{"lib-grad-old", nullptr, nullptr, false, false, LibGrad<0>},
    Variant{"lib-grad-new", nullptr, nullptr, false, false, LibGrad<1>},
    Variant{"grad-b512i8mb2", nullptr, nullptr, false, false, BlockGrad<512, 8, 2>},
    Variant{"grad-b256i16mb3", nullptr, nullptr, false, false, BlockGrad<256, 16, 3>},
    Variant{"grad-b512i16mb2-reg", nullptr, nullptr, false, false, BlockGrad<512, 16, 2, false>},
    Variant{"grad-b512i16mb2-stash", nullptr, nullptr, false, false, BlockGrad<512, 16, 2>},
    Variant{"grad-b256i16mb3-reg", nullptr, nullptr, false, false, BlockGrad<256, 16, 3, false>},
    Variant{"grad-b256i8mb4-reg", nullptr, nullptr, false, false, BlockGrad<256, 8, 4, false>},
    Variant{"grad-b128i8mb8-reg", nullptr, nullptr, false, false, BlockGrad<128, 8, 8, false>},
};
#elif defined(SCAN1D_SET3)
// The third set (README, "third set"): the tree's look-back against the decoupled one with
// inclusive prefixes folded left in order (scan1d::kIncl, `i`), on the second set's best tiles.
const Variant kVariants[] = {
    V<256, 16, 4, 0>("b256i16mb4"),
    V<256, 16, 4, scan1d::kNoLB>("b256i16mb4-nolb", true),
    V<256, 16, 4, scan1d::kIncl>("b256i16mb4i"),
    V<256, 16, 4, scan1d::kIncl | scan1d::kSpin>("b256i16mb4i-spin"),
    V<256, 16, 4, scan1d::kIncl | scan1d::kFewBar | scan1d::kSpin>("b256i16mb4fi-spin"),
    V<512, 16, 2, scan1d::kIncl>("b512i16mb2i"),
    V<512, 16, 2, scan1d::kIncl | scan1d::kFewBar>("b512i16mb2fi"),
    // the fold's cheaper step (scan1d::kStep1, `i1`) and cumsum's exact carry (scan1d::kExact, `x`)
    V<256, 16, 4, scan1d::kIncl | scan1d::kStep1>("b256i16mb4i1"),
    V<256, 16, 4, scan1d::kIncl | scan1d::kStep1 | scan1d::kSpin>("b256i16mb4i1-spin"),
    V<512, 16, 2, scan1d::kIncl | scan1d::kStep1>("b512i16mb2i1"),
    VL<256, 16, 4, scan1d::kIncl | scan1d::kStep1 | scan1d::kSpread>("b256i16mb4i1s"),
    VL<256, 16, 4, scan1d::kIncl | scan1d::kStep1 | scan1d::kSpread | scan1d::kFewBar | scan1d::kSpin>(
        "b256i16mb4fi1s-spin"),
    VL<512, 16, 2, scan1d::kIncl | scan1d::kStep1 | scan1d::kSpread>("b512i16mb2i1s"),
    VL<256, 16, 3, scan1d::kIncl | scan1d::kStep1 | scan1d::kSpread>("b256i16mb3i1s"),
    VC<256, 16, 4, scan1d::kExact>("b256i16mb4x"),
    VC<256, 16, 4, scan1d::kExact | scan1d::kSpin>("b256i16mb4x-spin"),
    VC<512, 16, 2, scan1d::kExact>("b512i16mb2x"),
    VC<256, 16, 3, scan1d::kExact>("b256i16mb3x"),
};
#elif defined(SCAN1D_SET2)
// The second set (README, "1-D single-pass variants"): the best of the first and what tests
// where its time goes (d: a diagnostic, unchecked) or tries to hide it.
const Variant kVariants[] = {
    V<256, 16, 4, 0>("b256i16mb4"),
    V<256, 16, 4, scan1d::kNoLB>("b256i16mb4-nolb", true),
    V<256, 16, 4, scan1d::kLdSt>("b256i16mb4-ldst", true),
    V<256, 16, 4, scan1d::kNoScan>("b256i16mb4-noscan", true),
    V<256, 16, 4, scan1d::kFewBar | scan1d::kNoLB>("b256i16mb4f-nolb", true),
    V<256, 16, 4, scan1d::kSpin>("b256i16mb4-spin"),
    V<256, 16, 4, scan1d::kFixedNs>("b256i16mb4-ns32"),
    V<256, 16, 4, scan1d::kFewBar>("b256i16mb4f"),
    V<256, 16, 4, scan1d::kFewBar | scan1d::kSpin>("b256i16mb4f-spin"),
    V<128, 16, 8, 0>("b128i16mb8"),
    V<128, 16, 8, scan1d::kFewBar>("b128i16mb8f"),
    V<256, 8, 6, 0>("b256i8mb6"),
    V<256, 8, 8, 0>("b256i8mb8"),
    V<256, 8, 6, scan1d::kFewBar>("b256i8mb6f"),
    V<512, 16, 2, 0>("b512i16mb2"),
    V<512, 16, 2, scan1d::kFewBar>("b512i16mb2f"),
};
#else
const Variant kVariants[] = {
    {"b256i16mb4", scan1d::Launch<scan1d::LseV, 256, 16, 4, false, false>,
     scan1d::Launch<scan1d::CumsumV, 256, 16, 4, false, false>},
    {"b256i16mb4c", scan1d::Launch<scan1d::LseV, 256, 16, 4, false, true>, nullptr},
    {"b256i16mb4p", scan1d::Launch<scan1d::LseV, 256, 16, 4, true, false>,
     scan1d::Launch<scan1d::CumsumV, 256, 16, 4, true, false>},
    {"b256i16mb4pc", scan1d::Launch<scan1d::LseV, 256, 16, 4, true, true>, nullptr},
    {"b256i16mb3p", scan1d::Launch<scan1d::LseV, 256, 16, 3, true, false>,
     scan1d::Launch<scan1d::CumsumV, 256, 16, 3, true, false>},
    {"b256i32mb2", scan1d::Launch<scan1d::LseV, 256, 32, 2, false, false>,
     scan1d::Launch<scan1d::CumsumV, 256, 32, 2, false, false>},
    {"b512i16mb2p", scan1d::Launch<scan1d::LseV, 512, 16, 2, true, false>,
     scan1d::Launch<scan1d::CumsumV, 512, 16, 2, true, false>},
};
#endif

// kCross: unittests/python/test_logcumsumexp_accuracy.py's crossing_data, x = log(u / L) with
// u ~ U(0.5, 1.5) and L the row's length: each row's sum of exponentials nears 1 (its output nears
// 0, within about 1e-3) at the row's end, far past the first tile, so outputs near 0 stand on the
// carry of many tiles (kNear0 crosses 0 within a few steps: inside tile 0, whose carry is empty).
enum class Dist { kNormal2, kNear0, kNeg, kHoles, kUnit, kSpread, kCross };

struct Case {
  const char* name;
  bool lse;
  int64_t rows, L;
  bool exclusive, reverse;
  Dist dist;
  bool grad = false;  // logcumsumexp's gradient (the lib-grad-* variants): x from dist, out its
                      // forward (long double, rounded), out_grad ~ N(0, 1)
};

const Case kCases[] = {
    // awkward first: lengths off the vector width and the tile, -inf holes and a NaN, near 0
    {"lse f32 1-D 1000003 holes", true, 1, 1000003, false, false, Dist::kHoles},
    {"lse f32 1-D 1000003 holes excl rev", true, 1, 1000003, true, true, Dist::kHoles},
    {"lse f32 [3, 70001] near0 excl", true, 3, 70001, true, false, Dist::kNear0},
    {"lse f32 1-D 2^22 neg", true, 1, int64_t{1} << 22, false, false, Dist::kNeg},
    // the pytest case the first block tiles failed on the GPU (test_float32_relative_error_near_zero,
    // (2, 70000) axis 1, every mode): outputs near 0 in the last of 9 tiles of 8192, spec §1's 1e-6 of |ref|
    {"lse f32 [2, 70000] cross", true, 2, 70000, false, false, Dist::kCross},
    {"lse f32 [2, 70000] cross excl", true, 2, 70000, true, false, Dist::kCross},
    {"lse f32 [2, 70000] cross rev", true, 2, 70000, false, true, Dist::kCross},
    {"lse f32 [2, 70000] cross excl rev", true, 2, 70000, true, true, Dist::kCross},
    {"lse f32 1-D 1000003 cross", true, 1, 1000003, false, false, Dist::kCross},
    {"cumsum f32 1-D 1000003", false, 1, 1000003, false, false, Dist::kUnit},
    {"cumsum f32 [3, 70001] excl rev", false, 3, 70001, true, true, Dist::kUnit},
    // magnitudes 2^-30 .. 2^20, random signs: the carries' bits over ~95 bits (kExact's limbs)
    {"cumsum f32 1-D 1000003 spread", false, 1, 1000003, false, false, Dist::kSpread},
    // the benchmark shapes
    {"lse f32 1-D 2^26", true, 1, int64_t{1} << 26, false, false, Dist::kNormal2},
    {"lse f32 1-D 2^26 excl rev", true, 1, int64_t{1} << 26, true, true, Dist::kNormal2},
    {"lse f32 [64, 2^20] last", true, 64, int64_t{1} << 20, false, false, Dist::kNormal2},
    {"lse f32 [4096, 16384] last", true, 4096, 16384, false, false, Dist::kNormal2},
#ifdef SCAN1D_LIB
    {"lse f32 [512, 2^16] last", true, 512, int64_t{1} << 16, false, false, Dist::kNormal2},
    {"lse f32 [3, 2^16] holes excl rev", true, 3, int64_t{1} << 16, true, true, Dist::kHoles},
    // rows and lengths around the block tiles' threshold (timing only: --only grid)
    {"lse f32 [1, 2^16] grid", true, 1, int64_t{1} << 16, false, false, Dist::kNormal2},
    {"lse f32 [16, 2^16] grid", true, 16, int64_t{1} << 16, false, false, Dist::kNormal2},
    {"lse f32 [64, 2^16] grid", true, 64, int64_t{1} << 16, false, false, Dist::kNormal2},
    {"lse f32 [128, 2^16] grid", true, 128, int64_t{1} << 16, false, false, Dist::kNormal2},
    {"lse f32 [256, 2^16] grid", true, 256, int64_t{1} << 16, false, false, Dist::kNormal2},
    {"lse f32 [16, 2^18] grid", true, 16, int64_t{1} << 18, false, false, Dist::kNormal2},
    {"lse f32 [64, 2^18] grid", true, 64, int64_t{1} << 18, false, false, Dist::kNormal2},
    {"lse f32 [128, 2^18] grid", true, 128, int64_t{1} << 18, false, false, Dist::kNormal2},
    {"lse f32 [256, 2^18] grid", true, 256, int64_t{1} << 18, false, false, Dist::kNormal2},
    {"lse f32 [512, 2^18] grid", true, 512, int64_t{1} << 18, false, false, Dist::kNormal2},
    {"lse f32 [128, 2^20] grid", true, 128, int64_t{1} << 20, false, false, Dist::kNormal2},
    {"lse f32 [4, 2^22] grid", true, 4, int64_t{1} << 22, false, false, Dist::kNormal2},
    // the gradient (GradCheck): awkward cases first (holes: -inf runs, a NaN and a +inf; near 0;
    // crossing data; a length off the vector width and the tile), then the benchmark shapes and
    // rows around the threshold (grid: timing)
    {"grad f32 1-D 1000003 holes", true, 1, 1000003, false, false, Dist::kHoles, true},
    {"grad f32 1-D 1000003 holes excl rev", true, 1, 1000003, true, true, Dist::kHoles, true},
    {"grad f32 [3, 70001] near0 excl", true, 3, 70001, true, false, Dist::kNear0, true},
    {"grad f32 [2, 70000] cross", true, 2, 70000, false, false, Dist::kCross, true},
    {"grad f32 [2, 70000] cross excl", true, 2, 70000, true, false, Dist::kCross, true},
    {"grad f32 [2, 70000] cross rev", true, 2, 70000, false, true, Dist::kCross, true},
    {"grad f32 [2, 70000] cross excl rev", true, 2, 70000, true, true, Dist::kCross, true},
    {"grad f32 [3, 2^16] holes excl rev", true, 3, int64_t{1} << 16, true, true, Dist::kHoles, true},
    {"grad f32 1-D 2^22 neg", true, 1, int64_t{1} << 22, false, false, Dist::kNeg, true},
    {"grad f32 1-D 2^26", true, 1, int64_t{1} << 26, false, false, Dist::kNormal2, true},
    {"grad f32 1-D 2^26 excl rev", true, 1, int64_t{1} << 26, true, true, Dist::kNormal2, true},
    {"grad f32 [64, 2^20] last", true, 64, int64_t{1} << 20, false, false, Dist::kNormal2, true},
    {"grad f32 [4096, 16384] last", true, 4096, 16384, false, false, Dist::kNormal2, true},
    {"grad f32 [128, 2^16] grid", true, 128, int64_t{1} << 16, false, false, Dist::kNormal2, true},
    {"grad f32 [256, 2^16] grid", true, 256, int64_t{1} << 16, false, false, Dist::kNormal2, true},
    {"grad f32 [512, 2^18] grid", true, 512, int64_t{1} << 18, false, false, Dist::kNormal2, true},
    // the routing of branch r23-gradroute (LseGradBlock2RowsFor: rows of 8192 steps or more on
    // BlockTile2, whatever their count): its edges checked (rows 129 and 200 below the engine's
    // 3072 a warp each, 3072 at it; lengths 8188 below the edge, 8192 at it, one tile a row, 8195
    // and 16387 off the vector width, a second and third tile of 3 steps), crossing data (outputs
    // near 0 after many tiles), near 0, holes
    {"grad f32 [200, 16387] cross", true, 200, 16387, false, false, Dist::kCross, true},
    {"grad f32 [200, 16387] cross excl", true, 200, 16387, true, false, Dist::kCross, true},
    {"grad f32 [200, 16387] cross rev", true, 200, 16387, false, true, Dist::kCross, true},
    {"grad f32 [200, 16387] cross excl rev", true, 200, 16387, true, true, Dist::kCross, true},
    {"grad f32 [200, 8188] cross excl rev", true, 200, 8188, true, true, Dist::kCross, true},
    {"grad f32 [200, 8192] cross excl rev", true, 200, 8192, true, true, Dist::kCross, true},
    {"grad f32 [200, 8195] cross", true, 200, 8195, false, false, Dist::kCross, true},
    {"grad f32 [3, 20000] near0 excl", true, 3, 20000, true, false, Dist::kNear0, true},
    {"grad f32 [4, 16388] holes rev", true, 4, 16388, false, true, Dist::kHoles, true},
    {"grad f32 [5, 8192] holes excl rev", true, 5, 8192, true, true, Dist::kHoles, true},
    {"grad f32 [129, 2^16] holes excl rev", true, 129, int64_t{1} << 16, true, true, Dist::kHoles, true},
    {"grad f32 [3072, 8188] cross", true, 3072, 8188, false, false, Dist::kCross, true},
    {"grad f32 [3072, 8192] cross", true, 3072, 8192, false, false, Dist::kCross, true},
    {"grad f32 [3072, 8192] cross excl rev", true, 3072, 8192, true, true, Dist::kCross, true},
    {"grad f32 [3072, 8196] holes excl", true, 3072, 8196, true, false, Dist::kHoles, true},
    // rows and lengths around the edge (timing: --only grid; [4096, 16384] is "last" above;
    // [2048, 12288] and [4096, 8200]: a second tile half full and of 8 steps, not yet timed)
    {"grad f32 [512, 2^16] grid", true, 512, int64_t{1} << 16, false, false, Dist::kNormal2, true},
    {"grad f32 [1024, 16384] grid", true, 1024, 16384, false, false, Dist::kNormal2, true},
    {"grad f32 [2048, 8192] grid", true, 2048, 8192, false, false, Dist::kNormal2, true},
    {"grad f32 [8192, 8192] grid", true, 8192, 8192, false, false, Dist::kNormal2, true},
    {"grad f32 [2048, 12288] grid", true, 2048, 12288, false, false, Dist::kNormal2, true},
    {"grad f32 [4096, 8200] grid", true, 4096, 8200, false, false, Dist::kNormal2, true},
    {"grad f32 [16384, 4096] grid", true, 16384, 4096, false, false, Dist::kNormal2, true},
    {"grad f32 [2^15, 2048] grid", true, int64_t{1} << 15, 2048, false, false, Dist::kNormal2, true},
    {"grad f32 [2^16, 1024] grid", true, int64_t{1} << 16, 1024, false, false, Dist::kNormal2, true},
#endif
    {"cumsum f32 1-D 2^26", false, 1, int64_t{1} << 26, false, false, Dist::kUnit},
    {"cumsum f32 1-D 2^26 excl rev", false, 1, int64_t{1} << 26, true, true, Dist::kUnit},
    {"cumsum f32 [64, 2^20] last", false, 64, int64_t{1} << 20, false, false, Dist::kUnit},
    {"cumsum f32 [4096, 16384] last", false, 4096, 16384, false, false, Dist::kUnit},
};

std::vector<float> Inputs(int64_t n, Dist d, int64_t L = 1) {
  std::vector<float> x(n);
  auto& g = harness::Rng();
  std::normal_distribution<float> n2(0.f, 2.f), neg(-30.f, 3.f);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);  // the scan harness's cumsum inputs
  std::uniform_real_distribution<float> near0(-4.f, 0.5f), u(0.f, 1.f);
  std::uniform_real_distribution<double> cross(0.5, 1.5);
  for (int64_t i = 0; i < n; ++i) {
    switch (d) {
      case Dist::kNormal2: x[i] = n2(g); break;
      case Dist::kUnit: x[i] = unit(g); break;
      case Dist::kNear0: x[i] = near0(g); break;
      case Dist::kNeg: x[i] = neg(g); break;
      case Dist::kHoles: x[i] = u(g) < 0.3f ? -INFINITY : n2(g); break;
      case Dist::kSpread: x[i] = std::ldexp(unit(g), static_cast<int>(50 * u(g)) - 30); break;
      case Dist::kCross: x[i] = static_cast<float>(std::log(cross(g) / static_cast<double>(L))); break;
    }
  }
  if (d == Dist::kHoles) {
    for (int64_t i = 0; i < 5000 && i < n; ++i) x[i] = -INFINITY;  // a leading run of -inf
    if (n > 900000) x[900000] = NAN;                                // NaN from here on (forward)
    if (n > 100) x[n - 100] = INFINITY;                             // +inf (reverse: early)
  }
  return x;
}

// logcumsumexp: err in units of spec §1's bound (relative 2.5e-7; 1e-6 of |ref| below 1; 1e-12
// absolute below 1e-6); a one-term prefix must give that term bit for bit, special values exactly.
// with_init: each row starts from InitOf(row), as if its terms came before the row.
double CheckLse(const std::vector<float>& x, const std::vector<float>& o, int64_t rows, int64_t L, bool excl,
                bool rev, bool with_init = false) {
  return harness::ForEachLine(rows, L, 1, rev, [&](auto at, double& worst) {
    double m = -INFINITY;
    long double s = 0;
    int n = 0;
    float first = 0;
    bool nan = false, pinf = false;
    if (with_init) {
      const InitRow c = InitOf(at(0) / L);
      if (c.m != -INFINITY) {
        m = c.m;
        s = c.s;
        n = c.s == 1.0 ? 1 : 2;
        first = static_cast<float>(c.m);
      }
    }
    for (int64_t k = 0; k < L; ++k) {
      const int64_t i = at(k);
      for (int pass = 0; pass < 2; ++pass) {
        if ((pass == 0) == excl) {  // the output: before (exclusive) or after the element
          const float got = o[i];
          double err = 0;
          if (nan) {
            err = got != got ? 0 : INFINITY;
          } else if (pinf) {
            err = got == INFINITY ? 0 : INFINITY;
          } else if (n == 0) {
            err = got == -INFINITY ? 0 : INFINITY;
          } else if (n == 1) {
            err = got == first ? 0 : INFINITY;
          } else {
            const long double ref = m + logl(s);
            const double a = std::fabs(static_cast<double>(ref));
            const double bound = a >= 1 ? 2.5e-7 * a : std::max(1e-6 * a, 1e-12);
            err = std::fabs(static_cast<double>(got - ref)) / bound;
            if (got != got) err = INFINITY;
          }
          if (!(err <= worst)) worst = err != err ? INFINITY : err;
        } else {
          const float v = x[i];
          if (v != v) nan = true;
          if (v == INFINITY) pinf = true;
          if (v == -INFINITY || v != v || v == INFINITY) continue;
          if (n == 0) first = v;
          ++n;
          if (v > m) {
            s = s * expl(static_cast<long double>(m) - v) + 1;
            m = v;
          } else {
            s += expl(static_cast<long double>(v) - m);
          }
        }
      }
    }
  });
}

// cumsum: err in units of 4e-6 of the running sum of |x|, plus 1000 + the number of outputs
// further from the exact sum than the float64 loop rounded once (spec §2's rule; 1e-3 of a float
// ulp of slack for the long double reference).
double CheckCumsum(const std::vector<float>& x, const std::vector<float>& o, int64_t rows, int64_t L, bool excl,
                   bool rev) {
  return harness::ForEachLine(rows, L, 1, rev, [&](auto at, double& worst) {
    double hi = 0, lo = 0, loop = 0, mag = 0;
    int64_t bad = 0;
    double e_worst = 0;
    for (int64_t k = 0; k < L; ++k) {
      const int64_t i = at(k);
      for (int pass = 0; pass < 2; ++pass) {
        if ((pass == 0) == excl) {
          const long double exact = static_cast<long double>(hi) + lo;
          const long double d = std::fabs(static_cast<long double>(o[i]) - exact);
          const long double dl = std::fabs(static_cast<long double>(static_cast<float>(loop)) - exact);
          const float f = static_cast<float>(exact);
          const long double slack = 1e-3L * (std::nextafter(std::fabs(f), INFINITY) - std::fabs(f));
          if (!(d <= dl + slack)) ++bad;
          const double e = static_cast<double>(d) / (4e-6 * std::max(mag, 1e-30));
          if (!(e <= e_worst)) e_worst = e != e ? INFINITY : e;
        } else {
          const double v = x[i];
          const double s = hi + v, bb = s - hi;
          lo += (hi - (s - bb)) + (v - bb);
          hi = s;
          loop += v;
          mag += std::fabs(v);
        }
      }
    }
    worst = bad ? 1000.0 + static_cast<double>(bad) : e_worst;
  });
}

// logcumsumexp's forward in long double rounded to float (the gradient cases' `out`): -inf with
// no term yet, a one-term prefix its term, NaN after a NaN, +inf after a +inf.
std::vector<float> LseForward(const std::vector<float>& x, int64_t rows, int64_t L, bool excl, bool rev) {
  std::vector<float> o(x.size());
  harness::ForEachLine(rows, L, 1, rev, [&](auto at, double&) {
    long double m = -INFINITY, s = 0;
    bool nan = false, pinf = false, any = false;
    for (int64_t k = 0; k < L; ++k) {
      const int64_t i = at(k);
      const auto value = [&] {
        if (nan) return NAN;
        if (pinf) return INFINITY;
        if (!any) return -INFINITY;
        return static_cast<float>(m + logl(s));
      };
      if (excl) o[i] = value();
      const float v = x[i];
      if (v != v) nan = true;
      if (v == INFINITY) pinf = true;
      if (v == v && v != INFINITY && v != -INFINITY) {
        if (!any || v > m) {
          s = any ? s * expl(m - static_cast<long double>(v)) + 1 : 1;
          m = v;
        } else {
          s += expl(static_cast<long double>(v) - m);
        }
        any = true;
      }
      if (!excl) o[i] = value();
    }
  });
  return o;
}

// A gradient case's data: x from dist, out its forward (LseForward), out_grad ~ N(0, 1).
struct GradData {
  std::vector<float> x, o, g;
  GradData(int64_t rows, int64_t L, bool excl, bool rev, Dist d)
      : x(Inputs(rows * L, d, L)), o(LseForward(x, rows, L, excl, rev)), g(x.size()) {
    std::normal_distribution<float> unit(0.f, 1.f);
    for (auto& v : g) v = unit(harness::Rng());
  }
};

// run() twice from poisoned outputs: the first run's outputs; *det: the second's bits the same.
template <typename Run>
std::vector<float> TwoRuns(harness::DeviceBuffer<float>& out, cudaStream_t stream, Run run, bool* det) {
  out.Poison();
  run();
  HARNESS_CHECK(cudaStreamSynchronize(stream));
  HARNESS_CHECK(cudaGetLastError());
  const std::vector<float> o1 = out.Download();
  out.Poison();
  run();
  HARNESS_CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> o2 = out.Download();
  *det = std::memcmp(o1.data(), o2.data(), o1.size() * 4) == 0;
  return o1;
}

// The gradient against the op's own recurrence in long double on the float outputs (docs/spec.md
// §1, gradient; as tools/dev/harness/scan's --grad): err = |x_grad - ref| over the same sum taken
// of |out_grad|, in units of 1e-6 (ok <= 10, the scan harness's rule; the pytest's 1e-5 of the
// largest |ref| is looser). x = -inf (and an exclusive scan's first step) must give 0 exactly, a
// NaN reference a NaN, an infinite one the same infinity.
double CheckGrad(const std::vector<float>& x, const std::vector<float>& o, const std::vector<float>& og,
                 const std::vector<float>& xg, int64_t rows, int64_t L, bool excl, bool rev) {
  return harness::LseGradError(rows, L, 1, rev, excl, x, o, og, xg);  // tools/dev/harness/lse_grad_ref.h
}

#ifdef SCAN1D_LIB
// A gradient case through every variant with a GradFn: checked, run twice bitwise, timed.
void GradCase(const Case& c, cudaStream_t stream, bool check, bool timed, const std::vector<std::string>& vonly,
              const std::vector<std::string>& vskip) {
  const int64_t n = c.rows * c.L;
  const GradData d(c.rows, c.L, c.exclusive, c.reverse, c.dist);
  const std::vector<float>&hx = d.x, &ho = d.o, &hg = d.g;
  harness::DeviceBuffer<float> x(n), o(n), g(n), xg(n);
  x.Upload(hx);
  o.Upload(ho);
  g.Upload(hg);
  const double copy_ms = harness::CopyMs(stream, n * 4);
  for (const Variant& v : kVariants) {
    if (v.grad == nullptr || !harness::Selected(vonly, v.name)) continue;
    if (!vskip.empty() && harness::Selected(vskip, v.name)) continue;
    auto run = [&] { v.grad(stream, x.p, o.p, g.p, xg.p, c.rows, c.L, c.exclusive, c.reverse); };
    bool det = false;
    const std::vector<float> r1 = TwoRuns(xg, stream, run, &det);
    const double err = check ? CheckGrad(hx, ho, hg, r1, c.rows, c.L, c.exclusive, c.reverse) : NAN;
    const double ms = timed ? harness::TimeMs(stream, run) : NAN;
    const bool ok = det && (!check || err <= 10.0);
    harness::Row(c.name, std::string(v.name) + (det ? "" : " NONDET"), ms, copy_ms, err, ok);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> only, vonly, skip, vskip;
  bool check = true, checked_only = false, timed = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-check") check = false;
    if (a == "--only" && i + 1 < argc) only.push_back(argv[++i]);
    if (a == "--variant" && i + 1 < argc) vonly.push_back(argv[++i]);
    if (a == "--skip" && i + 1 < argc) skip.push_back(argv[++i]);
    if (a == "--skip-variant" && i + 1 < argc) vskip.push_back(argv[++i]);
    if (a == "--checked-only") checked_only = true;  // diagnostics left out
    if (a == "--no-time") timed = false;             // under compute-sanitizer: two runs a case
  }
  cudaStream_t stream = harness::Start();
  int sms = 0;
  HARNESS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  harness::Header();
  for (const Case& c : kCases) {
    if (!harness::Selected(only, c.name) || (!skip.empty() && harness::Selected(skip, c.name))) continue;
    if (c.grad) {
#ifdef SCAN1D_LIB
      GradCase(c, stream, check, timed, vonly, vskip);
#endif
      continue;
    }
    const int64_t n = c.rows * c.L;
    const std::vector<float> hx = Inputs(n, c.dist, c.L);
    harness::DeviceBuffer<float> x(n), out(n);
    x.Upload(hx);
    int64_t max_status = 0;
    for (int tile : {128 * 16, 256 * 8, 256 * 16, 256 * 32, 512 * 16}) {  // every variant's tile
      max_status = std::max(max_status, scan1d::StatusBytesMax(c.rows, (c.L + tile - 1) / tile));
    }
    harness::DeviceBuffer<char> status(max_status);
    const double copy_ms = harness::CopyMs(stream, n * 4);
    for (const Variant& v : kVariants) {
      const LaunchFn fn = c.lse ? v.lse : v.cumsum;
      if (fn == nullptr || !harness::Selected(vonly, v.name) || (checked_only && v.diag)) continue;
      if (!vskip.empty() && harness::Selected(vskip, v.name)) continue;
      harness::DeviceBuffer<double> init_states(v.init ? c.rows * 3 : 1);  // (m, hi, lo) a row
      if (v.init) {
        std::vector<double> h(c.rows * 3);
        for (int64_t r = 0; r < c.rows; ++r) {
          h[3 * r] = InitOf(r).m;
          h[3 * r + 1] = InitOf(r).s;
          h[3 * r + 2] = 0.0;
        }
        init_states.Upload(h);
        g_init = init_states.p;
      }
      auto run = [&] { fn(stream, status.p, x.p, out.p, c.rows, c.L, c.exclusive, c.reverse, sms); };
      bool det = false;
      const std::vector<float> o1 = TwoRuns(out, stream, run, &det);
      double err = NAN;
      if (check && !v.diag) {
        err = c.lse ? CheckLse(hx, o1, c.rows, c.L, c.exclusive, c.reverse, v.init)
                    : CheckCumsum(hx, o1, c.rows, c.L, c.exclusive, c.reverse);
      }
      const double ms = timed ? harness::TimeMs(stream, run) : NAN;
      const bool ok = v.diag || (det && (!check || err <= 1.0));
      harness::Row(c.name, std::string(v.name) + (v.diag ? " diag" : "") + (det ? "" : " NONDET"), ms, copy_ms, err,
                   ok);
    }
  }
#ifdef SCAN1D_LIB
  g_scratch.Release();  // before the driver shuts down
#endif
  return 0;
}
