// Fuzzing full_like.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

void FuzzFullLike(Fdp& f) {
  const DataType t = PickType(f), dt = f.ConsumeBool() ? DataType::UNDEFINED : PickType(f);
  const DataType ot = dt == DataType::UNDEFINED ? t : dt;
  const Arr x = PickArr(f, PickDims(f, 3), t);
  const bool as_int = f.ConsumeBool();
  const int64_t iv = f.ConsumeIntegral<int64_t>() >> f.ConsumeIntegralInRange<int>(0, 63);
  const LD dv = PickValue(f, DataType::FLOAT64) * (f.ConsumeBool() ? 1 : 1e20L);
  const phi::Scalar value = as_int ? phi::Scalar(iv) : phi::Scalar(static_cast<double>(dv));
  g_case = "full_like x" + Str(x.dims) + " -> " + phi::DataTypeToString(ot) + " value=" +
           (as_int ? std::to_string(iv) : std::to_string(static_cast<double>(dv)));
  // Fits: integers within the type's range (a float truncated toward zero, finite); floats
  // any value but a finite one that overflows to inf.
  const LD v = as_int ? static_cast<LD>(iv) : static_cast<LD>(static_cast<double>(dv));
  bool fits = true;
  LD expect = v;
  if (ot == DataType::BOOL) {
    expect = v != 0;
  } else if (!IsFloat(ot)) {
    LD lo = 0, hi = 0;
    PD_VISIT_ALL_TYPES(ot, "fuzz", [&] {
      lo = static_cast<LD>(std::numeric_limits<data_t>::lowest());
      hi = static_cast<LD>(std::numeric_limits<data_t>::max());
    });
    const LD tv = std::trunc(v);
    fits = std::isfinite(v) && tv >= lo && tv <= hi;
    expect = tv;
  } else {
    fits = !(std::isinf(RoundTo(ot, v)) && std::isfinite(v));
  }
  Tensor out;
  if (!Run([&] { out = api::full_like(ToTensor(x), value, dt); }, fits ? kValid : kInvalidArgument)) return;
  Expect("out", FromTensor(out), std::vector<LD>(x.v.size(), expect), x.dims, ot, kUlpTol);
}

}  // namespace

REGISTER_FUZZ_OP(full_like, FuzzFullLike);
