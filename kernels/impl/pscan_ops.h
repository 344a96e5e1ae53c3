// The scan ops of pscan (docs/spec.md §3) and its gradient: element loads and stores around the
// (gate, value) linear-recurrence operator of funcs/scan_functors.h. Host/device code, shared
// by the CPU and GPU kernels.
//
// The scan runs along T of the [N, T, D] view of x: outer = N, length = T, inner = D, so
// element (n, t, d) sits at flat offset (n*T + t)*D + d. A gate `a` of shape [N, T] is read
// at offset / D (= n*T + t); initial_state [N, D] at n*D + d.
#pragma once

#include <cstdint>

#include "kernels/funcs/scan_functors.h"
#include "kernels/funcs/scan_layout.h"
#include "kernels/util/acc_type.h"
#include "kernels/util/fast_divmod.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/optional.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

// pscan's scan view of x [N, T, D] (InferMeta has checked the rank).
inline funcs::ScanLayout PscanLayout(const DDim& x_dims) {
  funcs::ScanLayout l;
  l.outer = x_dims[0];
  l.length = x_dims[1];
  l.inner = x_dims[2];
  return l;
}

namespace funcs {

// Accumulation type: float for the 16-bit types and float32, double for float64.
template <typename T>
struct PscanAccType : FloatAccType<T> {};

// y = a * y_prev + x on (gate, value) pairs, as LinearRecurrenceCombine, except that a carry
// whose value is exactly 0 (the identity the engines start every chunk, segment and warp
// from) contributes nothing instead of gate * 0: an infinite gate then gives +-inf (or NaN)
// as a left-to-right loop does, whatever the engine's decomposition.
template <typename Acc>
struct PscanCombine : LinearRecurrenceCombine<Acc> {
  using State = GatedState<Acc>;
  HOSTDEVICE static State Combine(const State& e, const State& l) {
    const Acc carried = e.b == Acc(0) ? Acc(0) : l.a * e.b;
    return {e.a * l.a, carried + l.b};
  }
};

// Where the gate, initial state and neighbours of an element are.
struct PscanIndex {
  FastDivMod inner;   // D: offset -> row n*T + t
  FastDivMod length;  // T: row -> n
  bool gate_per_row = false;  // a is [N, T] (broadcast over D)

  PscanIndex() = default;
  PscanIndex(const ScanLayout& l, bool per_row)
      : inner(l.inner > 0 ? l.inner : 1), length(l.length > 0 ? l.length : 1), gate_per_row(per_row) {}

  HOSTDEVICE int64_t GateIndex(int64_t offset) const { return gate_per_row ? inner.Div(offset) : offset; }
  // (n*T + t)*D + d -> n*D + d.
  HOSTDEVICE int64_t StateIndex(int64_t offset) const {
    const int64_t row = inner.Div(offset);
    const int64_t d = offset - row * static_cast<int64_t>(inner.divisor);
    return length.Div(row) * static_cast<int64_t>(inner.divisor) + d;
  }
  // The step t of an element.
  HOSTDEVICE int64_t Step(int64_t offset) const { return length.Mod(inner.Div(offset)); }
};

// Forward: y[t] = a[t] * y[t-1] + x[t] (reverse: y[t] = a[t] * y[t+1] + x[t]). The step from
// initial_state folds into the first element, y = a*h0 + x, whose gate is then 0: nothing
// before it matters. Without initial_state the first output is x itself (a there is unused).
template <typename T, typename Acc>
struct PscanOp : PscanCombine<Acc> {
  using State = GatedState<Acc>;
  const T* a;
  const T* x;
  const T* initial_state;  // null: none
  T* out;
  PscanIndex index;

  HOSTDEVICE State Load(const ScanPos& p) const {
    const Acc v = static_cast<Acc>(x[p.offset]);
    if (!p.first) return {static_cast<Acc>(a[index.GateIndex(p.offset)]), v};
    if (initial_state == nullptr) return {Acc(0), v};
    const Acc h0 = static_cast<Acc>(initial_state[index.StateIndex(p.offset)]);
    return {Acc(0), static_cast<Acc>(a[index.GateIndex(p.offset)]) * h0 + v};
  }
  HOSTDEVICE void Store(const ScanPos& p, const State& s) const { out[p.offset] = static_cast<T>(s.b); }
};

// Gradient, scanned against the forward direction (docs/spec.md §3): with g the running state,
//   g[t] = out_grad[t] + a[t+1] * g[t+1]      (reverse: a[t-1] * g[t-1])
// i.e. the gate of an element is the forward gate of the element before it in this scan
// order (p.prev). Then x_grad = g, a_grad[t] = g[t] * y[t-1] (y[-1] = initial_state, or 0),
// initial_state_grad = a[0] * g[0] at the forward-first step. When a is [N, T] the per-element
// products go to `a_grad_elems` (Acc, x's shape) and the kernel sums them over D afterwards,
// in a fixed order (no atomics).
template <typename T, typename Acc>
struct PscanGradOp : PscanCombine<Acc> {
  using State = GatedState<Acc>;
  const T* a;
  const T* initial_state;  // null: none
  const T* out;
  const T* out_grad;
  T* x_grad;
  T* a_grad;              // written here unless index.gate_per_row ...
  Acc* a_grad_elems;      // ... then the products go here, summed over D by the kernel
  T* initial_state_grad;  // null when there is no initial_state
  PscanIndex index;
  bool reverse;  // the forward's direction

  HOSTDEVICE State Load(const ScanPos& p) const {
    const Acc gate = p.first ? Acc(0) : static_cast<Acc>(a[index.GateIndex(p.prev)]);
    return {gate, static_cast<Acc>(out_grad[p.offset])};
  }
  HOSTDEVICE void Store(const ScanPos& p, const State& s) const {
    const Acc g = s.b;
    x_grad[p.offset] = static_cast<T>(g);
    const int64_t t = index.Step(p.offset);
    const int64_t last = static_cast<int64_t>(index.length.divisor) - 1;
    const bool forward_first = reverse ? t == last : t == 0;
    Acc y_prev = Acc(0);
    if (!forward_first) {
      const int64_t d = static_cast<int64_t>(index.inner.divisor);
      y_prev = static_cast<Acc>(out[reverse ? p.offset + d : p.offset - d]);
    } else if (initial_state != nullptr) {
      const int64_t h = index.StateIndex(p.offset);
      y_prev = static_cast<Acc>(initial_state[h]);
      initial_state_grad[h] = static_cast<T>(static_cast<Acc>(a[index.GateIndex(p.offset)]) * g);
    }
    // Without initial_state the forward-first gate is unused: its gradient is 0.
    const Acc da = forward_first && initial_state == nullptr ? Acc(0) : g * y_prev;
    if (index.gate_per_row) {
      a_grad_elems[p.offset] = da;
    } else {
      a_grad[p.offset] = static_cast<T>(da);
    }
  }
};

}  // namespace funcs

// Whether the gradient of a [N, T] gate needs the per-element buffer and a sum over D; with
// D == 1 a [N, T] gate is laid out as a [N, T, 1] one and takes its gradient directly.
inline bool PscanGatePerRow(const DenseTensor& a, const DenseTensor& x) {
  return a.dims().size() == 2 && x.dims()[2] != 1;
}

// The forward op over the tensors (out already allocated).
template <typename T, typename Acc>
funcs::PscanOp<T, Acc> MakePscanOp(const DenseTensor& a, const DenseTensor& x,
                                   const paddle::optional<DenseTensor>& initial_state, T* out) {
  funcs::PscanOp<T, Acc> op;
  op.a = a.data<T>();
  op.x = x.data<T>();
  op.initial_state = initial_state ? initial_state->data<T>() : nullptr;
  op.out = out;
  op.index = funcs::PscanIndex(PscanLayout(x.dims()), PscanGatePerRow(a, x));
  return op;
}

// The gradient op over the tensors, with its outputs allocated on dev_ctx: x_grad, a_grad,
// initial_state_grad (when there is an initial state) and, for [N, T] gates, `elems` (Acc, x's
// shape) for the per-element products that the kernel then sums over D.
template <typename T, typename Acc, typename Context>
funcs::PscanGradOp<T, Acc> MakePscanGradOp(const Context& dev_ctx, const DenseTensor& a,
                                           const paddle::optional<DenseTensor>& initial_state,
                                           const DenseTensor& out, const DenseTensor& out_grad,
                                           bool reverse, DenseTensor* a_grad, DenseTensor* x_grad,
                                           DenseTensor* initial_state_grad, DenseTensor* elems) {
  funcs::PscanGradOp<T, Acc> op;
  op.a = a.data<T>();
  op.initial_state = initial_state ? initial_state->data<T>() : nullptr;
  op.out = out.data<T>();
  op.out_grad = out_grad.data<T>();
  op.index = funcs::PscanIndex(PscanLayout(out.dims()), PscanGatePerRow(a, out));
  op.reverse = reverse;
  op.x_grad = dev_ctx.template Alloc<T>(x_grad);
  op.a_grad = dev_ctx.template Alloc<T>(a_grad);
  op.a_grad_elems = nullptr;
  if (op.index.gate_per_row) {
    *elems = DenseTensor(CppTypeToDataType<Acc>::Type(), out.dims());
    op.a_grad_elems = dev_ctx.template Alloc<Acc>(elems);
  }
  op.initial_state_grad = initial_state ? dev_ctx.template Alloc<T>(initial_state_grad) : nullptr;
  return op;
}

}  // namespace phi
