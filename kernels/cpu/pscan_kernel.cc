#include "kernels/pscan_kernel.h"

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/pscan_ops.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {

// One linear-recurrence scan of the (gate, value) op on the CPU engine.
template <typename T, typename Context>
void PscanKernel(const Context& dev_ctx, const DenseTensor& a, const DenseTensor& x,
                 const paddle::optional<DenseTensor>& initial_state, bool reverse, DenseTensor* out) {
  using Acc = typename funcs::PscanAccType<T>::type;
  const auto op = MakePscanOp<T, Acc>(a, x, initial_state, dev_ctx.template Alloc<T>(out));
  funcs::ScanCpu(PscanLayout(x.dims()), false, reverse, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(pscan, CPU, ALL_LAYOUT, phi::PscanKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
