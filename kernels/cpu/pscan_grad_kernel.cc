#include "kernels/pscan_grad_kernel.h"

#include <algorithm>

#include "kernels/util/broadcast.h"
#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/pscan_ops.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

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
    std::fill_n(op.initial_state_grad, initial_state_grad->numel(), static_cast<T>(0.0f));
  }
  funcs::ScanCpu(PscanLayout(out.dims()), false, !reverse, op);
  if (op.index.gate_per_row) {
    // a_grad[n, t] = the sum over d of the per-element products, each row in order.
    const Acc* p = op.a_grad_elems;
    auto load = [&](int64_t i) { return static_cast<double>(p[i]); };
    auto segment = [&](int64_t b, int64_t n) {
      double acc = 0;
      for (int64_t i = b; i < b + n; ++i) acc += p[i];
      return acc;
    };
    auto store = [&](int64_t j, double v) { op.a_grad[j] = static_cast<T>(v); };
    funcs::ReduceSumCpu<double>(out.dims(), {false, false, true}, load, segment, store);
  }
}

}  // namespace phi

PD_REGISTER_KERNEL(pscan_grad, CPU, ALL_LAYOUT, phi::PscanGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
