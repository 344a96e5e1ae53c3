#include <type_traits>

#include "kernels/gla/launch_gpu.cuh"
#include "kernels/gla_grad_kernel.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

// The chunked backward (funcs/gla_chunk_gpu.cuh): the forward states again, the state
// gradients (reverse), the intra-chunk scores, dv per chunk and Dv tile, dq/dk per chunk and
// Dk tile, then gk_grad by a reverse cumulative sum. float64 and shapes with an empty dim take
// the recurrent form, one thread per head.
template <typename T, typename Context>
void GlaGradKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k,
                   const DenseTensor& v, const DenseTensor& gk,
                   const paddle::optional<DenseTensor>& initial_state, const DenseTensor& o_grad,
                   const paddle::optional<DenseTensor>& final_state_grad, double scale, bool head_first,
                   DenseTensor* q_grad, DenseTensor* k_grad, DenseTensor* v_grad, DenseTensor* gk_grad,
                   DenseTensor* initial_state_grad) {
  namespace gla = funcs::gla;
  const GlaGradData<T> d = MakeGlaGradData<T>(dev_ctx, q, k, v, gk, initial_state, o_grad, final_state_grad,
                                              head_first, q_grad, k_grad, v_grad, gk_grad, initial_state_grad);
  if (d.s.heads() == 0) return;
  if constexpr (!std::is_same<T, double>::value) {
    const auto chunked = [&](auto version) {
      gla::ChunkedBackward<T, decltype(version)::value>(dev_ctx, d, static_cast<float>(scale));
    };
    if (gla::RunChunked<T>(d.s, chunked)) return;
  }
  gla::LaunchRecurrentBackward<T>(dev_ctx, d, scale);
}

}  // namespace phi

PD_REGISTER_KERNEL(gla_grad, GPU, ALL_LAYOUT, phi::GlaGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
