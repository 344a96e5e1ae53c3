// Fuzzing add, subtract and multiply.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

// Broadcast shapes: y's dims are x's with some set to 1 or dropped in front (or not
// broadcastable when `bad`).
void FuzzElementwise(Fdp& f, int which) {
  static const char* kNames[] = {"add", "subtract", "multiply"};
  const DataType t = PickType(f);
  std::vector<int64_t> xd = PickDims(f, 3);
  std::vector<int64_t> yd = xd;
  const int drop = yd.empty() ? 0 : f.ConsumeIntegralInRange<int>(0, static_cast<int>(yd.size()));
  yd.erase(yd.begin(), yd.begin() + drop);
  for (int64_t& d : yd) {
    if (f.ConsumeIntegralInRange<int>(0, 3) == 0) d = 1;
  }
  const bool bad = !yd.empty() && f.ConsumeIntegralInRange<int>(0, 15) == 0 && yd.back() != 1;
  if (bad) yd.back() = yd.back() == 0 ? 2 : yd.back() + 1;  // neither equal to x's dim nor 1
  if (f.ConsumeBool()) std::swap(xd, yd);
  const Arr x = PickArr(f, xd, t), y = PickArr(f, yd, t);
  g_case = std::string(kNames[which]) + " x" + Str(xd) + " y" + Str(yd) + " " + phi::DataTypeToString(t);
  const bool has_kernel = HasCpuKernel(kNames[which], t);
  Tensor out;
  const int expected = !has_kernel ? kNotFound : bad ? kInvalidArgument : kValid;
  std::function<Tensor(const Tensor&, const Tensor&)> op =
      which == 0 ? api::add : which == 1 ? api::subtract : api::multiply;
  if (!Run([&] { out = op(ToTensor(x), ToTensor(y)); }, expected)) {
    if (has_kernel && !bad) Fail("unreachable");
    return;
  }
  // Reference broadcast.
  const size_t r = std::max(xd.size(), yd.size());
  std::vector<int64_t> od(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t a = i + xd.size() >= r ? xd[i + xd.size() - r] : 1;
    const int64_t b = i + yd.size() >= r ? yd[i + yd.size() - r] : 1;
    od[i] = a == 1 ? b : a;
  }
  int64_t n = 1;
  for (int64_t d : od) n *= d;
  std::vector<LD> ref(n);
  auto index = [&](const std::vector<int64_t>& d, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t i = 0; i < d.size(); ++i) off = off * d[i] + (d[i] == 1 ? 0 : idx[i + r - d.size()]);
    return off;
  };
  std::vector<int64_t> idx(r, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t rem = e;
    for (size_t i = r; i-- > 0;) {
      idx[i] = rem % od[i];
      rem /= od[i];
    }
    const LD a = x.v[index(xd, idx)], b = y.v[index(yd, idx)];
    LD v = which == 0 ? a + b : which == 1 ? a - b : a * b;
    if (!IsFloat(t)) {  // integers wrap
      const uint64_t ua = static_cast<uint64_t>(static_cast<int64_t>(a)), ub = static_cast<uint64_t>(static_cast<int64_t>(b));
      const uint64_t w = which == 0 ? ua + ub : which == 1 ? ua - ub : ua * ub;
      v = RoundTo(t, static_cast<LD>(static_cast<int64_t>(w)));
    }
    ref[e] = v;
  }
  Expect("out", FromTensor(out), ref, od, t, kUlpTol);
}

}  // namespace

REGISTER_FUZZ_OP(add, [](paddle_ops_fuzz::Fdp& f) { FuzzElementwise(f, 0); });
REGISTER_FUZZ_OP(subtract, [](paddle_ops_fuzz::Fdp& f) { FuzzElementwise(f, 1); });
REGISTER_FUZZ_OP(multiply, [](paddle_ops_fuzz::Fdp& f) { FuzzElementwise(f, 2); });
