// The scan ops of cumsum, logcumsumexp and its gradient: element loads and stores around
// the combine functors of funcs/scan_functors.h. Host/device code, shared by the CPU and
// GPU kernels.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/funcs/scan_functors.h"
#include "kernels/funcs/scan_layout.h"
#include "paddle_ops/common/axis.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/enforce.h"

namespace phi {

// The scan view for (dims, axis, flatten) as the cum ops define it. The axis is checked here
// too (OutOfRange, as CumInferMeta): the grad ops' InferMeta does not see it, and a grad op
// called directly with a bad axis must raise, not index past dims (found by the fuzzer).
inline funcs::ScanLayout CumScanLayout(const DDim& dims, int64_t axis, bool flatten) {
  const int ax = flatten ? 0 : NormalizeAxis(axis, dims.size(), "axis");
  if (flatten || dims.size() == 0) {
    funcs::ScanLayout l;
    l.length = product(dims);
    return l;
  }
  return funcs::MakeScanLayout(dims, ax);
}

class CPUContext;

// The accumulation type of the float cum ops on a device: double on the GPU for every input
// type; on the CPU funcs::CpuAccType<T> (scan_functors.h).
template <typename T, typename Context>
struct CumAccType {
  using type = double;
};
template <typename T>
struct CumAccType<T, CPUContext> {
  using type = typename funcs::CpuAccType<T>::type;
};

namespace funcs {

template <typename T, typename Acc>
struct CumsumFloatOp : SumCombine<Acc> {
  using State = typename SumCombine<Acc>::State;
  const T* x;
  T* out;
  HOSTDEVICE State Load(const ScanPos& p) const { return State::Of(static_cast<Acc>(x[p.offset])); }
  // Rounded once from the compensated pair (docs/spec.md §2): never further from the exact sum
  // than a float64 loop rounded once.
  HOSTDEVICE void Store(const ScanPos& p, const State& s) const { out[p.offset] = RoundCompensated<T>(s.hi, s.lo); }
};

template <typename T>
struct CumsumIntOp : IntSumCombine<T> {
  const T* x;
  T* out;
  HOSTDEVICE T Load(const ScanPos& p) const { return x[p.offset]; }
  HOSTDEVICE void Store(const ScanPos& p, T s) const { out[p.offset] = s; }
};

template <typename T, typename Acc>
struct LogcumsumexpOp : LogAddExpCombine<Acc> {
  using Base = LogAddExpCombine<Acc>;
  using State = typename Base::State;
  const T* x;
  T* out;
  HOSTDEVICE State Load(const ScanPos& p) const { return Base::Of(static_cast<Acc>(x[p.offset])); }
  HOSTDEVICE void Store(const ScanPos& p, const State& s) const {
    out[p.offset] = static_cast<T>(Base::Value(s));
  }
};

// Gradient of logcumsumexp (docs/spec.md §1), scanned in the direction opposite to the forward.
// With o the forward output, element k is the pair (gate, value) =
//   (exp(o[k] - o[prev]), out_grad[k]),  prev = the element before k in this scan order,
// and the linear-recurrence scan gives acc[k] = out_grad[k] + gate_k * acc[prev]. Since o is
// monotone along the forward direction every gate is <= 1: nothing overflows, for any |x|.
//   inclusive: x_grad[k] = acc[k] * exp(x[k] - o[k])
//   exclusive: x_grad[k] = acc_exclusive[k] * exp(x[k] - o[prev])   (x[k] first feeds o[prev])
// A -inf input (or an all -inf prefix, o = -inf) gets gradient 0, not NaN. After a +inf input
// o = +inf and the gate between two +inf outputs is 1 (not exp(inf - inf)): the +inf element's
// own gradient is NaN (exp(x - o) = exp(inf - inf)), every other element's stays finite.
template <typename T, typename Acc>
struct LogcumsumexpGradOp : LinearRecurrenceCombine<Acc> {
  using State = GatedState<Acc>;
  const T* x;
  const T* out;
  const T* out_grad;
  T* x_grad;
  bool exclusive;
  HOSTDEVICE State Load(const ScanPos& p) const {
    const Acc o = static_cast<Acc>(out[p.offset]);
    Acc gate = Acc(0);
    if (!p.first && o != -std::numeric_limits<Acc>::infinity()) {
      const Acc o_prev = static_cast<Acc>(out[p.prev]);
      // Equal outputs give gate 1 = exp(0) exactly, also for o = o_prev = +inf (after a +inf
      // input), where exp(inf - inf) would be a NaN gate poisoning the whole row's gradient.
      gate = o == o_prev ? Acc(1) : std::exp(o - o_prev);
    }
    return {gate, static_cast<Acc>(out_grad[p.offset])};
  }
  HOSTDEVICE void Store(const ScanPos& p, const State& s) const {
    const Acc xv = static_cast<Acc>(x[p.offset]);
    Acc g = Acc(0);
    if (xv != -std::numeric_limits<Acc>::infinity()) {
      if (!exclusive) {
        g = s.b * std::exp(xv - static_cast<Acc>(out[p.offset]));
      } else if (!p.first) {
        g = s.b * std::exp(xv - static_cast<Acc>(out[p.prev]));
      }
    }
    x_grad[p.offset] = static_cast<T>(g);
  }
};

}  // namespace funcs
}  // namespace phi
