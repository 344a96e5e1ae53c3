// logcumsumexp's float32 gradient on the host, for the kernel harnesses (scan/ --grad, gradcols/):
// the forward whose outputs the gradient reads, and the gradient's error against the op's own
// recurrence (docs/spec.md §1, gradient), both in long double, line by line (ForEachLine).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "tools/dev/harness/harness.cuh"

namespace harness {

// out = logcumsumexp(x) (exclusive: of the steps before) along each line of an [outer, length,
// inner] tensor in the direction fwd_reverse, in long double, rounded to float. -inf terms add
// nothing, +inf after +inf stays +inf, a NaN makes the rest of its line NaN.
inline void LseForward(int64_t outer, int64_t length, int64_t inner, bool fwd_reverse, bool exclusive,
                       const std::vector<float>& x, std::vector<float>& out) {
  out.resize(x.size());
  ForEachLine(outer, length, inner, fwd_reverse, [&](auto at, double&) {
    long double m = -INFINITY, sum = 0;
    for (int64_t k = 0; k < length; ++k) {
      const int64_t off = at(k);
      const long double before = m == -INFINITY ? -INFINITY : m + std::log(sum);
      const long double v = x[off];
      if (v == -INFINITY) {
      } else if (v == m) {
        sum += 1.0L;
      } else if (v > m) {
        sum = sum * std::exp(m - v) + 1.0L;
        m = v;
      } else {
        sum += std::exp(v - m);
      }
      out[off] = static_cast<float>(exclusive ? before : (m == -INFINITY ? m : m + std::log(sum)));
    }
  });
}

// The largest error of x_grad `got` (the gradient scanning against fwd_reverse) in units of 1e-6
// of the same recurrence taken over |out_grad| (ok <= 10): the op's gates (0 at a line's start and
// for an output of -inf, 1 for equal outputs, else exp(o - o_prev)) and factors exp(x - o) in long
// double on the float outputs `out`. Where the op gives 0 exactly (x = -inf, an exclusive scan's
// first step) `got` must be 0; where the reference is NaN or +-inf (or its magnitude is not
// finite), `got` must be of the same class; otherwise infinite error.
inline double LseGradError(int64_t outer, int64_t length, int64_t inner, bool fwd_reverse, bool exclusive,
                           const std::vector<float>& x, const std::vector<float>& out, const std::vector<float>& og,
                           const std::vector<float>& got) {
  return ForEachLine(outer, length, inner, !fwd_reverse, [&](auto at, double& worst) {
    long double b = 0, mb = 0;
    float prev = 0.f;
    for (int64_t k = 0; k < length; ++k) {
      const int64_t off = at(k);
      const float ok = out[off];
      const float xv = x[off];
      long double gate = 0;
      if (k > 0 && ok != -INFINITY) gate = ok == prev ? 1.0L : std::exp(static_cast<long double>(ok) - prev);
      const bool zero = xv == -INFINITY || (exclusive && k == 0);  // the op's exact zeros
      long double ref = 0, mag = 0;
      if (exclusive) {
        const long double f = zero ? 0.0L : std::exp(static_cast<long double>(xv) - prev);
        ref = b * f, mag = mb * f;
        b = gate * b + og[off], mb = gate * mb + std::fabs(og[off]);
      } else {
        b = gate * b + og[off], mb = gate * mb + std::fabs(og[off]);
        const long double f = zero ? 0.0L : std::exp(static_cast<long double>(xv) - ok);
        ref = b * f, mag = mb * f;
      }
      prev = ok;
      const float g = got[off];
      double e;
      if (zero) {
        e = g == 0.f ? 0.0 : INFINITY;
      } else if (!std::isfinite(ref) || !std::isfinite(mag)) {
        const bool match = std::isnan(ref) ? std::isnan(g) : std::isinf(ref) ? g == static_cast<float>(ref) : std::isfinite(g);
        e = match ? 0.0 : INFINITY;
      } else {
        e = static_cast<double>(std::fabs(g - ref) / std::max(mag, 1e-30L)) / 1e-6;
      }
      if (!(e <= worst)) worst = e;
    }
  });
}

// The gradient's device tensors: x, out and out_grad uploaded from the host, x_grad for the
// launches to write; Op<...>() the gradient op (LogcumsumexpGradOp<float, double> or a type
// derived from it) on them.
struct LseGradTensors {
  DeviceBuffer<float> x, out, out_grad, x_grad;
  LseGradTensors(const std::vector<float>& hx, const std::vector<float>& ho, const std::vector<float>& hg)
      : x(static_cast<int64_t>(hx.size())), out(x.n), out_grad(x.n), x_grad(x.n) {
    x.Upload(hx);
    out.Upload(ho);
    out_grad.Upload(hg);
  }
  template <typename Op>
  Op MakeOp(bool exclusive) const {
    Op op;
    op.x = x.p;
    op.out = out.p;
    op.out_grad = out_grad.p;
    op.x_grad = x_grad.p;
    op.exclusive = exclusive;
    return op;
  }
};

}  // namespace harness
