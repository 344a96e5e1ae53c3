#include "kernels/gla_grad_kernel.h"

#include <omp.h>

#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/impl/gla_ops.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

template <typename T, typename Context>
void GlaGradKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k,
                   const DenseTensor& v, const DenseTensor& gk,
                   const paddle::optional<DenseTensor>& initial_state, const DenseTensor& o_grad,
                   const paddle::optional<DenseTensor>& final_state_grad, double scale, bool head_first,
                   DenseTensor* q_grad, DenseTensor* k_grad, DenseTensor* v_grad, DenseTensor* gk_grad,
                   DenseTensor* initial_state_grad) {
  using Acc = typename GlaAccType<T>::type;
  const GlaShape s = MakeGlaShape(q.dims(), v.dims(), head_first);
  T* dq = dev_ctx.template Alloc<T>(q_grad);
  T* dk = dev_ctx.template Alloc<T>(k_grad);
  T* dv = dev_ctx.template Alloc<T>(v_grad);
  T* dg = dev_ctx.template Alloc<T>(gk_grad);
  const float* h0 = initial_state ? initial_state->data<float>() : nullptr;
  float* dh0 = initial_state ? dev_ctx.template Alloc<float>(initial_state_grad) : nullptr;
  const float* dfinal = final_state_grad ? final_state_grad->data<float>() : nullptr;
  const T *qp = q.data<T>(), *kp = k.data<T>(), *vp = v.data<T>(), *gp = gk.data<T>();
  const T* dop = o_grad.data<T>();
  const int64_t heads = s.heads(), state = s.StateSize();
#pragma omp parallel num_threads(funcs::CpuNumThreads())
  {
    std::vector<Acc> work(static_cast<size_t>(s.BackwardWork()));
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < heads; ++bh) {
      const int64_t off = bh * state;
      GlaRecurrentBackwardHead<T, Acc>(s, bh, qp, kp, vp, gp, h0 ? h0 + off : nullptr, dop,
                                       dfinal ? dfinal + off : nullptr, static_cast<Acc>(scale), dq,
                                       dk, dv, dg, dh0 ? dh0 + off : nullptr, work.data());
    }
  }
}

}  // namespace phi

PD_REGISTER_KERNEL(gla_grad, CPU, ALL_LAYOUT, phi::GlaGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
