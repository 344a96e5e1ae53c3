#include "kernels/gla_kernel.h"

#include <omp.h>

#include <type_traits>
#include <vector>

#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/gla/chunk_cpu.h"
#include "kernels/gla/recurrent.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

// One head per task, the chunked form (float32 and the 16-bit types, computing in float) or
// the recurrent one (float64, short sequences or small keys, PADDLE_OPS_GLA_CPU=recurrent); each head's
// result is independent of the thread count (one sequential computation per head).
template <typename T, typename Context>
void GlaKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k, const DenseTensor& v,
               const DenseTensor& gk, const paddle::optional<DenseTensor>& initial_state, double scale,
               bool output_final_state, bool head_first, DenseTensor* o, DenseTensor* final_state) {
  using Acc = typename GlaAccType<T>::type;
  const GlaData<T> d = MakeGlaData<T>(dev_ctx, q, k, v, gk, initial_state, output_final_state, head_first, o,
                                      final_state);
  const int64_t heads = d.s.heads(), state = d.s.StateSize();
  const bool chunked = !std::is_same<T, double>::value && funcs::gla_cpu::UseGlaChunkedOnCpu(d.s.T, d.s.Dk);
#pragma omp parallel num_threads(funcs::CpuNumThreads())
  {
    std::vector<Acc> work(chunked ? 0 : static_cast<size_t>(d.s.ForwardWork()));
    funcs::gla_cpu::Work chunk_work;
#pragma omp for schedule(static)
    for (int64_t bh = 0; bh < heads; ++bh) {
      const float* h0 = d.h0 ? d.h0 + bh * state : nullptr;
      float* fs = d.final_state ? d.final_state + bh * state : nullptr;
      if (chunked) {
        funcs::gla_cpu::ChunkedForwardHead<T>(d.s, bh, d.q, d.k, d.v, d.g, h0, static_cast<float>(scale), d.o,
                                              fs, &chunk_work);
      } else {
        GlaRecurrentForwardHead<T, Acc>(d.s, bh, d.q, d.k, d.v, d.g, h0, static_cast<Acc>(scale), d.o, fs,
                                        work.data());
      }
    }
  }
}

}  // namespace phi

PD_REGISTER_KERNEL(gla, CPU, ALL_LAYOUT, phi::GlaKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
