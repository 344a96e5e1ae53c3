// Host emulation of the lean16 arithmetic (kernels/gpu/logcumsumexp_tiles.cuh, LseFast::Exp16 /
// Lean16, the thread steps' lean16 chunks and Lean16FirstChunk) against a long-double reference,
// with the SFU's ex2/lg2 given their worst documented error in a random direction (ex2.approx:
// 2^-22 relative; lg2.approx: 2^-22.6 absolute) and every float operation rounded as on the GPU.
// Chunks that lean16 does not take are computed exactly here (float32's paths there meet its own
// spec, tested elsewhere), so what this measures is lean16's own error and its effect on the
// outputs after it. Reports, per 16-bit type and data kind, the worst |out - ref| / ulp16(ref)
// where |ref| >= 1e-6 (ok <= 1), the outputs outside the tests' bound (ok: 0), the share of
// outputs lean16 took and its worst float error before the rounding, in half-ulps (the analysis
// says at most ~0.1).
// Build (host only, no GPU): g++ -O2 -std=c++17 -I. tools/dev/harness/lse16/emu_test.cc -o /tmp/lse16_emu
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"
#include "tools/dev/harness/lse16/ulp16.h"

using F16 = phi::dtype::float16;
using BF16 = phi::dtype::bfloat16;
static std::mt19937_64 g_rng(7);

static float Ex2(float t) {  // ex2.approx.ftz.f32 with its error bound in a random direction
  const long double r = std::exp2l(static_cast<long double>(t));
  const long double u = (g_rng() & 1) ? 1.0L : -1.0L;
  float f = static_cast<float>(r * (1.0L + u * std::ldexp(1.0L, -22)));
  if (std::fabs(f) < std::numeric_limits<float>::min()) f = 0.f;  // ftz
  return f;
}
static float Lg2(float s) {  // lg2.approx.ftz.f32, 2^-22.6 absolute
  const long double u = (g_rng() & 1) ? 1.0L : -1.0L;
  return static_cast<float>(std::log2l(static_cast<long double>(s)) + u * std::pow(2.0L, -22.6L));
}
static float Exp16(float x, float rl) { return Ex2(std::fmaf(x, 1.44269504088896341f, -rl)); }
static float OutLog2(float R, float S) { return std::fmaf(Lg2(S), 0.693147180559945309f, R); }


struct Result {
  double ulp = 0;
  double delta = 0;  // lean16 outputs: worst |float result - ref| / (half an ulp16(ref)) before rounding
  long bad = 0, lean = 0, total = 0;
};

// One line of finite 16-bit values x (scan order), chunks of 8 as the thread steps. State:
// (m, s) in long double for the exact chunks, (R, S) with S a double sum of float chunk totals
// after lean16 chunks (as the GPU's compensated float64 carry).
template <typename T>
void Line(const std::vector<float>& x, bool exclusive, Result* res) {
  const int n = static_cast<int>(x.size());
  long double rm = -INFINITY, rs = 0;  // reference
  double cm = -INFINITY, cs = 0;       // the kernel's carry
  int terms = 0;
  bool high = false;  // the carry past kLean16Pos: the last 256 steps take Lean16Float's float state
  float fm = 0, fs = 0;
  bool flt = false;
  for (int t0 = 0; t0 < n; t0 += 8) {
    if (high && !flt && n - t0 <= 256) flt = true, fm = static_cast<float>(cm), fs = static_cast<float>(cs);
    const int t1 = std::min(n, t0 + 8);
    float tmax = -INFINITY, tmin = INFINITY;
    for (int k = t0; k < t1; ++k) tmax = std::max(tmax, x[k]), tmin = std::min(tmin, x[k]);
    if (flt && std::max(tmax, fm) != fm && !(tmin >= std::max(tmax, fm) - 80.f && fm >= tmax - 80.f)) {
      flt = false, high = false, cm = fm, cs = fs;  // a range wider than kSpan: the steps above take it
    }
    const float R = std::max(tmax, static_cast<float>(cm));
    const bool usable = (cm == static_cast<double>(R) || (tmin >= R - 80.f && (cm == -INFINITY || cm >= R - 80.0)));
    // reference outputs of the chunk
    std::vector<double> ref(t1 - t0);
    for (int k = t0; k < t1; ++k) {
      auto val = [&] { return static_cast<double>(rm + std::log(rs)); };
      if (exclusive) ref[k - t0] = terms ? val() : -INFINITY;
      const long double v = x[k];
      if (v > rm) rs = rs * std::exp(rm - v) + 1, rm = v; else rs += std::exp(v - rm);
      if (!exclusive) ref[k - t0] = val();
      ++terms;
    }
    std::vector<float> out(t1 - t0);
    bool lean = false;
    if (flt) {  // Lean16Float (no NaN or inf in these data)
      lean = true;
      const float R = std::max(tmax, fm);
      if (R != fm) {  // ExpDiff: expf's 2 ulp in a random direction
        const long double u = (g_rng() & 1) ? 1.0L : -1.0L;
        fs *= static_cast<float>(std::exp(static_cast<long double>(fm) - R) * (1 + u * std::ldexp(1.0L, -22)));
        fm = R;
      }
      const float rl = R * 1.44269504088896341f;
      for (int k = t0; k < t1; ++k) {
        const float e = Exp16(x[k], rl);
        if (!exclusive) fs += e;
        out[k - t0] = OutLog2(R, fs);
        if (exclusive) fs += e;
      }
    } else if (usable && cm == -INFINITY) {  // Lean16FirstChunk
      const float xf = x[t0];
      if (xf >= 0.51f || R + std::log(8.f) <= -8.01f) {
        lean = true;
        const float rl = R * 1.44269504088896341f;
        float s = 0.f;
        int cnt = 0;
        for (int k = t0; k < t1; ++k) {
          const float e = Exp16(x[k], rl);
          if (exclusive) out[k - t0] = cnt == 0 ? -INFINITY : cnt == 1 ? xf : OutLog2(R, s);
          s += e;
          ++cnt;
          if (!exclusive) out[k - t0] = cnt == 1 ? xf : OutLog2(R, s);
        }
        if (cnt == 1) cm = xf, cs = 1; else cm = R, cs = s;
      }
    } else if (usable && !(cs == 1.0)) {  // LseFast::Lean16 (the carry holds more than one term)
      const double c = cm == R ? cs : cs * std::exp(cm - static_cast<double>(R));
      const float v = static_cast<float>(cm) + std::log(static_cast<float>(cs));
      const float top = R + std::log(static_cast<float>(c) + 8.f);
      if (v >= 0.51f || top <= -8.01f) {
        lean = true;
        high = high || v >= 0.51f;
        const float rl = R * 1.44269504088896341f;
        float s = static_cast<float>(c), acc = 0.f;
        for (int k = t0; k < t1; ++k) {
          const float e = Exp16(x[k], rl);
          acc += e;
          if (!exclusive) s += e;
          out[k - t0] = OutLog2(R, s);
          if (exclusive) s += e;
        }
        cm = R, cs = c + acc;
      }
    }
    if (!lean) {  // exact here: the float32 paths (the kernel's carry then carries lean16's past error)
      for (int k = t0; k < t1; ++k) {
        const double v = x[k];
        auto val = [&] { return cm == -INFINITY ? -INFINITY : (cs == 1.0 ? cm : cm + std::log(cs)); };
        if (exclusive) out[k - t0] = static_cast<float>(val());
        if (v > cm) cs = (cm == -INFINITY ? 0 : cs * std::exp(cm - v)) + 1, cm = v; else cs += std::exp(v - cm);
        if (!exclusive) out[k - t0] = static_cast<float>(val());
      }
    }
    for (int k = 0; k < t1 - t0; ++k) {
      const double r = ref[k];
      const double o = static_cast<float>(T(out[k]));
      ++res->total;
      res->lean += lean;
      if (std::isinf(r)) {
        if (o != r) ++res->bad;
        continue;
      }
      const double r16 = static_cast<float>(T(static_cast<float>(r)));
      if (std::fabs(o - r16) > 2.5e-7 * std::max(1.0, std::fabs(r)) + Ulp16<T>(r16)) ++res->bad;
      if (std::fabs(r) >= 1e-6) res->ulp = std::max(res->ulp, std::fabs(o - r) / Ulp16<T>(r));
      if (lean && std::fabs(r) >= 1e-6) {
        res->delta = std::max(res->delta, std::fabs(static_cast<double>(out[k]) - r) / (0.5 * Ulp16<T>(r)));
      }
    }
  }
}

template <typename T, typename Gen>
void Kind(const char* tname, const char* kind, int lines, int len, Gen gen) {
  for (int excl = 0; excl < 2; ++excl) {
    Result res;
    for (int l = 0; l < lines; ++l) {
      std::vector<float> x(len);
      for (int k = 0; k < len; ++k) x[k] = static_cast<float>(T(gen(k)));
      Line<T>(x, excl, &res);
    }
    std::printf("%-5s %-8s L=%-5d %s  worst %.3f ulp, %ld bad, %.1f%% lean16 of %ld, lean16 delta %.4f of half an ulp  %s\n",
                tname, kind, len, excl ? "excl" : "incl", res.ulp, res.bad, 100.0 * res.lean / res.total, res.total,
                res.delta,
                res.ulp <= 1.0 && res.bad == 0 ? "ok" : "FAIL");
  }
}

template <typename T>
void All(const char* tname, double wide) {
  std::normal_distribution<float> n02(0.f, 2.f), neg(-30.f, 3.f), w(0.f, static_cast<float>(wide));
  std::uniform_real_distribution<float> near0(-4.f, 0.5f), cross0(-14.f, -6.f), tiny(-30.f, -9.f), hi(0.4f, 0.7f);
  for (int len : {64, 4096}) {
    const int lines = len == 64 ? 20000 : 400;
    Kind<T>(tname, "normal", lines, len, [&](int) { return n02(g_rng); });
    Kind<T>(tname, "near0", lines, len, [&](int) { return near0(g_rng); });
    Kind<T>(tname, "cross0", lines, len, [&](int) { return cross0(g_rng); });
    Kind<T>(tname, "neg", lines, len, [&](int) { return neg(g_rng); });
    Kind<T>(tname, "tiny", lines, len, [&](int k) { return k % 97 == 0 ? 0.f : tiny(g_rng); });
    Kind<T>(tname, "wide", lines, len, [&](int) { return w(g_rng); });
    Kind<T>(tname, "edge", lines, len, [&](int) { return hi(g_rng) - 8.f * (g_rng() % 2); });  // near 0.51 and -8
  }
}

int main() {
  All<F16>("f16", 300.0);
  All<BF16>("bf16", 1e4);
  return 0;
}
