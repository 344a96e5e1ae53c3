#include "kernels/pscan_grad_kernel.h"

#include <algorithm>
#include <vector>

#include "kernels/funcs/broadcast.h"
#include "kernels/funcs/scan_cpu.h"
#include "kernels/impl/pscan_ops.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

template <typename T, typename Context>
void PscanGradKernel(const Context& dev_ctx, const DenseTensor& a,
                     const paddle::optional<DenseTensor>& initial_state, const DenseTensor& out,
                     const DenseTensor& out_grad, bool reverse, DenseTensor* a_grad,
                     DenseTensor* x_grad, DenseTensor* initial_state_grad) {
  using Acc = typename funcs::PscanAccType<T>::type;
  auto op = MakePscanGradOp<T, Acc>(a, initial_state, out, out_grad, reverse);
  op.x_grad = dev_ctx.template Alloc<T>(x_grad);
  T* da = dev_ctx.template Alloc<T>(a_grad);
  const bool per_row = op.index.gate_per_row;
  std::vector<Acc> elems(per_row ? static_cast<size_t>(out.numel()) : 0);
  if (per_row) {
    op.a_grad_elems = elems.data();
  } else {
    op.a_grad = da;
  }
  if (initial_state) {
    op.initial_state_grad = dev_ctx.template Alloc<T>(initial_state_grad);
    // With T == 0 no step writes it: the initial state then reaches no output.
    if (out.dims()[1] == 0) std::fill_n(op.initial_state_grad, initial_state_grad->numel(), T(0));
  }
  const funcs::ScanLayout l = PscanLayout(out.dims());
  funcs::ScanCpu(l, false, !reverse, op);
  if (per_row) {
    // a_grad[n, t] = sum over d of the per-element products, each row summed in order.
    auto load = [&](int64_t i) { return static_cast<double>(elems[i]); };
    auto segment = [&](int64_t b, int64_t n) {
      double acc = 0;
      for (int64_t i = b; i < b + n; ++i) acc += elems[i];
      return acc;
    };
    auto store = [&](int64_t j, double v) { da[j] = static_cast<T>(v); };
    funcs::ReduceSumCpu<double>(out.dims(), {false, false, true}, load, segment, store);
  }
}

}  // namespace phi

PD_REGISTER_KERNEL(pscan_grad, CPU, ALL_LAYOUT, phi::PscanGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
