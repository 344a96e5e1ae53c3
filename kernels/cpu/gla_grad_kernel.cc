#include "kernels/gla_grad_kernel.h"

#include <omp.h>

#include <type_traits>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/gla/chunk_cpu.h"
#include "kernels/gla/recurrent.h"
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
  const GlaGradData<T> d = MakeGlaGradData<T>(dev_ctx, q, k, v, gk, initial_state, o_grad, final_state_grad,
                                              head_first, q_grad, k_grad, v_grad, gk_grad, initial_state_grad);
  const int64_t heads = d.s.heads(), state = d.s.StateSize();
  // The same path choice as the forward (gla_kernel.cc).
  const bool chunked = !std::is_same<T, double>::value && funcs::gla_cpu::UseGlaChunkedOnCpu(d.s.T, d.s.Dk);
#pragma omp parallel num_threads(funcs::CpuNumThreads())
  {
    std::vector<Acc> work(chunked ? 0 : static_cast<size_t>(d.s.BackwardWork()));
    funcs::gla_cpu::Work chunk_work;
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < heads; ++bh) {
      const int64_t off = bh * state;
      const float* h0 = d.h0 ? d.h0 + off : nullptr;
      const float* dfinal = d.dfinal ? d.dfinal + off : nullptr;
      float* dh0 = d.dh0 ? d.dh0 + off : nullptr;
      if (chunked) {
        funcs::gla_cpu::ChunkedBackwardHead<T>(d.s, bh, d.q, d.k, d.v, d.g, h0, d.dout, dfinal,
                                               static_cast<float>(scale), d.dq, d.dk, d.dv, d.dg, dh0,
                                               &chunk_work);
      } else {
        GlaRecurrentBackwardHead<T, Acc>(d.s, bh, d.q, d.k, d.v, d.g, h0, d.dout, dfinal, static_cast<Acc>(scale),
                                         d.dq, d.dk, d.dv, d.dg, dh0, work.data());
      }
    }
  }
}

}  // namespace phi

PD_REGISTER_KERNEL(gla_grad, CPU, ALL_LAYOUT, phi::GlaGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
