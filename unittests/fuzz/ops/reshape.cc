// Fuzzing reshape.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

void FuzzReshape(Fdp& f) {
  const DataType t = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 3), t);
  std::vector<int64_t> shape;
  const int rank = f.ConsumeIntegralInRange<int>(0, 4);
  // Mostly small dims; sometimes one near or past the int64 overflow of the element count.
  const int64_t kHuge[] = {int64_t{1} << 31, (int64_t{1} << 32) + 1, int64_t{1} << 40, int64_t{1} << 62,
                           std::numeric_limits<int64_t>::max()};
  for (int i = 0; i < rank; ++i) {
    shape.push_back(f.ConsumeIntegralInRange<int>(0, 11) == 0 ? kHuge[f.ConsumeIntegralInRange<int>(0, 4)]
                                                               : f.ConsumeIntegralInRange<int64_t>(-2, 6));
  }
  g_case = "reshape x" + Str(x.dims) + " shape" + Str(shape);
  // Expected dims: 0 copies x's dim, one -1 is inferred; anything else must multiply out, and
  // the product of the nonzero given dims must fit int64 (InvalidArgument otherwise).
  bool ok = true;
  int minus = -1;
  int64_t nonzero = 1;
  bool zero = false;
  std::vector<int64_t> od(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0) {
      if (i >= x.dims.size()) ok = false;
      d = i < x.dims.size() ? x.dims[i] : 0;
    }
    if (d == -1) {
      if (minus >= 0) ok = false;
      minus = static_cast<int>(i);
    } else if (d < -1) {
      ok = false;
    } else if (d == 0) {
      zero = true;
    } else if (__builtin_mul_overflow(nonzero, d, &nonzero)) {
      ok = false;
    }
    od[i] = d;
  }
  const int64_t known = zero ? 0 : nonzero;
  if (ok && minus >= 0) {
    if (known == 0 || x.numel() % known != 0) {
      ok = false;
    } else {
      od[minus] = x.numel() / known;
    }
  } else if (ok && known != x.numel()) {
    ok = false;
  }
  Tensor out;
  if (!Run([&] { out = api::reshape(ToTensor(x), phi::IntArray(shape)); }, ok ? kValid : kInvalidArgument)) return;
  Expect("out", FromTensor(out), x.v, od, t, Tol{0, 0, 0, 0, 0});
}

}  // namespace

REGISTER_FUZZ_OP(reshape, FuzzReshape);
