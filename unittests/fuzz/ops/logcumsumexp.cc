// Fuzzing logcumsumexp and logcumsumexp_grad.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

LD LogAddExp(LD a, LD b) {
  if (std::isnan(a) || std::isnan(b)) return kNaN;
  const LD m = std::max(a, b);
  if (std::isinf(m)) return m;  // +inf, or both -inf
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// logcumsumexp and its grad: float types only (the Python wrapper promotes the others).
void FuzzLogcumsumexp(Fdp& f, bool grad) {
  SetEngine(f);
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 15) != 0);
  const Arr x = PickArr(f, PickDims(f, 4, grad ? 2600 : 6000), t);
  const ScanAttrs at = PickScanAttrs(f, static_cast<int>(x.dims.size()));
  g_case = Describe(grad ? "logcumsumexp_grad" : "logcumsumexp", x, at);
  const int expected = !HasCpuKernel("logcumsumexp", t) ? kNotFound : !at.valid ? at.error() : kValid;
  Tensor out;
  if (!Run([&] { out = api::logcumsumexp(ToTensor(x), at.axis, at.flatten, at.exclusive, at.reverse); }, expected)) return;
  const Arr o = FromTensor(out);
  std::vector<int64_t> odims = x.dims;
  if (at.flatten) odims = {x.numel()};
  Arr xs = x;  // the reference scans x with the output's dims
  xs.dims = odims;
  const std::vector<LD> ref = ScanRef(xs, at, -kInf, LogAddExp);
  if (!grad) {
    Expect("out", o, ref, odims, t, kSpecTol);
    return;
  }
  Arr gout = PickArr(f, odims, t);
  Tensor xg;
  Run([&] { xg = api::logcumsumexp_grad(ToTensor(x), out, ToTensor(gout), at.axis, at.flatten, at.exclusive, at.reverse); },
      kValid);
  const std::vector<LD> gref = ScanGradRef(xs, o, gout, at, [](LD xe, LD oj) -> LD {
    if (xe == -kInf) return 0;
    return std::exp(xe - oj);
  });
  LD m = 1;
  for (LD v : gref) {
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  std::vector<LD> scale(gref.size(), m);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kGradTol, &scale);
}

}  // namespace

REGISTER_FUZZ_OP(logcumsumexp, [](paddle_ops_fuzz::Fdp& f) { FuzzLogcumsumexp(f, false); });
REGISTER_FUZZ_OP(logcumsumexp_grad, [](paddle_ops_fuzz::Fdp& f) { FuzzLogcumsumexp(f, true); });
