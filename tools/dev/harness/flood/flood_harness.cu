// right_flood's kernel harness: the library's launch layer (kernels/funcs/gpu/scan_launch.cuh)
// with the op's real tiles (kernels/gpu/flood_tiles.cuh): the forward, the forward with its
// index, and the gradient, against the engine's generic tiles on the same op ("generic"), on the
// shapes of tools/bench/bench_flood.py and on awkward ones (rows that take no vector loads, short
// rows, reverse, NaN holes, all-hole and hole-free lines, other dtypes). Every case: random
// inputs (70% holes unless named), outputs poisoned, a host reference (the forward bit for bit,
// the gradient in long double), two runs compared bitwise, and the time against a
// device-to-device copy of the bytes the op moves (x read and out written: 8 bytes an element
// for float32; with the index 16; the gradient reads x and out_grad and writes x_grad: 12).
// Build: bash tools/dev/harness/build.sh flood; run: build-harness/flood_harness [--quick]
// [--no-check] [--no-generic] [--seg] [--only <substring of the case name>]
#include "tools/dev/harness/harness.cuh"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)

#include <cmath>
#include <limits>

#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/flood_tiles.cuh"
#include "paddle_ops/common/common.cc"  // FastDivMod's error type (one nvcc call, no library)
#include "paddle_ops/common/float16.h"

using phi::FloodHole;
using phi::funcs::ScanLayout;

// The same ops through the engine's generic tiles (GpuTileScan is not specialized for them).
template <typename T>
struct GenericFloodOp : phi::funcs::RightFloodOp<T> {};
template <typename T>
struct GenericFloodGradOp : phi::funcs::RightFloodGradOp<T, double> {};

struct Case {
  std::string name;
  int64_t outer, length, inner;
  bool reverse = false;
  FloodHole hole = FloodHole::kZero;
  double holes = 0.7;  // the fraction of holes
  int64_t numel() const { return outer * length * inner; }
};

struct Options {
  bool quick = false, check = true, generic = true, seg = false;
  std::vector<std::string> only;
  bool Selected(const std::string& name) const { return harness::Selected(only, name); }
};
static Options g_opt;

template <typename T>
bool IsHole(T v, FloodHole h) {
  return phi::funcs::IsFloodHole(v, h);
}

template <typename T>
bool SameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Random elements (a counter hash, lines in parallel, a new stream each call): holes (0 or
// NaN) with probability c.holes, else values uniform in [-2, 2) that are not holes (zeros among
// the values of a NaN-hole case; integers in [-100, 100] without 0).
inline uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
std::vector<T> Elements(const Case& c, bool holes) {
  static uint64_t stream = 0;
  const uint64_t seed = Mix(++stream * 0x9e3779b97f4a7c15ull);
  std::vector<T> h(c.numel());
  const int64_t n = c.numel();
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = Mix(seed + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull);
    const double u = static_cast<double>(r >> 11) * 0x1p-53;
    const double w = static_cast<double>(r & 0xfffff) * 0x1p-20;  // another 20 bits
    T v;
    if (holes && u < c.holes) {
      v = static_cast<T>(0.0f);
      if constexpr (!std::is_integral<T>::value) {
        if (c.hole == FloodHole::kNan) v = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
      }
    } else if constexpr (std::is_integral<T>::value) {
      const int m = 1 + static_cast<int>(w * 100);
      v = static_cast<T>((r >> 40) & 1 ? -m : m);
    } else {
      float f = static_cast<float>(4.0 * w - 2.0);
      if (f == 0.f || (c.hole == FloodHole::kNan && ((r >> 20) & 15) == 0)) f = c.hole == FloodHole::kNan ? 0.f : 1.f;
      v = static_cast<T>(f);
    }
    h[i] = v;
  }
  return h;
}

// Runs launch() twice into the poisoned outputs (scratch released after each); the first run's
// outputs, and in *same whether the second gave the same bits.
template <typename Launch, typename... Bufs>
void TwoRuns(harness::Scratch& scratch, cudaStream_t stream, Launch&& launch, bool* same,
             std::pair<harness::DeviceBuffer<Bufs>*, std::vector<Bufs>*>... outs) {
  *same = true;
  for (int run = 0; run < 2; ++run) {
    (outs.first->Poison(), ...);
    launch();
    HARNESS_CHECK(cudaStreamSynchronize(stream));
    scratch.Release();
    if (run == 0) {
      ((*outs.second = outs.first->Download()), ...);
    } else {
      ((*same = *same && std::memcmp(outs.second->data(), outs.first->Download().data(),
                                     outs.second->size() * sizeof(Bufs)) == 0),
       ...);
    }
  }
}

template <typename T>
const char* TypeName() {
  if (std::is_same<T, float>::value) return "f32";
  if (std::is_same<T, double>::value) return "f64";
  if (std::is_same<T, int32_t>::value) return "i32";
  if (std::is_same<T, int64_t>::value) return "i64";
  if (std::is_same<T, phi::dtype::float16>::value) return "f16";
  return "bf16";
}

// The forward (with_index: also the index), through Op (RightFloodOp<T> or GenericFloodOp<T>).
// err: the most outputs of a line whose bits differ from the reference.
template <typename T, typename Op>
void ForwardCase(const char* variant, const Case& c, bool with_index, cudaStream_t stream, int64_t seg = 0) {
  std::string name = std::string("fwd ") + (with_index ? "idx " : "") + TypeName<T>() + " " + c.name;
  if (!g_opt.Selected(name)) return;
  const int64_t n = c.numel();
  const std::vector<T> hx = Elements<T>(c, true);
  harness::DeviceBuffer<T> x(n), out(n);
  harness::DeviceBuffer<int64_t> index(with_index ? n : 1);
  x.Upload(hx);
  const ScanLayout l{c.outer, c.length, c.inner};
  Op op;
  op.x = x.p;
  op.out = out.p;
  op.index = with_index ? index.p : nullptr;
  op.hole = c.hole;
  op.axis = phi::funcs::AxisIndexOf(l);
  harness::Scratch scratch;
  auto launch = [&] {
    scratch.Begin();
    phi::funcs::ScanGpuLaunch(stream, scratch, l, false, c.reverse, op, nullptr, seg);
  };
  bool same = false;
  std::vector<T> ho;
  std::vector<int64_t> hi;
  if (with_index) {
    TwoRuns(scratch, stream, launch, &same, std::make_pair(&out, &ho), std::make_pair(&index, &hi));
  } else {
    TwoRuns(scratch, stream, launch, &same, std::make_pair(&out, &ho));
  }
  double err = NAN;
  if (g_opt.check) {
    err = harness::ForEachLine(c.outer, c.length, c.inner, c.reverse, [&](auto at, double& bad) {
      int64_t src = -1, src_k = -1;
      for (int64_t k = 0; k < c.length; ++k) {
        const int64_t off = at(k);
        if (!IsHole(hx[off], c.hole)) src = off, src_k = k;
        const T want = hx[src < 0 ? off : src];
        const int64_t want_i = src < 0 ? -1 : (c.reverse ? c.length - 1 - src_k : src_k);
        if (!SameBits(ho[off], want) || (with_index && hi[off] != want_i)) bad += 1;
      }
    });
  }
  const double ms = harness::TimeMs(stream, launch);
  scratch.Release();
  const int64_t bytes = n * (2 * static_cast<int64_t>(sizeof(T)) + (with_index ? 8 : 0));
  std::string v = variant;
  if (seg) v += " seg " + std::to_string(seg);
  if (!same) v += " NONDET";
  harness::Row(name, v, ms, harness::CopyMs(stream, bytes / 2), err, same && (!g_opt.check || err == 0));
}

// The gradient (float32 / float64), through Op (RightFloodGradOp<T, double> or
// GenericFloodGradOp<T>), scanned against the forward's direction. Reference: the run sums in
// long double; err = max |x_grad - ref| / (2^-p |ref| + 1e-12 * the run's sum of |out_grad|)
// over the non-holes (p = 24 for float32, 53 for float64; ok <= 1), infinite where a hole's
// gradient is not +0.
template <typename T, typename Op>
void GradCase(const char* variant, const Case& c, cudaStream_t stream, int64_t seg = 0) {
  const std::string name = std::string("grad ") + TypeName<T>() + " " + c.name;
  if (!g_opt.Selected(name)) return;
  const int64_t n = c.numel();
  const std::vector<T> hx = Elements<T>(c, true), hg = Elements<T>(c, false);
  harness::DeviceBuffer<T> x(n), g(n), xg(n);
  x.Upload(hx);
  g.Upload(hg);
  Op op;
  op.x = x.p;
  op.out_grad = g.p;
  op.x_grad = xg.p;
  op.hole = c.hole;
  const ScanLayout l{c.outer, c.length, c.inner};
  harness::Scratch scratch;
  auto launch = [&] {
    scratch.Begin();
    phi::funcs::ScanGpuLaunch(stream, scratch, l, false, !c.reverse, op, nullptr, seg);
  };
  bool same = false;
  std::vector<T> ho;
  TwoRuns(scratch, stream, launch, &same, std::make_pair(&xg, &ho));
  double err = NAN;
  if (g_opt.check) {
    const double rel = std::is_same<T, float>::value ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
    err = harness::ForEachLine(c.outer, c.length, c.inner, c.reverse, [&](auto at, double& worst) {
      int64_t src = -1;
      long double sum = 0, mag = 0;
      auto flush = [&] {
        if (src < 0) return;
        const double ref = static_cast<double>(sum);
        const double e = std::fabs(static_cast<double>(ho[src]) - ref) /
                         (rel * std::fabs(ref) + 1e-12 * static_cast<double>(mag) + 1e-300);
        if (!(e <= worst)) worst = e;
      };
      for (int64_t k = 0; k < c.length; ++k) {
        const int64_t off = at(k);
        if (!IsHole(hx[off], c.hole)) {
          flush();
          src = off, sum = 0, mag = 0;
        } else if (!SameBits(ho[off], static_cast<T>(0.0f))) {
          worst = INFINITY;
        }
        sum += static_cast<long double>(hg[off]);
        mag += std::fabs(static_cast<long double>(hg[off]));
      }
      flush();
    });
  }
  const double ms = harness::TimeMs(stream, launch);
  scratch.Release();
  std::string v = variant;
  if (seg) v += " seg " + std::to_string(seg);
  if (!same) v += " NONDET";
  harness::Row(name, v, ms, harness::CopyMs(stream, n * 3 * static_cast<int64_t>(sizeof(T)) / 2), err,
               same && (!g_opt.check || err <= 1.0));
}

template <typename T>
void AllForward(const Case& c, cudaStream_t stream) {
  ForwardCase<T, phi::funcs::RightFloodOp<T>>("fast", c, false, stream);
  if (g_opt.generic) ForwardCase<T, GenericFloodOp<T>>("generic", c, false, stream);
  ForwardCase<T, phi::funcs::RightFloodOp<T>>("fast", c, true, stream);
}

template <typename T>
void AllGrad(const Case& c, cudaStream_t stream) {
  GradCase<T, phi::funcs::RightFloodGradOp<T, double>>("fast", c, stream);
  if (g_opt.generic) GradCase<T, GenericFloodGradOp<T>>("generic", c, stream);
}

int main(int argc, char** argv) {
  Options& opt = g_opt;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) opt.quick = true;
    if (!std::strcmp(argv[i], "--no-check")) opt.check = false;
    if (!std::strcmp(argv[i], "--no-generic")) opt.generic = false;
    if (!std::strcmp(argv[i], "--seg")) opt.seg = true;
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) opt.only.push_back(argv[++i]);
  }
  cudaStream_t stream = harness::Start();
  using F16 = phi::dtype::float16;
  harness::Header();
  // Awkward cases first (checked; their times are small launches).
  std::vector<Case> awkward = {
      {"[7, 1001] last rev", 7, 1001, 1, true},          // no vector loads
      {"[3, 37, 5] axis 1", 3, 37, 5},                    // columns
      {"[100000, 10] last", 100000, 10, 1},               // short rows, W = 4
      {"[5000, 50] last rev", 5000, 50, 1, true},         // short rows, W = 16
      {"1-D 1000003 rev", 1, 1000003, 1, true},           // the single pass, unaligned
      {"[4, 300000] last", 4, 300000, 1},                 // the single pass, several rows
      {"[100000, 3] axis 0 rev", 1, 100000, 3, true},     // column segments
      {"[64, 5000] last nan", 64, 5000, 1, false, FloodHole::kNan},
      {"[2000, 33] axis 0 nan", 1, 2000, 33, false, FloodHole::kNan},
      {"1-D 2^22 holes .999", 1, 1 << 22, 1, false, FloodHole::kZero, 0.999},
      {"1-D 2^22 all holes", 1, 1 << 22, 1, false, FloodHole::kZero, 1.0},
      {"[300, 20000] axis 0 all holes", 1, 300, 20000, false, FloodHole::kZero, 1.0},
      {"[64, 70000] last no holes rev", 64, 70000, 1, true, FloodHole::kZero, 0.0},
  };
  for (const Case& c : awkward) {
    AllForward<float>(c, stream);
    AllGrad<float>(c, stream);
  }
  for (const Case& c : {awkward[0], awkward[2], awkward[3], awkward[5], awkward[6]}) {
    AllForward<double>(c, stream);
    AllGrad<double>(c, stream);
    AllForward<F16>(c, stream);
    AllForward<int32_t>(c, stream);
  }
  if (opt.quick) return 0;
  // bench_flood.py's shapes, float32 with 70% zero holes.
  const Case bench[] = {
      {"1-D 2^26", 1, int64_t{1} << 26, 1},
      {"[4096, 16384] last", 4096, 16384, 1},
      {"[16384, 4096] axis 0", 1, 16384, 4096},
  };
  for (const Case& c : bench) {
    AllForward<float>(c, stream);
    AllGrad<float>(c, stream);
    if (opt.seg && c.outer == 1 && c.inner == 1) {  // the single pass's segment length
      for (int64_t seg : {4096, 16384, 32768, 65536}) {
        ForwardCase<float, phi::funcs::RightFloodOp<float>>("fast", c, false, stream, seg);
        GradCase<float, phi::funcs::RightFloodGradOp<float, double>>("fast", c, stream, seg);
      }
    }
  }
  return 0;
}
