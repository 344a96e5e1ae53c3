// Host emulation of logcumsumexp's float-state row tiles (kernels/gpu/lse_float_state.h, built into
// the tiles with -DPO_LSE_FLOAT_STATE=1): the full-warp row paths of the GPU engine for float32,
// i.e. a warp per row (RowScanKernel, whole rows) and the single pass (OnePassRowKernel: segments of
// ScanPolicy::kRowSegment steps, each one's total (WarpTotal), the deterministic tree look-back in
// float64, then the segment's outputs from that carry (WarpRows)), in the same float32 sequence
// as the device: the header's own functions with libm standing in for the special-function unit,
// and the tiles' group logic (Range, Usable, Rebase, LeanLevel, the lane scans in lane order)
// restated here. Groups the tiles send to their float64 steps (lean level 0, NaN, +inf, a range
// wider than kSpan, the precise groups of a segment's total) are taken here in float64
// (LogAddExpCombine<double>, the op's own combine): this checks the new float32 path, not those.
//
// Math: "exact" (libm's exp2f/log2f/expf), "rand2" (each result moved by -2..2 ulp, log2 by
// -2..2 x 2^-23.6 absolute: ex2.approx's ~2 ulp, lg2.approx's 2^-22.6, libdevice expf's 2 ulp, a
// fixed hash of the argument choosing), "+2" and "-2" (every result moved the same way: a
// systematic bias, the worst case for sums). Error as the scan harness measures it: |o - ref| /
// |ref| / bound, bound 2.5e-7 where |ref| >= 0.5, 1e-6 where 1e-6 <= |ref| < 0.5 (docs/spec.md §1);
// inf/NaN must match exactly; single-term prefixes must give the term bit for bit.
//
// Build: g++ -O2 -std=c++17 -fopenmp -I. -o build-harness/lse_float_state_emu \
//          tools/dev/harness/scan/lse_float_state_emu.cc
// Run: build-harness/lse_float_state_emu [--quick]  (2^26 cases: about a minute on 2 cores)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/funcs/scan_functors.h"
#include "kernels/gpu/lse_float_state.h"

namespace fs = phi::funcs::lse_fs;
using phi::funcs::CompensatedSum;
using Sum = CompensatedSum<double>;
using State = phi::funcs::LogSumExpState<double>;
using Comb = phi::funcs::LogAddExpCombine<double>;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kInfD = std::numeric_limits<double>::infinity();

// ---- math policies -------------------------------------------------------------------------
static int g_mode = 0;  // 0 exact, 1 rand2, 2 +2, 3 -2
static const char* kModeNames[] = {"exact", "rand2", "+2ulp", "-2ulp"};

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline int Shift(float arg, uint32_t salt) {
  if (g_mode == 0) return 0;
  if (g_mode == 2) return 2;
  if (g_mode == 3) return -2;
  uint32_t h = Bits(arg) * 0x9E3779B1u ^ salt;
  h ^= h >> 15;
  h *= 0x85EBCA77u;
  h ^= h >> 13;
  return static_cast<int>(h % 5) - 2;
}
inline float Ulps(float r, int k) {
  if (!std::isfinite(r) || r == 0.f) return r;
  for (; k > 0; --k) r = std::nextafter(r, kInf);
  for (; k < 0; ++k) r = std::nextafter(r, -kInf);
  return r;
}
inline float Ftz(float r) { return std::fpclassify(r) == FP_SUBNORMAL ? 0.f : r; }

struct HostMath {
  static float Ex2(float t) { return Ftz(Ulps(std::exp2(t), Shift(t, 1))); }
  static float Lg2(float s) {
    const double l = std::log2(static_cast<double>(s));
    return static_cast<float>(l + Shift(s, 2) * std::ldexp(1.0, -24) * 1.3195);  // 2^-23.6 per step
  }
  static float Exp(float v) { return Ulps(std::exp(v), Shift(v, 3)); }
  static float Mul(float a, float b) { return a * b; }
  static float Sub(float a, float b) { return a - b; }
};
using M = HostMath;

// ---- the tiles' group logic, restated (logcumsumexp_tiles.cuh: LseFast) -------------------------
constexpr float kSpan = 80.f;
constexpr double kNearZero = 0.5, kLean = 4.0, kLean2 = 8.0;

bool Usable(const State& carry, float tmax, float tmin, bool bad, float* R) {
  const double cm = carry.m;
  if (bad || cm != cm || cm == kInfD) return false;
  *R = std::fmax(tmax, static_cast<float>(cm));
  if (!std::isfinite(*R)) return false;
  if (cm == static_cast<double>(*R)) return true;
  const float lo = *R - kSpan;
  return tmin >= lo && (cm == -kInfD || cm >= static_cast<double>(lo));
}
Sum Rebase(const State& carry, float R) {
  if (carry.m == -kInfD) return Sum::Zero();
  if (carry.m == static_cast<double>(R)) return carry.s;
  return phi::funcs::Scale(carry.s, std::exp(carry.m - static_cast<double>(R)));
}
bool NeedsExact(const State& p) {
  if (p.m == -kInfD) return true;
  if (p.s.hi == 1.0 && p.s.lo == 0.0) return true;
  return !(p.m + std::log(p.s.value()) >= kNearZero);
}
int LeanLevel(const State& carry, float R, const Sum& c, int n) {
  if (carry.m == -kInfD) return 0;
  if (carry.s.hi == 1.0 && carry.s.lo == 0.0) return 0;
  constexpr float kMargin = 0.01f;
  const float v = static_cast<float>(carry.m) + std::log(static_cast<float>(carry.s.hi));  // __logf
  if (v >= static_cast<float>(kLean2) + kMargin) return 2;
  const float top = R + std::log(static_cast<float>(c.hi) + static_cast<float>(n));
  if (top <= -static_cast<float>(kLean2) - kMargin) return 2;
  return v >= static_cast<float>(kLean) + kMargin || top <= -static_cast<float>(kLean) - kMargin ? 1 : 0;
}
// LseFast::ExpDiff: libdevice's expf of an exact difference.
float ExpDiffF(float a, float b) { return fs::ExpDiff<M>(a, b); }
// The Range of the tiles: max (NaN-propagating), the smallest element other than -inf, NaN/+inf.
void Range(const float* x, int n, float* hi, float* lo, bool* bad) {
  float h = -kInf, l = kInf;
  bool nan = false;
  for (int j = 0; j < n; ++j) {
    if (x[j] != x[j]) nan = true;
    h = std::fmax(h, x[j]);
    if (x[j] != -kInf) l = std::fmin(l, x[j]);
  }
  *hi = nan ? NAN : h;
  *lo = l;
  *bad = nan || h == kInf;
}

// A group taken in float64 (the tiles' float64 steps): outputs rounded from the op's state.
State ExactSteps(const float* x, int n, State carry, bool exclusive, float* out) {
  for (int k = 0; k < n; ++k) {
    if (exclusive) out[k] = static_cast<float>(Comb::Value(carry));
    carry = Comb::Combine(carry, Comb::Of(static_cast<double>(x[k])));
    if (!exclusive) out[k] = static_cast<float>(Comb::Value(carry));
  }
  return carry;
}

// ---- WarpRows (store path): groups of 32 lanes x 16 steps -----------------------------------------
constexpr int kLaneItems = 16, kGroup = 32 * kLaneItems;
struct Stats {
  int64_t fast = 0, slow = 0;
};

State WarpRows(const float* x, int64_t n, State carry, bool exclusive, float* out, Stats* st) {
  for (int64_t g0 = 0; g0 < n; g0 += kGroup) {
    const int cnt = static_cast<int>(std::min<int64_t>(kGroup, n - g0));
    float xs[32][kLaneItems];
    for (int i = 0; i < kGroup; ++i) xs[i / kLaneItems][i % kLaneItems] = i < cnt ? x[g0 + i] : -kInf;
    float hi, lo;
    bool bad;
    Range(&xs[0][0], kGroup, &hi, &lo, &bad);
    float R;
    int lean = 0;
    Sum c{};
    if (Usable(carry, hi, lo, bad, &R)) {
      c = Rebase(carry, R);
      lean = LeanLevel(carry, R, c, kGroup);
    }
    if (lean == 0) {
      ++st->slow;
      carry = ExactSteps(x + g0, cnt, carry, exclusive, out + g0);
      continue;
    }
    ++st->fast;
    // FloatStateGroup
    double lane_total[32];
    float ml[32];
    for (int l = 0; l < 32; ++l) {
      ml[l] = fs::LaneMax<M>(xs[l]);
      const float sl = fs::LaneSum<M>(xs[l], ml[l]);
      lane_total[l] = static_cast<double>(M::Mul(sl, fs::ExpDiff<M>(ml[l], R)));
    }
    double incl[32];  // ScanLaneTotals: Kogge-Stone in lane order
    std::copy(lane_total, lane_total + 32, incl);
    float imax[32];
    std::copy(ml, ml + 32, imax);
    for (int d = 1; d < 32; d <<= 1) {
      double ni[32];
      float nm[32];
      for (int l = 0; l < 32; ++l) {
        ni[l] = l >= d ? incl[l] + incl[l - d] : incl[l];
        nm[l] = l >= d ? std::fmax(imax[l], imax[l - d]) : imax[l];
      }
      std::copy(ni, ni + 32, incl);
      std::copy(nm, nm + 32, imax);
    }
    const double total = incl[31];
    const float cm = static_cast<float>(carry.m);
    for (int l = 0; l < 32; ++l) {
      const double before = l == 0 ? 0.0 : incl[l - 1];
      const float mp = l == 0 ? cm : std::fmax(cm, imax[l - 1]);
      const float sp = M::Mul(static_cast<float>(c.hi + (c.lo + before)), fs::ExpDiff<M>(R, mp));
      float o[kLaneItems];
      if (exclusive) {
        fs::LaneOutputs<M, true>(xs[l], mp, sp, o);
      } else {
        fs::LaneOutputs<M, false>(xs[l], mp, sp, o);
      }
      for (int j = 0; j < kLaneItems; ++j) {
        const int i = l * kLaneItems + j;
        if (i < cnt) out[g0 + i] = o[j];
      }
    }
    carry = State{static_cast<double>(R), phi::funcs::Add(c, Sum::Of(total))};
  }
  return carry;
}

// ---- WarpTotal (a segment's total, phase 1 of the single pass): U = 4 sub-tiles of 32 x 4 ---------
constexpr int kV = 4, kU = 4;
State LaneTotal(double m, const Sum (&part)[32]) {
  Sum p[32];
  std::copy(part, part + 32, p);
  for (int d = 16; d > 0; d >>= 1) {
    for (int l = 0; l < d; ++l) p[l] = phi::funcs::Add(p[l], p[l + d]);
  }
  return State{m, p[0]};
}

State WarpTotal(const float* x, int64_t n) {
  double m = -kInfD;
  Sum part[32];
  for (auto& p : part) p = Sum::Zero();
  bool settled = false, lean_settled = false;
  for (int64_t g0 = 0; g0 < n; g0 += kGroup) {
    const int cnt = static_cast<int>(std::min<int64_t>(kGroup, n - g0));
    float xs[32][kU * kV];  // lane l: xs[l][u * V + j] = step u * 128 + l * 4 + j
    for (int u = 0; u < kU; ++u) {
      for (int l = 0; l < 32; ++l) {
        for (int j = 0; j < kV; ++j) {
          const int i = u * 128 + l * kV + j;
          xs[l][u * kV + j] = i < cnt ? x[g0 + i] : -kInf;
        }
      }
    }
    float hi, lo;
    bool bad;
    Range(&xs[0][0], kGroup, &hi, &lo, &bad);
    if (!settled) settled = !NeedsExact(LaneTotal(m, part));
    if (settled && !lean_settled) {
      const State t = LaneTotal(m, part);
      lean_settled = t.m + std::log(t.s.value()) >= kLean;
    }
    float R;
    if (!Usable(State{m, Sum::Zero()}, hi, lo, bad, &R) || !settled) {
      // the float64 steps (the tiles' generic fallback, or their precise group: float64 terms and
      // the single-term rule, which the op's combine keeps too)
      float tmp[kGroup];
      const State s = ExactSteps(x + g0, cnt, LaneTotal(m, part), false, tmp);
      m = s.m;
      for (auto& p : part) p = Sum::Zero();
      part[0] = s.s;
      continue;
    }
    if (m != static_cast<double>(R)) {
      for (auto& p : part) p = m == -kInfD ? Sum::Zero() : phi::funcs::Scale(p, std::exp(m - static_cast<double>(R)));
      m = static_cast<double>(R);
    }
    for (int l = 0; l < 32; ++l) {
      if (lean_settled) {
        const float ml = fs::LaneMax<M>(xs[l]);
        const float sl = fs::LaneSum<M>(xs[l], ml);
        part[l] = phi::funcs::Add(part[l], Sum::Of(static_cast<double>(M::Mul(sl, fs::ExpDiff<M>(ml, R)))));
      } else {  // the FloatFloat path of the default tiles
        float h = 0.f, lo2 = 0.f;
        for (int u = 0; u < kU; ++u) {
          for (int j = 0; j < kV; ++j) phi::funcs::TwoSumInto(&h, &lo2, ExpDiffF(xs[l][u * kV + j], R));
        }
        part[l] = phi::funcs::Add(part[l], Sum::Of(static_cast<double>(h) + static_cast<double>(lo2)));
      }
    }
  }
  return LaneTotal(m, part);
}

// ---- the launch: whole rows, or the single pass with its tree look-back ----------------------------
constexpr int64_t kRowSegment = 8192;

Stats ScanRow(const float* x, int64_t L, bool exclusive, bool onepass, float* out) {
  Stats st;
  if (!onepass) {
    WarpRows(x, L, Comb::Identity(), exclusive, out, &st);
    return st;
  }
  const int64_t nseg = (L + kRowSegment - 1) / kRowSegment;
  std::vector<State> agg(nseg);
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < nseg; ++t) {
    agg[t] = WarpTotal(x + t * kRowSegment, std::min(kRowSegment, L - t * kRowSegment));
  }
  // blocks: level b, index k = tiles [k 2^b, (k+1) 2^b)
  std::vector<std::vector<State>> blk{agg};
  for (int b = 1; (nseg >> b) > 0; ++b) {
    std::vector<State> lv(nseg >> b);
    for (int64_t k = 0; k < (nseg >> b); ++k) lv[k] = Comb::Combine(blk[b - 1][2 * k], blk[b - 1][2 * k + 1]);
    blk.push_back(lv);
  }
  std::vector<Stats> sts(nseg);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nseg; ++i) {
    State acc = Comb::Identity();
    for (int b = 62; b >= 0; --b) {
      if ((i >> b) & 1) acc = Comb::Combine(acc, blk[b][(i >> b) - 1]);
    }
    const int64_t s0 = i * kRowSegment;
    WarpRows(x + s0, std::min(kRowSegment, L - s0), acc, exclusive, out + s0, &sts[i]);
  }
  for (const auto& s : sts) st.fast += s.fast, st.slow += s.slow;
  return st;
}

// ---- reference and error (the scan harness's LseError) --------------------------------------------
struct Err {
  double worst = 0;
  int64_t at = -1;
  bool special_bad = false, single_bad = false;
};
Err RowError(const float* x, const float* out, int64_t L, bool exclusive) {
  Err e;
  double m = -INFINITY;
  long double sum = 0;
  int64_t terms = 0;
  float first = 0.f;
  bool nan = false, pinf = false;
  for (int64_t k = 0; k < L; ++k) {
    auto value = [&]() -> double {
      if (nan) return NAN;
      if (pinf) return INFINITY;
      return m == -INFINITY ? -INFINITY : m + std::log(static_cast<double>(sum));
    };
    auto check = [&] {
      const double ref = value();
      const double o = out[k];
      if (std::isnan(ref) || std::isinf(ref)) {
        if (!(std::isnan(ref) ? std::isnan(o) : o == ref)) e.special_bad = true;
        return;
      }
      if (terms == 1) {
        if (Bits(out[k]) != Bits(first)) e.single_bad = true;
        return;
      }
      if (std::fabs(ref) < 1e-6) return;
      const double bound = std::fabs(ref) >= 0.5 ? 2.5e-7 : 1e-6;
      const double r = std::fabs(o - ref) / std::fabs(ref) / bound;
      if (!(r <= e.worst)) e.worst = r, e.at = k;
    };
    if (exclusive) check();
    const double v = x[k];
    if (v != v) {
      nan = true;
    } else if (v == INFINITY) {
      pinf = true;
    } else if (v != -INFINITY) {
      if (terms++ == 0) first = x[k];
      if (v > m) {
        sum = sum * std::exp(static_cast<long double>(m - v)) + 1.0L;
        m = v;
      } else {
        sum += std::exp(static_cast<long double>(v - m));
      }
    }
    if (!exclusive) check();
  }
  return e;
}

// ---- cases ----------------------------------------------------------------------------------------
struct Case {
  std::string name;
  int64_t rows, L;
  bool exclusive, reverse, onepass;
  std::function<void(std::mt19937_64&, float*, int64_t)> gen;  // one row
};

int main(int argc, char** argv) {
  bool quick = argc > 1 && !std::strcmp(argv[1], "--quick");
  auto normal = [](float mu, float sd) {
    return [mu, sd](std::mt19937_64& r, float* x, int64_t n) {
      std::normal_distribution<float> d(mu, sd);
      for (int64_t i = 0; i < n; ++i) x[i] = d(r);
    };
  };
  auto uniform = [](float a, float b) {
    return [a, b](std::mt19937_64& r, float* x, int64_t n) {
      std::uniform_real_distribution<float> d(a, b);
      for (int64_t i = 0; i < n; ++i) x[i] = d(r);
    };
  };
  // adversarial rows
  auto huge = [](std::mt19937_64& r, float* x, int64_t n) {  // abs(x) ~ 1e4..3e4, both signs, in runs of 700
    std::uniform_real_distribution<float> d(1e4f, 3e4f);
    for (int64_t i = 0; i < n; ++i) x[i] = (i / 700) % 2 ? d(r) : -d(r);
  };
  auto arange = [](std::mt19937_64&, float* x, int64_t n) {  // arange(10000, ...) : every term the new max
    for (int64_t i = 0; i < n; ++i) x[i] = 10000.f + static_cast<float>(i % 4096) * 0.25f;
  };
  auto descending = [](std::mt19937_64&, float* x, int64_t n) {  // max first, then ever smaller
    for (int64_t i = 0; i < n; ++i) x[i] = 50.f - static_cast<float>(i) * 1e-3f;
  };
  auto wide = [](std::mt19937_64& r, float* x, int64_t n) {  // -1000..1000, spikes
    std::uniform_real_distribution<float> d(-1000.f, 1000.f);
    std::normal_distribution<float> s(0.f, 1.f);
    for (int64_t i = 0; i < n; ++i) x[i] = i % 997 == 0 ? d(r) : s(r) - 40.f;
  };
  auto tiny = [](std::mt19937_64& r, float* x, int64_t n) {  // outputs far below 0: x ~ -1e4
    std::normal_distribution<float> d(-1e4f, 3.f);
    for (int64_t i = 0; i < n; ++i) x[i] = d(r);
  };
  auto cross = [](std::mt19937_64& r, float* x, int64_t n) {  // outputs crossing 0 slowly
    std::uniform_real_distribution<float> d(-14.f, -6.f);
    for (int64_t i = 0; i < n; ++i) x[i] = d(r);
  };
  auto neginf_runs = [](std::mt19937_64& r, float* x, int64_t n) {  // long runs of -inf, single terms
    std::normal_distribution<float> d(0.f, 2.f);
    for (int64_t i = 0; i < n; ++i) x[i] = (i % 5000) < 3000 || (i % 5000) == 3500 ? -kInf : d(r);
    for (int64_t i = 0; i < std::min<int64_t>(n, 2000); ++i) x[i] = -kInf;
    if (n > 2000) x[2000] = 7.5f;  // one finite term after 2000 -inf: outputs up to the next one
    for (int64_t i = 2001; i < std::min<int64_t>(n, 2900); ++i) x[i] = -kInf;
  };
  auto specials = [](std::mt19937_64& r, float* x, int64_t n) {  // NaN / +inf late in the row
    std::normal_distribution<float> d(0.f, 2.f);
    for (int64_t i = 0; i < n; ++i) x[i] = d(r);
    if (n > 3) x[n / 3] = kInf;
  };
  auto nanrow = [](std::mt19937_64& r, float* x, int64_t n) {
    std::normal_distribution<float> d(0.f, 2.f);
    for (int64_t i = 0; i < n; ++i) x[i] = d(r);
    if (n > 3) x[2 * n / 3] = NAN;
  };
  auto single = [](std::mt19937_64&, float* x, int64_t n) {  // one finite term in the whole row
    for (int64_t i = 0; i < n; ++i) x[i] = -kInf;
    x[n / 2 + 3] = -3.25f;
  };
  std::vector<Case> cases = {
      {"1-D 2^26 N(0,2)", 1, int64_t{1} << 26, false, false, true, normal(0.f, 2.f)},
      {"1-D 2^26 N(0,2) excl", 1, int64_t{1} << 26, true, false, true, normal(0.f, 2.f)},
      {"1-D 2^26 U(-1,1)", 1, int64_t{1} << 26, false, false, true, uniform(-1.f, 1.f)},
      {"1-D 2^26 cross0 U(-14,-6)", 1, int64_t{1} << 26, false, false, true, cross},
      {"[64, 2^20] N(0,2)", 8, int64_t{1} << 20, false, false, true, normal(0.f, 2.f)},
      {"[4096, 16384] N(0,2)", 64, 16384, false, false, false, normal(0.f, 2.f)},
      {"[4096, 16384] N(-30,3) neg", 64, 16384, false, false, false, normal(-30.f, 3.f)},
      {"[4096, 16384] U(-4,0.5) near0", 64, 16384, false, false, false, uniform(-4.f, 0.5f)},
      {"[4096, 16384] U(-4,0.5) near0 excl", 64, 16384, true, false, false, uniform(-4.f, 0.5f)},
      {"[4096, 16384] N(0,2) excl", 64, 16384, true, false, false, normal(0.f, 2.f)},
      {"rows huge, abs(x) ~ 1e4", 16, 16384, false, false, false, huge},
      {"rows arange(10000)", 16, 16384, false, false, false, arange},
      {"rows descending", 16, 16384, false, false, false, descending},
      {"rows wide -1000..1000", 16, 16384, false, false, false, wide},
      {"rows tiny x~-1e4", 16, 16384, false, false, false, tiny},
      {"rows cross0 U(-14,-6)", 16, 16384, false, false, false, cross},
      {"rows -inf runs, single terms", 16, 16384, false, false, false, neginf_runs},
      {"rows -inf runs excl", 16, 16384, true, false, false, neginf_runs},
      {"rows +inf", 4, 16384, false, false, false, specials},
      {"rows NaN", 4, 16384, false, false, false, nanrow},
      {"rows single finite term", 4, 16384, false, false, false, single},
      {"1-D 2^22 -inf runs (one pass)", 1, int64_t{1} << 22, false, false, true, neginf_runs},
      {"1-D 2^22 wide (one pass)", 1, int64_t{1} << 22, false, false, true, wide},
      {"1-D 2^22 cross0 (one pass)", 1, int64_t{1} << 22, false, false, true, cross},
  };
  std::printf("%-36s %6s %10s %10s %10s %10s  %s\n", "case (float32)", "", "exact", "rand2", "+2ulp", "-2ulp",
              "fast groups / all, specials, single terms");
  bool all_ok = true;
  for (const auto& cs : cases) {
    if (quick && cs.rows * cs.L > (int64_t{1} << 24)) continue;
    std::vector<float> x(cs.rows * cs.L), out(x.size());
    std::mt19937_64 rng(12345);
    for (int64_t r = 0; r < cs.rows; ++r) cs.gen(rng, x.data() + r * cs.L, cs.L);
    std::printf("%-36s %6s", cs.name.c_str(), "");
    Stats st;
    bool specials_ok = true, single_ok = true;
    for (int mode = 0; mode < 4; ++mode) {
      g_mode = mode;
      Stats s;
      for (int64_t r = 0; r < cs.rows; ++r) {
        const Stats t = ScanRow(x.data() + r * cs.L, cs.L, cs.exclusive, cs.onepass, out.data() + r * cs.L);
        s.fast += t.fast, s.slow += t.slow;
      }
      double worst = 0;
#pragma omp parallel for reduction(max : worst)
      for (int64_t r = 0; r < cs.rows; ++r) {
        const Err e = RowError(x.data() + r * cs.L, out.data() + r * cs.L, cs.L, cs.exclusive);
        double w = e.worst;
        if (std::getenv("EMU_WHERE") && e.at >= 0)
          std::fprintf(stderr, "  row %lld worst %.3f at step %lld (x %g, out %.9g)\n", static_cast<long long>(r), e.worst,
                       static_cast<long long>(e.at), x[r * cs.L + e.at], out[r * cs.L + e.at]);
        if (e.special_bad) w = 1e30;
        if (e.single_bad) w = 1e31;
        worst = std::max(worst, w);
      }
      if (worst >= 1e31) single_ok = false;
      else if (worst >= 1e30) specials_ok = false;
      all_ok = all_ok && worst <= 1.0;
      std::printf(" %10.3f", worst >= 1e30 ? INFINITY : worst);
      std::fflush(stdout);
      if (mode == 0) st = s;
    }
    std::printf("  %lld / %lld, %s, %s\n", static_cast<long long>(st.fast), static_cast<long long>(st.fast + st.slow),
                specials_ok ? "ok" : "BAD", single_ok ? "ok" : "BAD");
  }
  std::printf("%s\n", all_ok ? "every case within the bound in every mode" : "SOME CASE EXCEEDS THE BOUND");
  return all_ok ? 0 : 1;
}
