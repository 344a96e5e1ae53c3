// gla and its gradient, written once for both devices: the tensors' layout and outputs
// (kernels/gla/recurrent.h), then the device's own step, gla::Forward / gla::Backward: on the
// CPU one head per OpenMP task in the chunked or recurrent form (kernels/gla/chunk_cpu.h), on
// the GPU the chunked kernels' launches or the recurrent form (kernels/gla/launch_gpu.cuh).
#pragma once

#include "kernels/gla/recurrent.h"
#include "kernels/gla_kernel.h"

namespace phi {

class CPUContext;
class GPUContext;

namespace gla {

// The device step, declared for both devices (the registration file includes the definition).
template <typename T>
void Forward(const CPUContext& ctx, const GlaData<T>& d, double scale);
template <typename T>
void Forward(const GPUContext& ctx, const GlaData<T>& d, double scale);
template <typename T>
void Backward(const CPUContext& ctx, const GlaGradData<T>& d, double scale);
template <typename T>
void Backward(const GPUContext& ctx, const GlaGradData<T>& d, double scale);

}  // namespace gla

template <typename T, typename Context>
void GlaKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k, const DenseTensor& v,
               const DenseTensor& gk, const paddle::optional<DenseTensor>& initial_state, double scale,
               bool output_final_state, bool head_first, DenseTensor* o, DenseTensor* final_state) {
  const GlaData<T> d = MakeGlaData<T>(dev_ctx, q, k, v, gk, initial_state, output_final_state, head_first, o,
                                      final_state);
  if (d.s.heads() == 0) return;
  gla::Forward(dev_ctx, d, scale);
}

template <typename T, typename Context>
void GlaGradKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k,
                   const DenseTensor& v, const DenseTensor& gk,
                   const paddle::optional<DenseTensor>& initial_state, const DenseTensor& o_grad,
                   const paddle::optional<DenseTensor>& final_state_grad, double scale, bool head_first,
                   DenseTensor* q_grad, DenseTensor* k_grad, DenseTensor* v_grad, DenseTensor* gk_grad,
                   DenseTensor* initial_state_grad) {
  const GlaGradData<T> d = MakeGlaGradData<T>(dev_ctx, q, k, v, gk, initial_state, o_grad, final_state_grad,
                                              head_first, q_grad, k_grad, v_grad, gk_grad, initial_state_grad);
  if (d.s.heads() == 0) return;
  gla::Backward(dev_ctx, d, scale);
}

}  // namespace phi
