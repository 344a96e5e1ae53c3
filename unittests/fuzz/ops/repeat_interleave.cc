// Fuzzing repeat_interleave (both forms) and repeat_interleave_grad.
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

// repeat_interleave (an int count, or a tensor of counts: repeat_interleave_with_tensor_index)
// and their grads: out[o, i, k] = x[o, j(i), k], slice j repeated counts[j] times in order.
void FuzzRepeatInterleave(Fdp& f, bool grad) {
  SetEngine(f);
  const bool with_tensor = f.ConsumeBool();
  const DataType t = PickType(f, f.ConsumeIntegralInRange<int>(0, 7) == 0 ? false : f.ConsumeBool());
  const Arr x = PickArr(f, PickDims(f, 4, 2000), t);
  const int rank = static_cast<int>(x.dims.size());
  bool axis_ok;
  const int axis = PickAxis(f, rank, &axis_ok);
  std::vector<int64_t> xd = rank == 0 ? std::vector<int64_t>{1} : x.dims;  // a 0-D x acts as [1]
  const int ax = axis_ok ? (axis < 0 ? axis + static_cast<int>(xd.size()) : axis) : 0;
  const int64_t n = xd[ax];
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < ax; ++i) outer *= xd[i];
  for (size_t i = ax + 1; i < xd.size(); ++i) inner *= xd[i];
  // Counts: mostly 0..3, sometimes a negative one; a single count (0-D or [1]) broadcasts.
  std::vector<int64_t> counts;
  int expected = kValid;
  const char* op = with_tensor ? "repeat_interleave_with_tensor_index" : "repeat_interleave";
  Arr rep;
  int64_t output_size = -1;
  int int_repeats = 0;
  if (!with_tensor) {
    int_repeats = f.ConsumeIntegralInRange<int>(0, 15) == 0 ? f.ConsumeIntegralInRange<int>(-3, -1)
                                                            : f.ConsumeIntegralInRange<int>(0, 4);
    counts.assign(static_cast<size_t>(n), int_repeats);
    if (!HasCpuKernel(op, t)) {
      expected = kNotFound;
    } else if (!axis_ok) {
      expected = kOutOfRange;
    } else if (int_repeats < 0) {
      expected = kInvalidArgument;
    }
  } else {
    const int shape_kind = f.ConsumeIntegralInRange<int>(0, 15);  // 0: 0-D, 1: [1], 2: wrong length, 3: 2-D
    rep.dtype = f.ConsumeIntegralInRange<int>(0, 15) == 0 ? DataType::FLOAT32
                : f.ConsumeBool()                         ? DataType::INT32
                                                          : DataType::INT64;
    rep.dims = shape_kind == 0   ? std::vector<int64_t>{}
               : shape_kind == 1 ? std::vector<int64_t>{1}
               : shape_kind == 2 ? std::vector<int64_t>{n + f.ConsumeIntegralInRange<int64_t>(1, 3)}
               : shape_kind == 3 ? std::vector<int64_t>{1, n}
                                 : std::vector<int64_t>{n};
    const bool negative = f.ConsumeIntegralInRange<int>(0, 15) == 0;
    for (int64_t j = 0; j < rep.numel(); ++j) rep.v.push_back(f.ConsumeIntegralInRange<int>(0, 3));
    if (negative && !rep.v.empty()) rep.v[f.ConsumeIntegralInRange<size_t>(0, rep.v.size() - 1)] = -1;
    // Sometimes huge int64 counts (2**62 each): two or more overflow the int64 sum, and one
    // makes an output whose byte count overflows; both are InvalidArgument, never a wrong shape.
    const bool huge = rep.dtype == DataType::INT64 && f.ConsumeIntegralInRange<int>(0, 15) == 0;
    if (huge) {
      for (LD& v : rep.v) v = v < 0 ? v : static_cast<LD>(int64_t{1} << 62);
    }
    const int64_t nc = rep.numel();
    bool has_negative = false;
    for (LD v : rep.v) has_negative |= v < 0;
    for (int64_t j = 0; j < n; ++j) counts.push_back(nc == 1 ? static_cast<int64_t>(rep.v[0]) : j < nc ? static_cast<int64_t>(rep.v[j]) : 0);
    int64_t total = 0;
    bool overflow = false;
    for (int64_t c : counts) overflow |= __builtin_add_overflow(total, c, &total);
    if (overflow) total = std::numeric_limits<int64_t>::max() - 1;
    const bool too_big = huge && n > 0;
    const int size_kind = f.ConsumeIntegralInRange<int>(0, 7);  // 1: the total, 2: wrong, 3: < -1
    // A wrong size: total + 1, or total - 1 where the counts (a -1 among 2**62s) sum to INT64_MAX.
    const int64_t wrong = total == std::numeric_limits<int64_t>::max() ? total - 1 : total + 1;
    output_size = size_kind == 1 ? total : size_kind == 2 ? wrong : size_kind == 3 ? -2 : -1;
    if (!HasCpuKernel(op, t)) {
      expected = kNotFound;
    } else if (!axis_ok) {
      expected = kOutOfRange;
    } else if (rep.dtype == DataType::FLOAT32) {
      expected = static_cast<int>(phi::ErrorCode::INVALID_TYPE);
    } else if (rep.dims.size() > 1 || (nc != n && nc != 1) || output_size < -1 || has_negative ||
               size_kind == 2 || too_big) {
      expected = kInvalidArgument;
    }
  }
  g_case = std::string(op) + (grad ? " (grad)" : "") + " x" + Str(x.dims) + " " + phi::DataTypeToString(t) +
           " axis=" + std::to_string(axis) +
           (with_tensor ? " repeats" + Str(rep.dims) + " " + phi::DataTypeToString(rep.dtype) +
                              " output_size=" + std::to_string(output_size)
                        : " repeats=" + std::to_string(int_repeats));
  Tensor out;
  if (!Run([&] {
        out = with_tensor ? api::repeat_interleave_with_tensor_index(ToTensor(x), ToTensor(rep), axis, output_size)
                          : api::repeat_interleave(ToTensor(x), int_repeats, axis);
      }, expected)) {
    return;
  }
  int64_t M = 0;
  for (int64_t c : counts) M += c;
  std::vector<int64_t> src;  // the source slice of each output slice
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t c = 0; c < counts[j]; ++c) src.push_back(j);
  }
  std::vector<int64_t> od = xd;
  od[ax] = M;
  std::vector<LD> ref(static_cast<size_t>(outer * M * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t k = 0; k < inner; ++k) ref[(o * M + i) * inner + k] = x.v[(o * n + src[i]) * inner + k];
    }
  }
  ExpectExact("out", FromTensor(out), ref, od, t);
  if (!grad) return;
  const char* gop = with_tensor ? "repeat_interleave_with_tensor_index_grad" : "repeat_interleave_grad";
  const Arr gout = PickArr(f, od, t);
  Tensor xg;
  if (!Run([&] {
        xg = with_tensor ? api::repeat_interleave_with_tensor_index_grad(ToTensor(x), ToTensor(rep), ToTensor(gout), axis)
                         : api::repeat_interleave_grad(ToTensor(x), ToTensor(gout), int_repeats, axis);
      }, HasCpuKernel(gop, t) ? kValid : kNotFound)) {
    return;
  }
  std::vector<LD> gref(x.v.size(), 0), mag(x.v.size(), 0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t k = 0; k < inner; ++k) {
        const LD g = gout.v[(o * M + i) * inner + k];
        gref[(o * n + src[i]) * inner + k] += g;
        mag[(o * n + src[i]) * inner + k] += std::fabs(g);
      }
    }
  }
  for (LD& m : mag) m = std::max<LD>(1, m);
  Expect("x_grad", FromTensor(xg), gref, x.dims, t, kSumTol, &mag);
}

}  // namespace

REGISTER_FUZZ_OP(repeat_interleave, [](paddle_ops_fuzz::Fdp& f) { FuzzRepeatInterleave(f, false); });
REGISTER_FUZZ_OP(repeat_interleave_grad, [](paddle_ops_fuzz::Fdp& f) { FuzzRepeatInterleave(f, true); });
