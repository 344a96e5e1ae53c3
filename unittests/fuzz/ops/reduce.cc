// Fuzzing sum and mean.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

// sum / mean over random axes (duplicates and out-of-range ones are errors).
void FuzzReduce(Fdp& f, bool mean) {
  const DataType t = PickType(f);
  const Arr x = PickArr(f, PickDims(f, 3), t);
  const int rank = static_cast<int>(x.dims.size());
  const int r = std::max(rank, 1);
  std::vector<int64_t> axes;
  const int na = f.ConsumeIntegralInRange<int>(0, 3);
  for (int i = 0; i < na; ++i) axes.push_back(f.ConsumeIntegralInRange<int64_t>(-r - 1, r));
  const bool keepdim = f.ConsumeBool();
  DataType dt = DataType::UNDEFINED;
  if (!mean && f.ConsumeIntegralInRange<int>(0, 3) == 0) dt = PickType(f);
  g_case = std::string(mean ? "mean" : "sum") + " x" + Str(x.dims) + " " + phi::DataTypeToString(t) + " axes" +
           Str(axes) + " keepdim=" + std::to_string(keepdim) + " dtype=" + phi::DataTypeToString(dt);
  bool axes_ok = true;
  std::vector<bool> red(rank, axes.empty());
  for (int64_t a : axes) {
    if (a < -r || a >= r) {
      axes_ok = false;
    } else if (rank > 0) {
      red[a < 0 ? a + r : a] = true;
    }
  }
  Tensor out;
  const int expected = !HasCpuKernel(mean ? "mean" : "sum", t) ? kNotFound : !axes_ok ? kOutOfRange : kValid;
  if (!Run([&] {
        out = mean ? api::mean(ToTensor(x), phi::IntArray(axes), keepdim)
                   : api::sum(ToTensor(x), phi::IntArray(axes), dt, keepdim);
      }, expected)) {
    return;
  }
  std::vector<int64_t> od;
  for (int i = 0; i < rank; ++i) {
    if (!red[i]) {
      od.push_back(x.dims[i]);
    } else if (keepdim) {
      od.push_back(1);
    }
  }
  int64_t n = 1;
  for (int64_t d : od) n *= d;
  // Integer results (an integer x, or a float x cast to an integer dtype element by element)
  // accumulate exactly as 64-bit two's complement (wrapping), then narrow; float results sum
  // in long double.
  const DataType ot = FromTensor(out).dtype;
  const bool int_sum = !IsFloat(t) || !IsFloat(ot);
  std::vector<LD> ref(n, 0), mag(n, 0), cnt(n, 0);
  std::vector<uint64_t> iref(n, 0);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < x.numel(); ++e) {
    int64_t rem = e;
    for (int i = rank; i-- > 0;) {
      idx[i] = rem % x.dims[i];
      rem /= x.dims[i];
    }
    int64_t o = 0;
    for (int i = 0; i < rank; ++i) {
      if (!red[i]) o = o * x.dims[i] + idx[i];
    }
    const LD v = IsFloat(t) && !IsFloat(ot) ? RoundTo(ot, x.v[e]) : x.v[e];
    if (int_sum) {
      iref[o] += static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      ref[o] += v;
    }
    mag[o] += std::fabs(x.v[e]);
    cnt[o] += 1;
  }
  for (int64_t o = 0; o < n; ++o) {
    if (int_sum) ref[o] = RoundTo(ot, static_cast<LD>(static_cast<int64_t>(iref[o])));
    if (mean) ref[o] = ref[o] / cnt[o];  // 0/0: NaN for an empty mean
    mag[o] = std::max<LD>(1, mag[o]);
  }
  Expect("out", FromTensor(out), ref, od, ot, kSpecTol, &mag);
}

}  // namespace

REGISTER_FUZZ_OP(sum, [](paddle_ops_fuzz::Fdp& f) { FuzzReduce(f, false); });
REGISTER_FUZZ_OP(mean, [](paddle_ops_fuzz::Fdp& f) { FuzzReduce(f, true); });
