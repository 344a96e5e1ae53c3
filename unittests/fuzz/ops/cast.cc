// Fuzzing cast.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

void FuzzCast(Fdp& f) {
  const DataType from = PickType(f), to = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 3), from);
  g_case = "cast x" + Str(x.dims) + " " + phi::DataTypeToString(from) + " -> " + phi::DataTypeToString(to);
  Tensor out;
  Run([&] { out = api::cast(ToTensor(x), to); }, kValid);
  std::vector<LD> ref(x.v.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    const LD v = x.v[i];
    if (to == DataType::BOOL) {
      ref[i] = v != 0;
    } else if (!IsFloat(to) && IsFloat(from)) {
      // cast_kernel.h: truncation toward zero; NaN and values beyond int64 give INT64_MIN's
      // bits narrowed to the type.
      const bool in = v >= -9.223372036854775808e18L && v < 9.223372036854775808e18L;
      ref[i] = RoundTo(to, in ? std::trunc(v) : static_cast<LD>(std::numeric_limits<int64_t>::min()));
    } else if (!IsFloat(to)) {
      ref[i] = RoundTo(to, v);
    } else {
      ref[i] = v;
    }
  }
  // float64 -> 16-bit goes through float32 (double rounding): one ulp of the target.
  Expect("out", FromTensor(out), ref, x.dims, to, kUlpTol);
}

}  // namespace

REGISTER_FUZZ_OP(cast, FuzzCast);
