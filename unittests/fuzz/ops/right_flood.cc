// Fuzzing right_flood and right_flood_grad.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

// right_flood and its grad: out[i] = x[t(i)], t(i) = the last non-hole at or before i (in scan
// order), -1 (and x[i] itself) where there is none; x_grad[j] = sum of out_grad over {i : t(i) = j}.
void FuzzRightFlood(Fdp& f, bool grad) {
  SetEngine(f);
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 7) == 0 ? false : f.ConsumeBool());
  Arr x = PickArr(f, PickDims(f, 4, grad ? 4000 : 6000), t);
  const int rank = static_cast<int>(x.dims.size());
  bool axis_ok;
  const int axis = PickAxis(f, rank, &axis_ok);
  const bool reverse = f.ConsumeBool();
  const bool return_index = f.ConsumeBool();
  const int hole_kind = f.ConsumeIntegralInRange<int>(0, 15);  // 0: a bad hole string
  const std::string hole = hole_kind == 0 ? (f.ConsumeBool() ? "NaN" : "") : hole_kind < 8 ? "zero" : "nan";
  // Holes sprinkled in at a drawn density: +0, -0 and NaN (the hole or data, by `hole`).
  const int density = f.ConsumeIntegralInRange<int>(0, 8);
  uint64_t s = f.ConsumeIntegral<uint64_t>() | 1;
  for (LD& v : x.v) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    if (static_cast<int>((s >> 60) & 7) < density) {
      const int k = static_cast<int>((s >> 20) % 3);
      v = RoundTo(t, k == 0 ? 0.0L : k == 1 ? -0.0L : kNaN);
    }
  }
  g_case = std::string(grad ? "right_flood_grad" : "right_flood") + " x" + Str(x.dims) + " " +
           phi::DataTypeToString(t) + " axis=" + std::to_string(axis) + " reverse=" + std::to_string(reverse) +
           " hole='" + hole + "' return_index=" + std::to_string(return_index);
  int expected = kValid;
  if (!HasCpuKernel("right_flood", t)) {
    expected = kNotFound;
  } else if (!axis_ok) {
    expected = kOutOfRange;
  } else if (hole != "zero" && hole != "nan") {
    expected = kInvalidArgument;
  } else if (hole == "nan" && !IsFloat(t)) {
    expected = kInvalidArgument;
  }
  std::tuple<Tensor, Tensor> res;
  if (!Run([&] { res = api::right_flood(ToTensor(x), axis, reverse, hole, return_index); }, expected)) return;
  const bool nan_hole = hole == "nan";
  auto is_hole = [&](LD v) { return nan_hole ? std::isnan(v) : (v == 0); };
  const ScanView sc = ScanViewOf(x.dims, axis, false);
  std::vector<LD> ref(x.v.size()), idx(x.v.size());
  for (int64_t o = 0; o < sc.outer; ++o) {
    for (int64_t i = 0; i < sc.inner; ++i) {
      int64_t src = -1;
      for (int64_t k = 0; k < sc.length; ++k) {
        const int64_t pos = Step(sc, k, reverse);
        const int64_t e = sc.Offset(o, pos, i);
        if (!is_hole(x.v[e])) src = pos;
        ref[e] = src < 0 ? x.v[e] : x.v[sc.Offset(o, src, i)];
        idx[e] = static_cast<LD>(src);
      }
    }
  }
  ExpectExact("out", FromTensor(std::get<0>(res)), ref, x.dims, t);
  if (return_index) ExpectExact("index", FromTensor(std::get<1>(res)), idx, x.dims, DataType::INT64);
  if (!grad) return;
  const bool has_grad = HasCpuKernel("right_flood_grad", t);
  const Arr gout = PickArr(f, x.dims, t);
  Tensor xg;
  if (!Run([&] { xg = api::right_flood_grad(ToTensor(x), ToTensor(gout), axis, reverse, hole); },
           has_grad ? kValid : kNotFound)) {
    return;
  }
  std::vector<LD> gref(x.v.size(), 0), mag(x.v.size(), 0);
  for (int64_t o = 0; o < sc.outer; ++o) {
    for (int64_t i = 0; i < sc.inner; ++i) {
      for (int64_t p = 0; p < sc.length; ++p) {
        const int64_t src = static_cast<int64_t>(idx[sc.Offset(o, p, i)]);
        if (src < 0) continue;  // a leading hole: no gradient
        const int64_t e = sc.Offset(o, p, i), j = sc.Offset(o, src, i);
        gref[j] += gout.v[e];
        mag[j] += std::fabs(gout.v[e]);
      }
    }
  }
  for (LD& m : mag) m = std::max<LD>(1, m);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kSumTol, &mag);
}

}  // namespace

REGISTER_FUZZ_OP(right_flood, [](paddle_ops_fuzz::Fdp& f) { FuzzRightFlood(f, false); });
REGISTER_FUZZ_OP(right_flood_grad, [](paddle_ops_fuzz::Fdp& f) { FuzzRightFlood(f, true); });
