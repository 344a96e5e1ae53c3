// float16/bfloat16 logcumsumexp on the library's launch layer (ScanGpuLaunch with the op's real
// tiles), checked and timed: the five benchmark shapes of tools/bench/bench_gpu.py (x a copy of the
// same 2-byte tensor) and awkward cases on each path (block tiles, row groups, staged and striped
// short rows, warp segments, three-phase and one-pass columns) with outputs near 0, crossing 0,
// far below 0, -inf runs, +inf, NaN, prefixes of one finite term, huge magnitudes, in every
// mode (exclusive, reverse). Built twice (tools/dev/harness/README.md, "lse16"): -DPO_LSE16_FAST=1
// (the lean16 paths) and -DPO_LSE16_FAST=0 (the 16-bit paths before them).
//
// Checks, every output against a long-double reference from the exact 16-bit inputs:
//  - ulp: max |out - ref| / ulp16(ref) where |ref| >= 1e-6 (docs/spec.md §1: one ulp of the
//    output type; ulp16 of a subnormal is the type's smallest step); ok <= 1.
//  - bad: outputs failing the tests' bound (unittests/python/op_test.py: |out - round16(ref)| <=
//    2.5e-7 max(1, |ref|) + ulp16(round16(ref))), a prefix of one finite term not bit for bit that
//    term, NaN/inf positions differing from the reference's, or an output left unwritten; ok: 0.
//  - the two runs' bits (NONDET otherwise).
// Run: lse16_harness [--no-time] [--no-check] [--only <substring>]... (--small: the awkward cases
// only, for compute-sanitizer).
#include "tools/dev/harness/harness.cuh"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)

#include <cmath>
#include <limits>

#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"
#include "tools/dev/harness/lse16/ulp16.h"

using F16 = phi::dtype::float16;
using BF16 = phi::dtype::bfloat16;
using harness::Shape;
using phi::funcs::ScanLayout;

// Small shapes, one per path: block tiles (1-D; rows of 2^16 and near 2^18, LseBlockRowsFor's
// thresholds, whose edges the pytest covers; lengths off the 16-byte vector), the row groups (4096 rows:
// RowScanKernel), warp segments (rows below the block-tile threshold and below 4096 rows),
// staged rows (powers of two up to 512), striped short rows (lengths not a power of two),
// three-phase columns (4096 lines) and one-pass columns (128 lines).
static const Shape kSmall[] = {
    {"1-D 2^20", 1, int64_t{1} << 20, 1},
    {"1-D 1000003", 1, 1000003, 1},
    {"[2, 70000]", 2, 70000, 1},
    {"[3, 70001]", 3, 70001, 1},
    {"[8, 2^16]", 8, int64_t{1} << 16, 1},
    {"[4, 2^18 - 8]", 4, (int64_t{1} << 18) - 8, 1},
    {"[4096, 1000]", 4096, 1000, 1},
    {"[256, 4100]", 256, 4100, 1},
    {"[2^14, 64]", int64_t{1} << 14, 64, 1},
    {"[2^12, 512]", int64_t{1} << 12, 512, 1},
    {"[2^14, 48]", int64_t{1} << 14, 48, 1},
    {"[2^14, 7]", int64_t{1} << 14, 7, 1},
    {"[64, 1000, 64] axis 1", 64, 1000, 64},
    {"[16, 5000, 8] axis 1", 16, 5000, 8},
};


struct Check {
  double ulp = 0;   // max strict error in ulps where |ref| >= 1e-6
  int64_t bad = 0;  // failures of the tests' bound, single-term, special values
};

template <typename T>
Check Verify(const Shape& s, const std::vector<T>& x, const std::vector<T>& out, bool exclusive, bool reverse) {
  Check all;
  const int64_t lines = s.outer * s.inner;
#pragma omp parallel
  {
    Check mine;
#pragma omp for schedule(dynamic, 16)
    for (int64_t ln = 0; ln < lines; ++ln) {
      const int64_t base = ln / s.inner * s.length * s.inner + ln % s.inner;
      long double m = -INFINITY, sum = 0;
      int terms = 0;  // finite terms so far (2: two or more)
      double first = 0;
      bool nan = false, pinf = false;
      for (int64_t k = 0; k < s.length; ++k) {
        const int64_t off = base + (reverse ? s.length - 1 - k : k) * s.inner;
        const double v = static_cast<double>(static_cast<float>(x[off]));
        double ref = 0;
        int n_ref = terms;
        double first_ref = first;
        auto value = [&]() -> double {
          if (nan) return NAN;
          if (pinf) return INFINITY;
          if (terms == 0) return -INFINITY;
          return static_cast<double>(m + std::log(sum));
        };
        auto add = [&] {
          if (v != v) nan = true;
          if (v == INFINITY) pinf = true;
          if (v != v || std::isinf(v)) return;
          if (terms == 0) first = v;
          terms = terms < 2 ? terms + 1 : 2;
          if (v > m) {
            sum = sum * std::exp(m - static_cast<long double>(v)) + 1.0L;
            m = v;
          } else {
            sum += std::exp(static_cast<long double>(v) - m);
          }
        };
        if (exclusive) {
          ref = value();
        } else {
          add();
          ref = value();
          n_ref = terms;
          first_ref = first;
        }
        if (exclusive) add();
        const double o = static_cast<double>(static_cast<float>(out[off]));
        if (ref != ref || std::isinf(ref)) {
          if (!((ref != ref && o != o) || o == ref)) ++mine.bad;
          continue;
        }
        if (!std::isfinite(o)) {
          ++mine.bad;
          continue;
        }
        if (n_ref == 1 && !nan && !pinf) {  // one finite term: that term, bit for bit
          if (o != first_ref) ++mine.bad;
          continue;
        }
        const double r16 = static_cast<double>(static_cast<float>(static_cast<T>(static_cast<float>(ref))));
        if (std::fabs(o - r16) > 2.5e-7 * std::max(1.0, std::fabs(ref)) + Ulp16<T>(r16)) ++mine.bad;
        if (std::fabs(ref) >= 1e-6) mine.ulp = std::max(mine.ulp, std::fabs(o - ref) / Ulp16<T>(ref));
      }
    }
#pragma omp critical
    {
      all.ulp = std::max(all.ulp, mine.ulp);
      all.bad += mine.bad;
    }
  }
  return all;
}

struct Options {
  bool time = true, check = true, small_only = false;
  std::vector<std::string> only;
};
static Options g_opt;

static void PrintRow(const std::string& name, const std::string& variant, double ms, double copy_ms, const Check& c,
                     bool checked, bool same) {
  const bool ok = same && (!checked || (c.bad == 0 && c.ulp <= 1.0));
  std::printf("| %-40s | %-10s | %9.4f | %7.4f | %6.2f | %7.3f | %7lld | %-4s |\n", name.c_str(), variant.c_str(), ms,
              copy_ms, ms / copy_ms, checked ? c.ulp : NAN, static_cast<long long>(c.bad), ok ? "ok" : "FAIL");
  std::fflush(stdout);
}

template <typename T, typename Gen>
void RunCase(const char* tname, const char* kind, const Shape& s, bool exclusive, bool reverse, Gen gen,
             cudaStream_t stream, bool timed) {
  std::string name = std::string("lse ") + tname + " " + s.name + " " + kind;
  if (exclusive) name += " excl";
  if (reverse) name += " rev";
  if (!harness::Selected(g_opt.only, name)) return;
  std::vector<T> hx(s.numel());
  gen(hx, s);
  harness::DeviceBuffer<T> x(s.numel()), out(s.numel());
  x.Upload(hx);
  const ScanLayout l{s.outer, s.length, s.inner};
  const phi::funcs::LogcumsumexpOp<T, double> op{{}, x.p, out.p};
  harness::Scratch scratch;
  auto launch = [&] {
    scratch.Begin();
    phi::funcs::ScanGpuLaunch(stream, scratch, l, exclusive, reverse, op);
  };
  bool same = false;
  const std::vector<T> first = harness::TwoRuns(out, scratch, stream, launch, &same);
  Check c;
  if (g_opt.check) c = Verify<T>(s, hx, first, exclusive, reverse);
  double ms = NAN, copy = NAN;
  if (timed && g_opt.time) {
    ms = harness::TimeMs(stream, launch);
    scratch.Release();
    copy = harness::CopyMs(stream, s.numel() * int64_t{sizeof(T)});
  }
#ifdef HARNESS_VARIANT
  const char* variant = HARNESS_VARIANT;
#else
  const char* variant = PO_LSE16_FAST ? "lean16" : "old";
#endif
  PrintRow(name, same ? variant : "NONDET", ms, copy, c, g_opt.check, same);
}

// Data kinds. Each fills a whole tensor (line by line where it matters).
template <typename T>
struct Gens {
  static constexpr float kInf = std::numeric_limits<float>::infinity();
  static void Normal(std::vector<T>& v, const Shape&) {
    std::normal_distribution<float> d(0.f, 2.f);
    for (auto& e : v) e = T(d(harness::Rng()));
  }
  static void Uniform(std::vector<T>& v, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    for (auto& e : v) e = T(d(harness::Rng()));
  }
  static void Near0(std::vector<T>& v, const Shape&) { Uniform(v, -4.f, 0.5f); }     // outputs crossing 0 soon
  static void Cross0(std::vector<T>& v, const Shape&) { Uniform(v, -14.f, -6.f); }   // crossing 0 slowly
  static void Neg(std::vector<T>& v, const Shape&) {                                  // far below 0
    std::normal_distribution<float> d(-30.f, 3.f);
    for (auto& e : v) e = T(d(harness::Rng()));
  }
  // Outputs that stay within a fine ulp of 0 for long: x = -k * 0.75 ... one term 0 and small
  // terms; float16's subnormal outputs (below 2^-14) and bfloat16's tiny ones come from
  // log(1 + exp(x)) with x down to -30.
  static void Tiny(std::vector<T>& v, const Shape& s) {
    std::uniform_real_distribution<float> d(-30.f, -9.f);
    for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
      const int64_t k = i / s.inner % s.length;  // step along the line (forward order)
      v[i] = T(k % 97 == 0 ? 0.f : d(harness::Rng()));
    }
  }
  // Wide magnitudes: N(0, 300) (float16 up to its 65504 never reached), bfloat16 N(0, 1e4).
  static void Wide(std::vector<T>& v, const Shape&) {
    std::normal_distribution<float> d(0.f, sizeof(T) == 2 && std::is_same<T, F16>::value ? 300.f : 1e4f);
    for (auto& e : v) e = T(d(harness::Rng()));
  }
  // normal data with -inf runs (1..200 long), a rare +inf and NaN, and lines that start with a
  // run of -inf then one finite term then -inf again (single-term prefixes mid-line).
  static void Specials(std::vector<T>& v, const Shape& s) {
    std::normal_distribution<float> d(0.f, 2.f);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> run(1, 200);
    auto& g = harness::Rng();
    for (auto& e : v) e = T(d(g));
    const int64_t lines = s.outer * s.inner;
    for (int64_t ln = 0; ln < lines; ++ln) {
      const int64_t base = ln / s.inner * s.length * s.inner + ln % s.inner;
      auto at = [&](int64_t k) -> T& { return v[base + k * s.inner]; };
      const int64_t head = std::min<int64_t>(s.length, ln % 3 == 0 ? 37 : 0);
      for (int64_t k = 0; k < head; ++k) at(k) = T(-kInf);
      if (head > 20) at(11) = T(d(g));  // one finite term inside the head
      for (int64_t k = head; k < s.length; ++k) {
        const double r = u(g);
        if (r < 2e-3) {
          const int64_t n = std::min<int64_t>(run(g), s.length - k);
          for (int64_t j = 0; j < n; ++j) at(k + j) = T(-kInf);
          k += n - 1;
        } else if (r < 2e-3 + 2e-5) {
          at(k) = T(kInf);
        } else if (r < 2e-3 + 4e-5) {
          at(k) = T(NAN);
        }
      }
    }
  }
  // lines of -inf with one finite term (every output after it is that term), and lines of two
  // terms far apart in value.
  static void Single(std::vector<T>& v, const Shape& s) {
    std::normal_distribution<float> d(0.f, 3.f);
    auto& g = harness::Rng();
    for (auto& e : v) e = T(-kInf);
    const int64_t lines = s.outer * s.inner;
    for (int64_t ln = 0; ln < lines; ++ln) {
      const int64_t base = ln / s.inner * s.length * s.inner + ln % s.inner;
      const int64_t k = static_cast<int64_t>(g() % static_cast<uint64_t>(s.length));
      v[base + k * s.inner] = T(d(g));
      if (ln % 2 == 1) {
        const int64_t k2 = static_cast<int64_t>(g() % static_cast<uint64_t>(s.length));
        if (k2 != k) v[base + k2 * s.inner] = T(d(g) - 20.f);
      }
    }
  }
};

template <typename T>
void AllCases(const char* tname, cudaStream_t stream) {
  using G = Gens<T>;
  if (!g_opt.small_only) {
    for (const Shape& s : harness::kBenchShapes) RunCase<T>(tname, "normal", s, false, false, G::Normal, stream, true);
  }
  const bool modes[4][2] = {{false, false}, {true, false}, {false, true}, {true, true}};
  for (const Shape& s : kSmall) {
    for (const auto& md : modes) {
      RunCase<T>(tname, "normal", s, md[0], md[1], G::Normal, stream, false);
      RunCase<T>(tname, "near0", s, md[0], md[1], G::Near0, stream, false);
      RunCase<T>(tname, "specials", s, md[0], md[1], G::Specials, stream, false);
    }
    RunCase<T>(tname, "cross0", s, false, false, G::Cross0, stream, false);
    RunCase<T>(tname, "cross0", s, true, true, G::Cross0, stream, false);
    RunCase<T>(tname, "neg", s, false, true, G::Neg, stream, false);
    RunCase<T>(tname, "tiny", s, false, false, G::Tiny, stream, false);
    RunCase<T>(tname, "wide", s, true, false, G::Wide, stream, false);
    RunCase<T>(tname, "single", s, false, false, G::Single, stream, false);
    RunCase<T>(tname, "single", s, true, true, G::Single, stream, false);
  }
}

int main(int argc, char** argv) {
  bool f32 = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-time")) g_opt.time = false;
    if (!std::strcmp(argv[i], "--no-check")) g_opt.check = false;
    if (!std::strcmp(argv[i], "--small")) g_opt.small_only = true, f32 = false;
    if (!std::strcmp(argv[i], "--no-f32")) f32 = false;
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) g_opt.only.push_back(argv[++i]);
  }
  cudaStream_t stream = harness::Start();
  std::printf("| %-40s | %-10s | %9s | %7s | %6s | %7s | %7s | %-4s |\n", "case", "variant", "ms", "copy ms",
              "x copy", "ulp", "bad", "chk");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  AllCases<F16>("f16", stream);
  AllCases<BF16>("bf16", stream);
  if (f32 && g_opt.time) {  // float32 on the benchmark shapes, timed against its own copy (unchecked here)
    const bool check = g_opt.check;
    g_opt.check = false;
    for (const Shape& s : harness::kBenchShapes) {
      std::string name = std::string("lse f32 ") + s.name + " normal";
      if (!harness::Selected(g_opt.only, name)) continue;
      std::vector<float> hx(s.numel());
      std::normal_distribution<float> d(0.f, 2.f);
      for (auto& e : hx) e = d(harness::Rng());
      harness::DeviceBuffer<float> x(s.numel()), out(s.numel());
      x.Upload(hx);
      const phi::funcs::LogcumsumexpOp<float, double> op{{}, x.p, out.p};
      harness::Scratch scratch;
      const ScanLayout l{s.outer, s.length, s.inner};
      const double ms = harness::TimeMs(stream, [&] {
        scratch.Begin();
        phi::funcs::ScanGpuLaunch(stream, scratch, l, false, false, op);
      });
      scratch.Release();
      PrintRow(name, "f32", ms, harness::CopyMs(stream, s.numel() * 4), Check{}, false, true);
    }
    g_opt.check = check;
  }
  return 0;
}
