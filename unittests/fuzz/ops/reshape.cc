// Fuzzing reshape.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

void FuzzReshape(Fdp& f) {
  const DataType t = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 3), t);
  std::vector<int64_t> shape;
  const int rank = f.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < rank; ++i) shape.push_back(f.ConsumeIntegralInRange<int64_t>(-2, 6));
  g_case = "reshape x" + Str(x.dims) + " shape" + Str(shape);
  // Expected dims: 0 copies x's dim, one -1 is inferred; anything else must multiply out.
  bool ok = true;
  int minus = -1;
  int64_t known = 1;
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
    } else {
      known *= d;
    }
    od[i] = d;
  }
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
