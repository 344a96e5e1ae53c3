// repeat_interleave's kernel harness: the library's kernels (kernels/gpu/repeat_interleave_tiles.cuh)
// against the path they replace (the starts of all counts, then a binary search of the starts
// per output element, as repeat_interleave_steps.cuh did before; written here on cub's scan),
// on the shapes of tools/bench/bench_flood.py. Every case: random inputs, outputs poisoned,
// a host reference (bit-exact copies), two runs compared bitwise, and the time against a
// device-to-device copy of the bytes the op must move (the counts read, x read, out written).
// Variants of the passes (tools/dev/harness/rint/rint_variants.cuh) are checked against the
// library's path bit for bit and timed beside it in the same run.
// Build: bash tools/dev/harness/build.sh rint; run: build-harness/rint_harness [--quick]
#include "tools/dev/harness/harness.cuh"

#include <cub/device/device_scan.cuh>

#include "kernels/gpu/repeat_interleave_tiles.cuh"
#include "paddle_ops/common/common.cc"  // FastDivMod's error type (one nvcc call, no library)
#include "tools/dev/harness/rint/rint_variants.cuh"

namespace rt = phi::repeat::tiles;
namespace rv = rint_variants;

namespace {

int g_sms = 132;

// The path before: starts = exclusive scan of the counts (n int64 written), a summary copied to
// the host, then per output element a binary search of the starts.
__global__ void SummaryKernel(const int64_t* counts, const int64_t* starts, int64_t n, int64_t* summary) {
  summary[0] = starts[n - 1] + counts[n - 1];
}

template <typename T>
__global__ void SearchGatherKernel(const int64_t* starts, const T* x, T* out, int64_t n, int64_t outer, int64_t M,
                                   phi::funcs::FastDivMod inner, phi::funcs::FastDivMod rows) {
  const int64_t total = outer * M * static_cast<int64_t>(inner.divisor);
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t line = inner.Div(k), o = rows.Div(line), i = line - o * M;
    int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (starts[mid] <= i) lo = mid; else hi = mid;
    }
    const int64_t d = static_cast<int64_t>(inner.divisor);
    out[k] = x[(o * n + lo) * d + (k - line * d)];
  }
}

template <typename T>
__global__ void IntBeforeKernel(const T* x, T* out, int64_t total, int64_t n, int64_t M, phi::funcs::FastDivMod inner,
                                phi::funcs::FastDivMod rows, phi::funcs::FastDivMod rep) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t line = inner.Div(k), o = rows.Div(line), i = line - o * M;
    const int64_t d = static_cast<int64_t>(inner.divisor);
    out[k] = x[(o * n + rep.Div(i)) * d + (k - line * d)];
  }
}

struct Case {
  std::string name;
  int64_t outer, n, inner;
  int max_count;        // counts uniform in [0, max_count]
  int64_t size_delta;   // output_size = total + delta (given cases)
  bool int32_counts = false, broadcast = false, negative = false, overflow = false;
};

template <typename T>
std::vector<T> Reference(const std::vector<T>& x, const std::vector<int64_t>& c, const Case& cs, int64_t M) {
  std::vector<T> out(cs.outer * M * cs.inner);
  const int64_t n = cs.n;
  // slice of each output position (counts clamped at 0; past the total: the last slice)
  std::vector<int64_t> src(M, n - 1);
  int64_t pos = 0;
  for (int64_t j = 0; j < n && pos < M; ++j) {
    const int64_t r = std::max<int64_t>(c[cs.broadcast ? 0 : j], 0);
    for (int64_t k = 0; k < r && pos < M; ++k) src[pos++] = j;
  }
  for (int64_t o = 0; o < cs.outer; ++o)
    for (int64_t i = 0; i < M; ++i)
      std::memcpy(&out[(o * M + i) * cs.inner], &x[(o * n + src[i]) * cs.inner], cs.inner * sizeof(T));
  return out;
}

// The new path: tile offsets; without output_size the total and the negative flag copied to the
// host (one 16-byte copy) and the stream synchronized; then the scatter. Returns M (-1: a
// negative count, -2: overflow).
template <typename T, typename R>
int64_t RunNew(cudaStream_t st, const rt::OffsetsScratch& sc, rt::Counts<R> cnt, int64_t* scratch, const T* x, T* out,
               int64_t outer, int64_t inner, int64_t output_size, int64_t* pinned) {
  cudaError_t err;
  const rt::Offsets off = rt::TileOffsets(st, sc, cnt, scratch, &err);
  HARNESS_CHECK(err);
  int64_t M = output_size;
  if (M < 0) {
    HARNESS_CHECK(cudaMemcpyAsync(pinned, off.incl + sc.tiles - 1, 16, cudaMemcpyDeviceToHost, st));
    HARNESS_CHECK(cudaStreamSynchronize(st));
    if (pinned[1] != 0) return -1;
    if (static_cast<uint64_t>(pinned[0]) >= rt::kCap) return -2;
    M = pinned[0];
  }
  if (M > 0) rt::Scatter(st, g_sms, cnt, off, x, out, outer, M, inner);
  return M;
}

// A variant's path (rint_variants.cuh), as RunNew: its pass 1, the same 16-byte copy and
// synchronization without output_size, its scatter.
template <typename T, typename R>
int64_t RunVariant(cudaStream_t st, const rv::Variant& v, rv::Scratch& s, rt::Counts<R> cnt, const T* x, T* out,
                   int64_t outer, int64_t inner, int64_t output_size, int64_t* pinned) {
  const rt::Offsets off = rv::Offsets(st, v.p, s, cnt);
  int64_t M = output_size;
  if (M < 0) {
    HARNESS_CHECK(cudaMemcpyAsync(pinned, off.incl + s.sc.tiles - 1, 16, cudaMemcpyDeviceToHost, st));
    HARNESS_CHECK(cudaStreamSynchronize(st));
    if (pinned[1] != 0) return -1;
    if (static_cast<uint64_t>(pinned[0]) >= rt::kCap) return -2;
    M = pinned[0];
  }
  if (M > 0) rv::Scatter(st, g_sms, v.s, cnt, off, x, out, outer, M, inner);
  return M;
}

constexpr rv::Pass1 kPass1s[] = {rv::Pass1::kPrev, rv::Pass1::kVec1024, rv::Pass1::kVec, rv::Pass1::kVecCub,
                                 rv::Pass1::kLook, rv::Pass1::kLookE};

// Pass 1 of each variant against the library's: incl[0..tiles] (the negative flag last), the
// tile flags and the bytes, bit for bit. Returns the names that differ ("" if none).
template <typename R>
std::string ComparePass1(cudaStream_t st, const rt::OffsetsScratch& sc, int64_t* lib_scratch, rv::Scratch& vs,
                         rt::Counts<R> cnt) {
  cudaError_t err;
  const rt::Offsets lib = rt::TileOffsets(st, sc, cnt, lib_scratch, &err);
  HARNESS_CHECK(err);
  HARNESS_CHECK(cudaStreamSynchronize(st));
  const auto incl = harness::Download(lib.incl, sc.tiles + 1);
  const auto flags = harness::Download(lib.flags, sc.tiles);
  const auto bytes = harness::Download(lib.bytes, sc.n);
  std::string bad;
  for (rv::Pass1 p : kPass1s) {
    HARNESS_CHECK(cudaMemset(vs.offsets, 0xff, vs.sc.Int64s() * sizeof(int64_t)));
    const rt::Offsets o = rv::Offsets(st, p, vs, cnt);
    HARNESS_CHECK(cudaStreamSynchronize(st));
    HARNESS_CHECK(cudaGetLastError());
    const bool same = harness::Download(o.incl, sc.tiles + 1) == incl &&
                      harness::Download(o.flags, sc.tiles) == flags && harness::Download(o.bytes, sc.n) == bytes;
    if (!same) bad += std::string(" pass1-") + rv::Pass1Name(p);
  }
  return bad;
}

template <typename T>
bool BitsEqual(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// One checked case (both count types' paths), with and without output_size; then every variant
// of rint_variants.cuh against the library's path, bit for bit (outputs, M, the host's
// negative/overflow verdict; pass 1's offsets, flags and bytes; the fused pass where it applies).
template <typename T>
bool CheckCase(cudaStream_t st, const Case& cs) {
  auto& g = harness::Rng();
  const int64_t n = cs.n;
  std::vector<T> hx(cs.outer * n * cs.inner);
  for (auto& v : hx) v = static_cast<T>(g() % 100000);
  std::vector<int64_t> hc(cs.broadcast ? 1 : n);
  for (auto& v : hc) v = static_cast<int64_t>(g() % (cs.max_count + 1));
  if (cs.negative) hc[hc.size() / 2] = -3;
  if (cs.overflow) for (auto& v : hc) v = int64_t{1} << 62;
  int64_t total = 0;
  for (int64_t j = 0; j < n && !cs.overflow; ++j) total += std::max<int64_t>(hc[cs.broadcast ? 0 : j], 0);
  harness::DeviceBuffer<T> dx(hx.size());
  dx.Upload(hx);
  harness::DeviceBuffer<int64_t> dc64(hc.size());
  dc64.Upload(hc);
  std::vector<int32_t> hc32(hc.begin(), hc.end());
  harness::DeviceBuffer<int32_t> dc32(hc.size());
  dc32.Upload(hc32);
  const rt::OffsetsScratch sc = rt::OffsetsScratchFor(n);
  harness::DeviceBuffer<int64_t> scratch(sc.Int64s());
  rv::Scratch vs(n);
  int64_t* pinned;
  HARNESS_CHECK(cudaMallocHost(&pinned, 16));
  // f(counts) with the case's count type
  auto with_counts = [&](auto f) {
    return cs.int32_counts ? f(rt::Counts<int32_t>{dc32.p, n, cs.broadcast}) : f(rt::Counts<int64_t>{dc64.p, n, cs.broadcast});
  };
  bool ok = true;
  const std::string pass1_bad = with_counts([&](auto cnt) { return ComparePass1(st, sc, scratch.p, vs, cnt); });
  std::printf("  %-40s pass 1 of prev, v1024, vec, vcub, look, looke: %s\n", cs.name.c_str(),
              pass1_bad.empty() ? "same bits" : ("DIFFER:" + pass1_bad).c_str());
  ok = ok && pass1_bad.empty();
  for (int given = 0; given < 2; ++given) {
    const int64_t want_M = cs.overflow ? 10 : std::max<int64_t>(total + (given ? cs.size_delta : 0), 0);
    if (!given && (cs.negative || cs.overflow)) {  // the host must see the flag
      harness::DeviceBuffer<T> dout(1);
      int64_t M = with_counts([&](auto cnt) { return RunNew(st, sc, cnt, scratch.p, dx.p, dout.p, cs.outer, cs.inner, -1, pinned); });
      const bool seen = cs.negative ? M == -1 : M == -2;
      std::string bad;
      for (const rv::Variant& v : rv::kVariants) {
        const int64_t Mv = with_counts(
            [&](auto cnt) { return RunVariant(st, v, vs, cnt, dx.p, dout.p, cs.outer, cs.inner, -1, pinned); });
        if (Mv != M) bad += std::string(" ") + v.name;
      }
      std::printf("  %-40s %s %s; variants: %s\n", cs.name.c_str(), cs.negative ? "negative count" : "overflow",
                  seen ? "detected" : "MISSED", bad.empty() ? "the same" : ("DIFFER:" + bad).c_str());
      ok = ok && seen && bad.empty();
      continue;
    }
    harness::DeviceBuffer<T> dout(std::max<int64_t>(cs.outer * want_M * cs.inner, 1));
    std::vector<T> runs[2];
    int64_t M = -3;
    const int64_t os = given ? want_M : -1;
    for (int rep = 0; rep < 2; ++rep) {
      dout.Poison();
      M = with_counts([&](auto cnt) { return RunNew(st, sc, cnt, scratch.p, dx.p, dout.p, cs.outer, cs.inner, os, pinned); });
      HARNESS_CHECK(cudaStreamSynchronize(st));
      HARNESS_CHECK(cudaGetLastError());
      runs[rep] = dout.Download();
      runs[rep].resize(cs.outer * want_M * cs.inner);
    }
    const bool good = M == want_M && BitsEqual(runs[0], Reference(hx, hc, cs, want_M));
    const bool det = BitsEqual(runs[0], runs[1]);
    std::string bad;
    auto compare = [&](const char* name, int64_t Mv) {
      HARNESS_CHECK(cudaStreamSynchronize(st));
      HARNESS_CHECK(cudaGetLastError());
      auto got = dout.Download();
      got.resize(cs.outer * want_M * cs.inner);
      if (Mv != M || !BitsEqual(got, runs[0])) bad += std::string(" ") + name;
    };
    for (const rv::Variant& v : rv::kVariants) {
      dout.Poison();
      compare(v.name, with_counts([&](auto cnt) {
                return RunVariant(st, v, vs, cnt, dx.p, dout.p, cs.outer, cs.inner, os, pinned);
              }));
    }
    const bool fused = given && cs.outer == 1 && cs.inner == 1 && want_M > 0;
    if (fused) {
      dout.Poison();
      with_counts([&](auto cnt) {
        rv::Fused(st, g_sms, vs, cnt, dx.p, dout.p, want_M);
        return 0;
      });
      compare("fused", want_M);
    }
    std::printf("  %-40s %-12s M=%-9lld %s%s; %zu variants%s: %s\n", cs.name.c_str(), given ? "output_size" : "counted",
                static_cast<long long>(M), good ? "ok" : "WRONG", det ? "" : " NONDET",
                sizeof(rv::kVariants) / sizeof(rv::kVariants[0]), fused ? " and fused" : "",
                bad.empty() ? "same bits" : ("DIFFER:" + bad).c_str());
    ok = ok && good && det && bad.empty();
  }
  cudaFreeHost(pinned);
  return ok;
}

void Print(const std::string& name, const std::string& variant, double ms, double floor_ms, double old_floor_ms,
           bool ok) {
  std::printf("| %-30s | %-16s | %8.4f | %8.4f | %6.2f | %6.2f | %-4s |\n", name.c_str(), variant.c_str(), ms,
              floor_ms, ms / floor_ms, ms / old_floor_ms, ok ? "ok" : "FAIL");
  std::fflush(stdout);
}

// A timed tensor-counts case: float32 x, int64 counts in {0..3}.
void TimeCounts(cudaStream_t st, const std::string& name, int64_t n, int64_t inner) {
  using T = float;
  auto& g = harness::Rng();
  std::vector<T> hx(n * inner);
  for (auto& v : hx) v = static_cast<float>(g() % 1000) * 0.5f;
  std::vector<int64_t> hc(n);
  int64_t total = 0;
  for (auto& v : hc) total += (v = static_cast<int64_t>(g() % 4));
  harness::DeviceBuffer<T> dx(hx.size()), dout(total * inner), dref(total * inner);
  harness::DeviceBuffer<int64_t> dc(n), starts(n), summary(1);
  dx.Upload(hx);
  dc.Upload(hc);
  const int64_t out_bytes = total * inner * 4, x_bytes = n * inner * 4, c_bytes = n * 8;
  const double floor_ms = harness::CopyMs(st, (out_bytes + x_bytes + c_bytes) / 2);
  const double old_floor_ms = harness::CopyMs(st, (out_bytes + x_bytes) / 2);
  int64_t* pinned;
  HARNESS_CHECK(cudaMallocHost(&pinned, 16));
  // before
  size_t cub_bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, dc.p, starts.p, static_cast<int>(n));
  harness::DeviceBuffer<char> cub_tmp(cub_bytes);
  const phi::funcs::FastDivMod inner_div(inner);
  auto before = [&](bool given) {
    size_t b = cub_bytes;
    cub::DeviceScan::ExclusiveSum(cub_tmp.p, b, dc.p, starts.p, static_cast<int>(n), st);
    int64_t M = total;
    if (!given) {
      SummaryKernel<<<1, 1, 0, st>>>(dc.p, starts.p, n, summary.p);
      HARNESS_CHECK(cudaMemcpyAsync(pinned, summary.p, 8, cudaMemcpyDeviceToHost, st));
      HARNESS_CHECK(cudaStreamSynchronize(st));
      M = pinned[0];
    }
    SearchGatherKernel<T><<<g_sms * 32, 256, 0, st>>>(starts.p, dx.p, dref.p, n, 1, M, inner_div,
                                                     phi::funcs::FastDivMod(M));
  };
  const rt::OffsetsScratch sc = rt::OffsetsScratchFor(n);
  harness::DeviceBuffer<int64_t> scratch(sc.Int64s());
  const rt::Counts<int64_t> cnt{dc.p, n, false};
  auto after = [&](bool given) { RunNew(st, sc, cnt, scratch.p, dx.p, dout.p, 1, inner, given ? total : -1, pinned); };
  dref.Poison();
  dout.Poison();
  before(false);
  after(false);
  HARNESS_CHECK(cudaStreamSynchronize(st));
  const auto ref = dref.Download();
  const auto got = dout.Download();
  dout.Poison();
  after(true);
  HARNESS_CHECK(cudaStreamSynchronize(st));
  const bool ok = BitsEqual(ref, got) && BitsEqual(got, dout.Download());
  Print(name, "before", harness::TimeMs(st, [&] { before(false); }), floor_ms, old_floor_ms, true);
  Print(name, "before o_size", harness::TimeMs(st, [&] { before(true); }), floor_ms, old_floor_ms, true);
  Print(name, "new", harness::TimeMs(st, [&] { after(false); }), floor_ms, old_floor_ms, ok);
  Print(name, "new o_size", harness::TimeMs(st, [&] { after(true); }), floor_ms, old_floor_ms, ok);
  cudaError_t err;
  const rt::Offsets off = rt::TileOffsets(st, sc, cnt, scratch.p, &err);
  HARNESS_CHECK(err);
  Print(name, sc.cub ? "  its offsets cub" : "  its offsets 1blk",
        harness::TimeMs(st, [&] { rt::TileOffsets(st, sc, cnt, scratch.p, &err); }), floor_ms, old_floor_ms, ok);
  Print(name, "  its scatter", harness::TimeMs(st, [&] { rt::Scatter(st, g_sms, cnt, off, dx.p, dout.p, 1, total, inner); }),
        floor_ms, old_floor_ms, ok);
  // The variants of rint_variants.cuh: each checked bit for bit against the path before (its
  // output of this case, both modes), then timed whole; pass 1 and the 1-D scatter also alone.
  rv::Scratch vs(n);
  auto same_as_ref = [&](auto&& fn) {
    dout.Poison();
    fn();
    HARNESS_CHECK(cudaStreamSynchronize(st));
    HARNESS_CHECK(cudaGetLastError());
    return BitsEqual(ref, dout.Download());
  };
  for (const rv::Variant& v : rv::kVariants) {
    if (inner != 1 && v.s != rv::Scat::kLib) continue;  // rows take the library's scatter
    auto run = [&](bool given) { RunVariant(st, v, vs, cnt, dx.p, dout.p, 1, inner, given ? total : -1, pinned); };
    const bool vok = same_as_ref([&] { run(false); }) && same_as_ref([&] { run(true); });
    Print(name, v.name, harness::TimeMs(st, [&] { run(false); }), floor_ms, old_floor_ms, vok);
    Print(name, std::string(v.name) + " o_size", harness::TimeMs(st, [&] { run(true); }), floor_ms, old_floor_ms, vok);
  }
  if (inner == 1) {
    auto fused = [&] { rv::Fused(st, g_sms, vs, cnt, dx.p, dout.p, total); };
    Print(name, "fused o_size", harness::TimeMs(st, fused), floor_ms, old_floor_ms, same_as_ref(fused));
  }
  for (rv::Pass1 p : kPass1s) {
    Print(name, std::string("  offsets ") + rv::Pass1Name(p), harness::TimeMs(st, [&] { rv::Offsets(st, p, vs, cnt); }), floor_ms, old_floor_ms, ok);
  }
  if (inner == 1) {
    const rt::Offsets lib_off = rt::TileOffsets(st, sc, cnt, scratch.p, &err);
    HARNESS_CHECK(err);
    for (rv::Scat s : {rv::Scat::kN32x4, rv::Scat::kN32x6, rv::Scat::kN16x6, rv::Scat::kN16x8, rv::Scat::kPipe16x4,
                       rv::Scat::kPipe32x4, rv::Scat::kPipe16x6, rv::Scat::kMarks16x4, rv::Scat::kMarks32x4}) {
      const std::string sn = std::string("  scatter ") + rv::ScatName(s);
      auto scat = [&] { rv::Scatter(st, g_sms, s, cnt, lib_off, dx.p, dout.p, 1, total, inner); };
      Print(name, sn, harness::TimeMs(st, scat), floor_ms, old_floor_ms, same_as_ref(scat));
    }
  }
  cudaFreeHost(pinned);
}

// Pass 1 alone against the tile count (int64 counts in {0..3}): the path before ("prev"), the
// library's sums with the one-block scan of 1024 threads (before), of 256 (now) and with CUB's,
// and the two look-backs, to place rt::kCubScanTiles. The floor: a copy of the counts and their
// bytes.
void TimeScans(cudaStream_t st) {
  auto& g = harness::Rng();
  for (int lg : {15, 16, 18, 19, 20, 21, 22, 24}) {
    const int64_t n = int64_t{1} << lg;
    std::vector<int64_t> hc(n);
    for (auto& v : hc) v = static_cast<int64_t>(g() % 4);
    harness::DeviceBuffer<int64_t> dc(n);
    dc.Upload(hc);
    const rt::Counts<int64_t> cnt{dc.p, n, false};
    rv::Scratch vs(n);
    const double floor_ms = harness::CopyMs(st, (n * 8 + n) / 2);
    const std::string name = "pass 1, 2^" + std::to_string(lg) + " (" + std::to_string(vs.sc.tiles) + " tiles)";
    for (rv::Pass1 p : kPass1s) {
      Print(name, rv::Pass1Name(p), harness::TimeMs(st, [&] { rv::Offsets(st, p, vs, cnt); }), floor_ms, floor_ms,
            true);
    }
  }
}

void TimeInt(cudaStream_t st, const std::string& name, int64_t n, int64_t inner, int64_t r) {
  using T = float;
  std::vector<T> hx(n * inner);
  auto& g = harness::Rng();
  for (auto& v : hx) v = static_cast<float>(g() % 1000);
  const int64_t total = n * r * inner;
  harness::DeviceBuffer<T> dx(hx.size()), dout(total), dref(total);
  dx.Upload(hx);
  const double floor_ms = harness::CopyMs(st, (total + n * inner) * 4 / 2);
  const phi::funcs::FastDivMod inner_div(inner), rows(n * r), rep(r);
  auto before = [&] { IntBeforeKernel<T><<<g_sms * 32, 256, 0, st>>>(dx.p, dref.p, total, n, n * r, inner_div, rows, rep); };
  auto after = [&] { rt::RepeatInt(st, g_sms, dx.p, dout.p, 1, n, inner, r); };
  dref.Poison();
  dout.Poison();
  before();
  after();
  HARNESS_CHECK(cudaStreamSynchronize(st));
  const bool ok = BitsEqual(dref.Download(), dout.Download());
  Print(name, "before", harness::TimeMs(st, before), floor_ms, floor_ms, true);
  Print(name, "new", harness::TimeMs(st, after), floor_ms, floor_ms, ok);
}

// Int-count check cases (host reference).
template <typename T>
bool CheckInt(cudaStream_t st, int64_t outer, int64_t n, int64_t inner, int64_t r) {
  std::vector<T> hx(outer * n * inner);
  auto& g = harness::Rng();
  for (auto& v : hx) v = static_cast<T>(g() % 100000);
  harness::DeviceBuffer<T> dx(hx.size()), dout(std::max<int64_t>(outer * n * r * inner, 1));
  dx.Upload(hx);
  dout.Poison();
  rt::RepeatInt(st, g_sms, dx.p, dout.p, outer, n, inner, r);
  HARNESS_CHECK(cudaStreamSynchronize(st));
  auto got = dout.Download();
  got.resize(outer * n * r * inner);
  std::vector<int64_t> c(n, r);
  Case cs{"int", outer, n, inner, 0, 0};
  const bool ok = BitsEqual(got, Reference(hx, c, cs, n * r));
  std::printf("  int repeats outer %lld n %lld inner %lld r %lld (%zu-byte T): %s\n", (long long)outer, (long long)n,
              (long long)inner, (long long)r, sizeof(T), ok ? "ok" : "WRONG");
  return ok;
}

// Host self-test, no GPU needed (--host): the run arithmetic of the variants' scatter
// (rint_variants.cuh: NextRun, LimitOf, offsets relative to the tile's start, 32- or 64-bit)
// against the library's ScatterLineKernel arithmetic (absolute saturating starts cut at m, the
// stage loop's [O0, O1)), on random tiles: the outputs each slice writes must be the same
// positions. Counts small (the 32-bit path), large, near 2^62 (saturation); bases and output
// lengths before, inside and past the tile; the line's last slice inside or outside the tile.
template <typename Off>
bool HostRunsCase(std::mt19937_64& g, int mode) {
  const int64_t tile = 64;  // slices in the emulated tile (the kernels' tiles differ only in size)
  std::vector<uint64_t> c(tile);
  for (auto& v : c) {
    const uint64_t r = g();
    v = mode == 0 ? r % 4 : mode == 1 ? r % 256 : mode == 2 ? r % 100000 : (r % 3 == 0 ? (uint64_t{1} << 62) + r % 7 : r % 5);
  }
  if (sizeof(Off) == 4) for (auto& v : c) v = std::min<uint64_t>(v, 255);
  const uint64_t base = (g() % 3 == 0) ? 0 : (g() % 2 ? g() % 1000 : (uint64_t{1} << 62) + g() % 1000);
  uint64_t agg = 0;
  for (auto v : c) agg = rt::SatAdd()(agg, v);
  const uint64_t end = rt::SatAdd()(base, agg);
  const int64_t n = g() % 2 ? 1000000 : static_cast<int64_t>(g() % (tile + 8));  // line end in or past the tile
  const bool last_tile = n <= tile;
  uint64_t m;  // M: before the tile, inside, at its end or past it (never >= 2^63)
  switch (g() % 4) {
    case 0: m = base > 5 ? base - g() % 5 : 0; break;
    case 1: m = base + (agg ? g() % (agg < 1000000 ? agg : 1000000) : 0); break;
    case 2: m = end; break;
    default: m = end + g() % 50; break;
  }
  if (last_tile && g() % 8 == 0) m = base + (uint64_t{1} << (28 + g() % 8)) + g() % 1000;  // far past the total
  m = std::min<uint64_t>(m, (uint64_t{1} << 63) - 1);
  if (sizeof(Off) == 4 && last_tile && rv::LongLastTile(base, m)) return true;  // the 64-bit form's (WideTile)
  // the library: absolute runs, the tile's outputs [O0, O1)
  const uint64_t O0 = std::min(base, m), O1 = last_tile ? m : std::min(end, m);
  uint64_t start = base;
  // the variant: relative runs, [0, r1)
  const Off lim = rv::LimitOf<Off>(base, m);
  Off rel_agg = 0;
  for (auto v : c) rel_agg = rv::AddOff<Off>(rel_agg, static_cast<Off>(v));
  const Off r1 = last_tile ? lim : rv::MinOff(rel_agg, lim);
  Off pos = 0;
  for (int64_t j = 0; j < tile; ++j) {
    uint64_t s = std::min(start, m);
    start = rt::SatAdd()(start, c[j]);
    uint64_t e = j == n - 1 ? m : std::min(start, m);
    if (j >= n) s = e = m;
    const uint64_t lo = std::max(s, O0), hi = std::min(e, O1);
    const rv::Run<Off> r = rv::NextRun<Off>(pos, static_cast<Off>(c[j]), lim, j == n - 1, j >= n);
    const uint64_t vlo = base + std::max<Off>(r.s, 0), vhi = base + std::min<Off>(r.e, r1);
    const bool lib_empty = lo >= hi, var_empty = r1 == 0 || std::max<Off>(r.s, 0) >= std::min<Off>(r.e, r1);
    if (lib_empty != var_empty || (!lib_empty && (lo != vlo || hi != vhi))) {
      std::printf("  host runs: slice %lld differs (mode %d, %zu-byte offsets): lib [%llu, %llu) variant [%llu, %llu)\n",
                  static_cast<long long>(j), mode, sizeof(Off), (unsigned long long)lo, (unsigned long long)hi,
                  (unsigned long long)vlo, (unsigned long long)vhi);
      return false;
    }
  }
  return true;
}

bool HostSelfTest() {
  std::mt19937_64 g(29);
  int64_t cases = 0;
  bool ok = true;
  for (int it = 0; it < 20000 && ok; ++it) {
    ok = HostRunsCase<uint32_t>(g, it % 2) && ok;
    ok = HostRunsCase<uint64_t>(g, it % 4) && ok;
    cases += 2;
  }
  std::printf("host self-test of the variants' run arithmetic: %lld tiles, %s\n", static_cast<long long>(cases),
              ok ? "ok" : "FAILED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, host_only = false;
  for (int i = 1; i < argc; ++i) {
    quick = quick || std::string(argv[i]) == "--quick";
    host_only = host_only || std::string(argv[i]) == "--host";
  }
  if (!HostSelfTest()) return 1;
  if (host_only) return 0;
  cudaDeviceProp prop;
  HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
#ifndef HARNESS_VARIANT
#define HARNESS_VARIANT "default"
#endif
  std::printf("device: %s (%d SMs); variant %s: %d slices a thread, %d-byte stage\n", prop.name, g_sms,
              HARNESS_VARIANT, rt::kItems, PO_RINT_STAGE_BYTES);
  cudaStream_t st;
  HARNESS_CHECK(cudaStreamCreate(&st));
  bool ok = true;
  std::printf("checks (bit-exact against the host; output_size = total + delta where given):\n");
  const Case cases[] = {
      {"1-D 1000 {0..3}", 1, 1000, 1, 3, 0},
      {"1-D 100003 {0..3} +37", 1, 100003, 1, 3, 37},
      {"1-D 100003 {0..9} -5000", 1, 100003, 1, 9, -5000},
      {"[3, 5000, 1] {0..5} +1", 3, 5000, 1, 5, 1},
      {"1-D 7 {0..40000}", 1, 7, 1, 40000, 3},
      {"1-D 50000 {0..300} +9", 1, 50000, 1, 300, 9},
      {"[2, 40000, 1] {0..260} -99", 2, 40000, 1, 260, -99},
      {"1-D 5000 int32", 1, 5000, 1, 3, 0, true},
      {"1-D 3000 broadcast", 1, 3000, 1, 4, 11, false, true},
      {"[2, 3000, 3] {0..3} +5", 2, 3000, 3, 3, 5},
      {"[1, 777, 64] {0..3}", 1, 777, 64, 3, 0},
      {"[2, 300, 130] {0..4} -7", 2, 300, 130, 4, -7},
      {"[1, 2500, 256] {0..3} +2", 1, 2500, 256, 3, 2, true},
      {"[1, 5, 33] {0..2000}", 1, 5, 33, 2000, 0},
      {"1-D 2000 negative", 1, 2000, 1, 3, 0, false, false, true},
      {"[1, 2000, 8] negative", 1, 2000, 8, 3, 0, false, false, true},
      {"1-D 3 overflow", 1, 3, 1, 3, 0, false, false, false, true},
      // from rt::kCubScanTiles tiles on (513 here): the library scans the tile sums with CUB
      {"1-D 1050000 {0..3} +3 (CUB scan)", 1, 1050000, 1, 3, 3},
      {"[2, 1050000, 1] int32 {0..3} -7", 2, 1050000, 1, 3, -7, true},
      {"1-D 1050000 negative (CUB scan)", 1, 1050000, 1, 3, 0, false, false, true},
      {"1-D 1050000 overflow (CUB scan)", 1, 1050000, 1, 3, 0, false, false, false, true},
  };
  for (const Case& cs : cases) {
    ok = CheckCase<float>(st, cs) && ok;
    if (!quick) {
      ok = CheckCase<double>(st, cs) && ok;
      ok = CheckCase<uint16_t>(st, cs) && ok;
    }
  }
  ok = CheckInt<float>(st, 1, 1001, 1, 2) && ok;
  ok = CheckInt<float>(st, 3, 77, 1, 5) && ok;
  ok = CheckInt<double>(st, 2, 100, 3, 3) && ok;
  ok = CheckInt<uint16_t>(st, 2, 100, 16, 2) && ok;
  ok = CheckInt<float>(st, 2, 50, 12, 7) && ok;
  std::printf("all checks %s\n\n", ok ? "ok" : "FAILED");
  if (!quick) {
    std::printf("| %-30s | %-16s | %8s | %8s | %6s | %6s | %-4s |\n", "case", "variant", "ms", "floor ms", "x floor",
                "x old", "chk");
    std::printf("|---|---|---|---|---|---|---|\n");
    TimeCounts(st, "1-D 2^24 counts", int64_t{1} << 24, 1);
    TimeCounts(st, "[2^16, 256] axis 0 counts", int64_t{1} << 16, 256);
    TimeInt(st, "1-D 2^24 int 2", int64_t{1} << 24, 1, 2);
    TimeScans(st);
  }
  cudaStreamDestroy(st);
  return ok ? 0 : 1;
}
