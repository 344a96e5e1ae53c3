// Fuzzing cumsum and cumsum_grad.
#include "unittests/cpp/exact_sum.h"
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

// docs/spec.md §2: a float32 sum scan (x scanned as `at` says, giving `got`) is never further
// from the exact sum than a left-to-right float64 loop rounded once; a float64 one either is
// not, or is within the double-double bound (half an ulp of the output plus
// n^2 * 2^-106 * sum|x| over the prefix of n terms). Lines holding a
// non-finite input or output are left to the tolerance check. (float16 and bfloat16 would need a
// single rounding of the loop, which the library's own conversions do not give the reference:
// unittests/python/test_cumsum_accuracy.py covers them.)
void ExpectNeverWorseThanLoop(const char* what, const Arr& x, const Arr& got, const ScanAttrs& at) {
  if (x.dtype != DataType::FLOAT32 && x.dtype != DataType::FLOAT64) return;
  const ScanView s = ScanViewOf(x.dims, at.axis, at.flatten);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      paddle_ops_test::ExactSumFloat64 exact;
      double loop = 0, abs_sum = 0;
      for (int64_t k = 0; k < s.length; ++k) {
        const int64_t e = s.Offset(o, Step(s, k, at.reverse), i);
        const double xv = static_cast<double>(x.v[e]);
        if (!std::isfinite(xv)) break;
        if (!at.exclusive) {
          exact.Add(xv);
          loop += xv;
          abs_sum += std::fabs(xv);
        }
        const double mine = static_cast<double>(got.v[e]);
        const double theirs = x.dtype == DataType::FLOAT32 ? static_cast<double>(static_cast<float>(loop)) : loop;
        if (!std::isfinite(mine) || !std::isfinite(theirs)) break;
        const long double miss = exact.DistanceTo(mine);
        const double n = static_cast<double>(k + 1);
        const bool within_compensated_bound =
            x.dtype == DataType::FLOAT64 &&
            miss <= 0.5L * (std::nextafter(std::fabs(mine), INFINITY) - std::fabs(mine)) +
                        static_cast<long double>(n * n * std::ldexp(abs_sum, -106));
        if (miss > exact.DistanceTo(theirs) && !within_compensated_bound) {
          Fail(std::string(what) + "[" + std::to_string(e) + "] = " + std::to_string(mine) +
               " is further from the exact sum than the float64 loop's " + std::to_string(theirs));
        }
        if (at.exclusive) {
          exact.Add(xv);
          loop += xv;
          abs_sum += std::fabs(xv);
        }
      }
    }
  }
}

// cumsum and its grad: floats, int32, int64 (other dtypes: NotFound).
void FuzzCumsum(Fdp& f, bool grad) {
  SetEngine(f);
  const DataType t = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 4, grad ? 2600 : 6000), t);
  const ScanAttrs at = PickScanAttrs(f, static_cast<int>(x.dims.size()));
  g_case = Describe(grad ? "cumsum_grad" : "cumsum", x, at);
  const bool has_kernel = HasCpuKernel("cumsum", t);
  const int expected = !has_kernel ? kNotFound : !at.valid ? at.error() : kValid;
  std::vector<int64_t> odims = x.dims;
  if (at.flatten) odims = {x.numel()};
  Arr xs = x;
  xs.dims = odims;
  const bool is_int = !IsFloat(t);
  auto add = [is_int, t](LD a, LD b) -> LD {
    if (!is_int) return a + b;
    // Integers wrap (two's complement), as documented.
    const uint64_t s = static_cast<uint64_t>(static_cast<int64_t>(a)) + static_cast<uint64_t>(static_cast<int64_t>(b));
    return t == DataType::INT32 ? static_cast<LD>(static_cast<int32_t>(static_cast<uint32_t>(s)))
                                : static_cast<LD>(static_cast<int64_t>(s));
  };
  if (!grad) {
    Tensor out;
    if (!Run([&] { out = api::cumsum(ToTensor(x), phi::Scalar(at.axis), at.flatten, at.exclusive, at.reverse); },
             expected)) {
      return;
    }
    Arr ax = xs;
    for (LD& v : ax.v) v = std::fabs(v);
    std::vector<LD> scale = ScanRef(ax, at, 0, [](LD a, LD b) { return a + b; });
    for (LD& v : scale) v = std::max<LD>(1, v);
    Expect("out", FromTensor(out), ScanRef(xs, at, 0, add), odims, t, kSumTol, &scale);
    ExpectNeverWorseThanLoop("out", xs, FromTensor(out), at);
    return;
  }
  if (!has_kernel || !HasCpuKernel("cumsum_grad", t)) return;
  const Arr gout = PickArr(f, odims, t);
  Tensor xg;
  if (!Run([&] { xg = api::cumsum_grad(ToTensor(x), ToTensor(gout), phi::Scalar(at.axis), at.flatten, at.exclusive, at.reverse); },
           at.valid ? kValid : at.error())) {
    return;
  }
  // x_grad is the scan of out_grad against the forward's direction, in x's shape
  ScanAttrs back = at;
  back.reverse = !at.reverse;
  Arr g = gout;
  g.dims = x.dims;
  Arr o = xs;  // unused by the partial
  // Integers wrap as the forward does (the definition's plain sum would not).
  std::vector<LD> gref = is_int ? ScanRef(g, back, 0, add) : ScanGradRef(xs, o, gout, at, [](LD, LD) -> LD { return 1; });
  // The reference's sum of inf and -inf is NaN whatever the order; so must the kernel's be.
  Arr ag = gout;
  for (LD& v : ag.v) v = std::fabs(v);
  std::vector<LD> scale = ScanGradRef(xs, o, ag, at, [](LD, LD) -> LD { return 1; });
  for (LD& v : scale) v = std::max<LD>(1, v);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kSumTol, &scale);
  ExpectNeverWorseThanLoop("x_grad", g, FromTensor(xg), back);
}

}  // namespace

REGISTER_FUZZ_OP(cumsum, [](paddle_ops_fuzz::Fdp& f) { FuzzCumsum(f, false); });
REGISTER_FUZZ_OP(cumsum_grad, [](paddle_ops_fuzz::Fdp& f) { FuzzCumsum(f, true); });
