// The kernel harness for float64 logcumsumexp (tools/dev/harness/README.md, "lse64"): the block
// tiles of kernels/gpu/logcumsumexp_f64_tiles.cuh against the engine's generic path, on the rows
// they are for (1-D, few long rows) and awkward ones, checked against a long double reference at
// docs/spec.md §1's float64 bound, run twice (bitwise), timed against a copy of the same tensor.
// Built with PO_LSE_F64_ROWS=1 (defined below), so the library's choice ("lib") is the routed
// path; "old" is the engine's generic single pass (ScanGpuLaunch with the row segment
// forced: the library's float64 path before this file); "b<threads>i<items>mb<blocks>" the block
// tiles launched directly (with a carry-in where the case has one).
//   lse64_harness [--only S]... [--skip S]... [--variant S]... [--no-check] [--no-time] [--list]
// (--only/--skip: cases whose name holds S; --variant: variants whose name holds S)
#include "tools/dev/harness/harness.cuh"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)
#define PO_LSE_F64_ROWS 1  // the library's choice ("lib") routes the block tiles
#ifndef PO_LSE_F64_WARP
#define PO_LSE_F64_WARP 1  // and its warp rows (-DPO_LSE_F64_WARP=0: the generic warp steps)
#endif

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernels/funcs/gpu/scan_launch.cuh"
#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/impl/cum_scan_ops.h"


using phi::funcs::ScanLayout;
using Op = phi::funcs::LogcumsumexpOp<double, double>;
using State = Op::State;
namespace sg = phi::funcs::scan_gpu;

static constexpr double kInf = std::numeric_limits<double>::infinity();

struct Case {
  std::string name;
  int64_t outer, length;
  std::function<double(std::mt19937_64&, int64_t, int64_t)> gen;  // (rng, row, step in memory)
  bool exclusive = false, reverse = false, init = false;
  int64_t numel() const { return outer * length; }
};

// Generators. Steps are memory order (reverse scans see them backwards).
static double Normal(std::mt19937_64& r, int64_t, int64_t) { return std::normal_distribution<double>(0, 1)(r); }
static double Wide(std::mt19937_64& r, int64_t, int64_t) {
  return std::uniform_real_distribution<double>(-1000, 1000)(r);
}
// Outputs crossing 0 along the row (the sum of n terms near exp(-10) passes 1 at n ~ 2e4).
static double Cross0(std::mt19937_64& r, int64_t, int64_t) {
  return std::uniform_real_distribution<double>(-12, -8)(r);
}
static double Near0(std::mt19937_64& r, int64_t, int64_t) {
  return std::uniform_real_distribution<double>(-4, 0.5)(r);
}
// -inf runs: 40 % holes, and rows starting (in memory) with 5000 -inf and one finite term.
static double Holes(std::mt19937_64& r, int64_t, int64_t k) {
  const double u = std::uniform_real_distribution<double>(0, 1)(r);
  if (k < 5000) return -kInf;
  if (k == 5000) return 3.25;
  if (k < 9000) return -kInf;  // every output up to here is the single term 3.25 (forward)
  return u < 0.4 ? -kInf : std::normal_distribution<double>(0, 3)(r);
}
static double Spiky(std::mt19937_64& r, int64_t, int64_t k) {  // rises past kSpan over a carry
  const double v = std::normal_distribution<double>(0, 1)(r);
  return k % 50000 == 49999 ? v + 40.0 : v;
}
static double Ramp(std::mt19937_64&, int64_t, int64_t k) { return 1e-3 * static_cast<double>(k); }
static double SteepRamp(std::mt19937_64&, int64_t, int64_t k) { return 1e-2 * static_cast<double>(k); }
static double PosInf(std::mt19937_64& r, int64_t row, int64_t k) {
  return k == 40000 + row ? kInf : std::normal_distribution<double>(0, 1)(r);
}
static double NaNAt(std::mt19937_64& r, int64_t row, int64_t k) {
  return k == 50001 + 7 * row ? std::numeric_limits<double>::quiet_NaN() : std::normal_distribution<double>(0, 1)(r);
}
// Short rows' holes: 300 -inf, one term, 300 -inf, then 40 % holes.
static double RowHoles(std::mt19937_64& r, int64_t, int64_t k) {
  const double u = std::uniform_real_distribution<double>(0, 1)(r);
  if (k < 300) return -kInf;
  if (k == 300) return -2.5;
  if (k < 600) return -kInf;
  return u < 0.4 ? -kInf : std::normal_distribution<double>(0, 3)(r);
}
static double RowSpecials(std::mt19937_64& r, int64_t row, int64_t k) {
  if (row % 3 == 0 && k == 500) return kInf;
  if (row % 3 == 1 && k == 700) return std::numeric_limits<double>::quiet_NaN();
  return std::normal_distribution<double>(0, 2)(r);
}
static double Big(std::mt19937_64& r, int64_t, int64_t) {  // |x| ~ 1e4: outputs far from 0
  return 1e4 + std::normal_distribution<double>(0, 5)(r);
}

static std::vector<Case> Cases() {
  std::vector<Case> c;
  auto add = [&](const std::string& n, int64_t o, int64_t l, auto g, bool modes, bool init = false) {
    for (int m = 0; m < (modes ? 4 : 1); ++m) {
      const bool ex = m & 1, rev = (m >> 1) & 1;
      std::string name = n;
      if (ex) name += " excl";
      if (rev) name += " rev";
      c.push_back(Case{name, o, l, g, ex, rev, false});
      if (init) c.push_back(Case{name + " init", o, l, g, ex, rev, true});
    }
  };
  // benchmark shapes (rows the block tiles are for, and [4096, 16384], which the library leaves
  // to its warp rows: the block tiles launched directly there)
  add("1-D 2^26", 1, int64_t{1} << 26, Normal, false);
  add("[64, 2^20]", 64, int64_t{1} << 20, Normal, false);
  add("[4096, 16384]", 4096, 16384, Normal, false);
  // awkward: lengths off the vector width and the tile, every mode, special values
  add("normal 1000003", 1, 1000003, Normal, true, true);
  add("normal 2^18+2", 1, (int64_t{1} << 18) + 2, Normal, true);
  add("[3, 2^16] holes", 3, int64_t{1} << 16, Holes, true, true);
  add("wide 300001", 1, 300001, Wide, true);
  add("cross0 [2, 70000]", 2, 70000, Cross0, true);
  add("near0 [2, 70000]", 2, 70000, Near0, true);
  add("spiky 2^20", 1, int64_t{1} << 20, Spiky, true);
  add("ramp 2^20", 1, int64_t{1} << 20, Ramp, true);
  add("steep 2^18", 1, int64_t{1} << 18, SteepRamp, true);
  add("+inf [2, 2^17]", 2, int64_t{1} << 17, PosInf, true);
  add("nan [2, 2^17]", 2, int64_t{1} << 17, NaNAt, true);
  add("big 2^19+1", 1, (int64_t{1} << 19) + 1, Big, true);
  add("small 70001", 1, 70001, Normal, true, true);
  // the warp rows (PO_LSE_F64_WARP): many rows a warp each (RowScanKernel), and the warp segments
  // of the single pass (rows too short for the block tiles, or with a carry-in)
  add("rows [2100, 301]", 2100, 301, Normal, true);
  add("rows [2048, 4098] holes", 2048, 4098, RowHoles, true);
  add("rows [2049, 1030] specials", 2049, 1030, RowSpecials, true);
  add("rows [2048, 3000] cross0", 2048, 3000, Cross0, true);
  add("seg [100, 20001]", 100, 20001, Normal, true, true);
  add("seg [7, 9000] holes", 7, 9000, RowHoles, true, true);
  return c;
}

// The carry-in of row r (init cases): a state of several terms, value near 1.3 + r.
static State InitOf(int64_t r) {
  return State{0.25 + static_cast<double>(r), phi::funcs::CompensatedSum<double>{2.875, 1e-17}};
}

// Largest error in units of the spec's bound (1e-14 max(1, |ref|)); single-term outputs must be
// the term bit for bit, special values exactly (a violation counts 1e9).
static double Check(const Case& cs, const std::vector<double>& x, const std::vector<double>& out) {
  return harness::ForEachLine(cs.outer, cs.length, 1, cs.reverse, [&](auto at, double& worst) {
    const int64_t row = at(0) / cs.length;
    long double M = -INFINITY, S = 0;
    int cnt = 0;
    double single = 0;
    bool nan = false, pinf = false;
    if (cs.init) {
      const State s = InitOf(row);
      M = s.m;
      S = static_cast<long double>(s.s.hi) + s.s.lo;
      cnt = 2;
    }
    auto check = [&](double got) {
      double e = 0;
      if (nan) {
        e = got != got ? 0 : 1e9;
      } else if (pinf) {
        e = got == kInf ? 0 : 1e9;
      } else if (cnt == 0) {
        e = got == -kInf ? 0 : 1e9;
      } else if (cnt == 1) {
        e = std::memcmp(&got, &single, sizeof(double)) == 0 ? 0 : 1e9;
      } else {
        const long double ref = M + std::log(S);
        e = static_cast<double>(std::fabs(static_cast<long double>(got) - ref) /
                                (1e-14L * std::max<long double>(1, std::fabs(ref))));
        if (got != got) e = 1e9;
      }
      if (!(e <= worst)) worst = e != e ? 1e9 : e;
    };
    for (int64_t k = 0; k < cs.length; ++k) {
      const double v = x[at(k)];
      if (cs.exclusive) check(out[at(k)]);
      if (v != v) {
        nan = true;
      } else if (v == kInf) {
        pinf = true;
      } else if (v != -kInf) {
        if (cnt == 0) {
          M = v;
          S = 1;
          single = v;
        } else if (v > M) {
          S = S * std::exp(M - static_cast<long double>(v)) + 1;
          M = v;
        } else {
          S += std::exp(static_cast<long double>(v) - M);
        }
        cnt = cnt < 2 ? cnt + 1 : 2;
      }
      if (!cs.exclusive) check(out[at(k)]);
    }
  });
}

struct Variant {
  std::string name;
  // launches the case (x, out on device, init per row or null); returns false where it does not apply
  std::function<bool(cudaStream_t, harness::Scratch&, const Case&, const Op&, const State*)> run;
};

template <int kT, int kI, int kMB>
static Variant Direct() {
  return Variant{"b" + std::to_string(kT) + "i" + std::to_string(kI) + "mb" + std::to_string(kMB),
                 [](cudaStream_t s, harness::Scratch& sc, const Case& cs, const Op& op, const State* init) {
                   const sg::LineGeometry g{cs.length, 1, cs.reverse};
                   sg::LaunchLse64Rows<kT, kI, kMB>(s, sc, g, cs.outer, cs.exclusive, op, init);
                   return true;
                 }};
}

static std::vector<Variant> Variants() {
  std::vector<Variant> v;
  v.push_back({"old", [](cudaStream_t s, harness::Scratch& sc, const Case& cs, const Op& op, const State* init) {
                 const ScanLayout l{cs.outer, cs.length, 1};
                 phi::funcs::ScanGpuLaunch(s, sc, l, cs.exclusive, cs.reverse, op, init,
                                           sg::ScanPolicy::kRowSegment);
                 return true;
               }});
  v.push_back({"lib", [](cudaStream_t s, harness::Scratch& sc, const Case& cs, const Op& op, const State* init) {
                 const ScanLayout l{cs.outer, cs.length, 1};
                 phi::funcs::ScanGpuLaunch(s, sc, l, cs.exclusive, cs.reverse, op, init);
                 return true;
               }});
  v.push_back(Direct<256, 16, 3>());
  v.push_back(Direct<256, 16, 2>());
  v.push_back(Direct<512, 8, 2>());
  v.push_back(Direct<256, 8, 4>());
  return v;
}

int main(int argc, char** argv) {
  std::vector<std::string> only, skip, variants;
  bool check = true, time = true, list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) {
      only.push_back(argv[++i]);
    } else if (a == "--skip" && i + 1 < argc) {
      skip.push_back(argv[++i]);
    } else if (a == "--variant" && i + 1 < argc) {
      variants.push_back(argv[++i]);
    } else if (a == "--no-check") {
      check = false;
    } else if (a == "--no-time") {
      time = false;
    } else if (a == "--list") {
      list = true;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  const auto cases = Cases();
  const auto vars = Variants();
  if (list) {
    for (const auto& c : cases) std::printf("%s\n", c.name.c_str());
    return 0;
  }
  cudaStream_t stream = harness::Start();
  harness::Header();
  bool all_ok = true;
  for (const auto& cs : cases) {
    if (!harness::Selected(only, cs.name) || (!skip.empty() && harness::Selected(skip, cs.name))) continue;
    const int64_t n = cs.numel();
    std::vector<double> hx(n);
    auto& rng = harness::Rng();
    for (int64_t r = 0; r < cs.outer; ++r) {
      for (int64_t k = 0; k < cs.length; ++k) hx[r * cs.length + k] = cs.gen(rng, r, k);
    }
    harness::DeviceBuffer<double> x(n), out(n);
    x.Upload(hx);
    std::vector<State> hinit(cs.outer);
    for (int64_t r = 0; r < cs.outer; ++r) hinit[r] = InitOf(r);
    harness::DeviceBuffer<State> dinit(cs.outer);
    dinit.Upload(hinit);
    const State* init = cs.init ? dinit.p : nullptr;
    const double copy_ms = time ? harness::CopyMs(stream, n * int64_t{sizeof(double)}) : 0.0;
    Op op;
    op.x = x.p;
    op.out = out.p;
    harness::Scratch scratch;
    for (const auto& v : vars) {
      if (!variants.empty() && !harness::Selected(variants, v.name)) continue;
      out.Poison();
      scratch.Begin();
      v.run(stream, scratch, cs, op, init);
      HARNESS_CHECK(cudaStreamSynchronize(stream));
      HARNESS_CHECK(cudaGetLastError());
      const std::vector<double> first = out.Download();
      out.Poison();
      scratch.Begin();
      v.run(stream, scratch, cs, op, init);
      HARNESS_CHECK(cudaStreamSynchronize(stream));
      const std::vector<double> second = out.Download();
      const bool det = std::memcmp(first.data(), second.data(), n * sizeof(double)) == 0;
      double err = NAN;
      if (check) err = Check(cs, hx, first);
      double ms = 0;
      if (time) {
        ms = harness::TimeMs(stream, [&] {
          scratch.Begin();
          v.run(stream, scratch, cs, op, init);
        });
      }
      const bool ok = det && (!check || err <= 1.0);
      all_ok = all_ok && ok;
      harness::Row(cs.name, det ? v.name : v.name + " NONDET", ms, time ? copy_ms : 1.0, err, ok);
    }
  }
  std::printf("%s\n", all_ok ? "all ok" : "SOME FAILED");
  return all_ok ? 0 : 1;
}
