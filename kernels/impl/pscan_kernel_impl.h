// pscan and its gradient, written once for both devices: one linear-recurrence scan of the
// (gate, value) op (pscan_ops.h) forward, one against the forward's direction for the gradient.
// With inner == 1 (a recurrence per row) the GPU takes the row strategy and the tiles of
// kernels/gpu/pscan_tiles.cuh, otherwise coalesced columns. A gate of shape [N, T] gets its
// gradient as per-element products summed over D afterwards (funcs::SumLastAxis, per device).
#pragma once

#include "kernels/funcs/scan.h"
#include "kernels/impl/pscan_ops.h"
#include "kernels/pscan_kernel.h"
#include "kernels/util/fill.h"
#include "kernels/util/sum_last_axis.h"

namespace phi {

template <typename T, typename Context>
void PscanKernel(const Context& dev_ctx, const DenseTensor& a, const DenseTensor& x,
                 const paddle::optional<DenseTensor>& initial_state, bool reverse, DenseTensor* out) {
  using Acc = typename funcs::PscanAccType<T>::type;
  const auto op = MakePscanOp<T, Acc>(a, x, initial_state, dev_ctx.template Alloc<T>(out));
  funcs::Scan(dev_ctx, PscanLayout(x.dims()), false, reverse, op);
}

template <typename T, typename Context>
void PscanGradKernel(const Context& dev_ctx, const DenseTensor& a,
                     const paddle::optional<DenseTensor>& initial_state, const DenseTensor& out,
                     const DenseTensor& out_grad, bool reverse, DenseTensor* a_grad,
                     DenseTensor* x_grad, DenseTensor* initial_state_grad) {
  using Acc = typename funcs::PscanAccType<T>::type;
  DenseTensor elems;
  const auto op = MakePscanGradOp<T, Acc>(dev_ctx, a, initial_state, out, out_grad, reverse, a_grad,
                                          x_grad, initial_state_grad, &elems);
  // With T == 0 no step writes initial_state_grad: the state then reaches no output.
  if (op.initial_state_grad && out.dims()[1] == 0) {
    funcs::FillZero(dev_ctx, op.initial_state_grad, initial_state_grad->numel());
  }
  funcs::Scan(dev_ctx, PscanLayout(out.dims()), false, !reverse, op);
  // a_grad[n, t] = the sum over d of the per-element products, each row in a fixed order.
  if (op.index.gate_per_row) funcs::SumLastAxis(dev_ctx, out.dims(), op.a_grad_elems, op.a_grad);
}

}  // namespace phi
