#include <type_traits>

#include "kernels/gla/launch_gpu.cuh"
#include "kernels/gla_kernel.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

// The chunked form (funcs/gla_chunk_gpu.cuh): the states of every chunk, the intra-chunk
// scores, then every chunk's output at once. float64 and shapes with an empty dim take the
// recurrent form, one thread per head.
template <typename T, typename Context>
void GlaKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k, const DenseTensor& v,
               const DenseTensor& gk, const paddle::optional<DenseTensor>& initial_state, double scale,
               bool output_final_state, bool head_first, DenseTensor* o, DenseTensor* final_state) {
  namespace gla = funcs::gla;
  const GlaData<T> d = MakeGlaData<T>(dev_ctx, q, k, v, gk, initial_state, output_final_state, head_first, o,
                                      final_state);
  if (d.s.heads() == 0) return;
  if constexpr (!std::is_same<T, double>::value) {
    const auto chunked = [&](auto version) {
      gla::ChunkedForward<T, decltype(version)::value>(dev_ctx, d, static_cast<float>(scale));
    };
    if (gla::RunChunked<T>(d.s, chunked)) return;
  }
  gla::LaunchRecurrentForward<T>(dev_ctx, d, scale);
}

}  // namespace phi

PD_REGISTER_KERNEL(gla, GPU, ALL_LAYOUT, phi::GlaKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
