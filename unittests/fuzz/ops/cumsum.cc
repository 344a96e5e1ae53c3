// Fuzzing cumsum and cumsum_grad.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

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
    return;
  }
  if (!has_kernel || !HasCpuKernel("cumsum_grad", t)) return;
  const Arr gout = PickArr(f, odims, t);
  Tensor xg;
  if (!Run([&] { xg = api::cumsum_grad(ToTensor(x), ToTensor(gout), phi::Scalar(at.axis), at.flatten, at.exclusive, at.reverse); },
           at.valid ? kValid : at.error())) {
    return;
  }
  Arr o = xs;  // unused by the partial
  std::vector<LD> gref = ScanGradRef(xs, o, gout, at, [](LD, LD) -> LD { return 1; });
  // The reference's sum of inf and -inf is NaN whatever the order; so must the kernel's be.
  Arr ag = gout;
  for (LD& v : ag.v) v = std::fabs(v);
  std::vector<LD> scale = ScanGradRef(xs, o, ag, at, [](LD, LD) -> LD { return 1; });
  for (LD& v : scale) v = std::max<LD>(1, v);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kSumTol, &scale);
}

}  // namespace

REGISTER_FUZZ_OP(cumsum, [](paddle_ops_fuzz::Fdp& f) { FuzzCumsum(f, false); });
REGISTER_FUZZ_OP(cumsum_grad, [](paddle_ops_fuzz::Fdp& f) { FuzzCumsum(f, true); });
