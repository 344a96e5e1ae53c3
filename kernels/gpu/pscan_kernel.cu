#include "kernels/gpu/pscan_tiles.cuh"
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/pscan_ops.h"
#include "kernels/pscan_kernel.h"

namespace phi {

// One linear-recurrence scan of the (gate, value) op on the GPU scan engine: with inner == 1
// (a recurrence per row) the row strategy, otherwise coalesced columns.
template <typename T, typename Context>
void PscanKernel(const Context& dev_ctx, const DenseTensor& a, const DenseTensor& x,
                 const paddle::optional<DenseTensor>& initial_state, bool reverse, DenseTensor* out) {
  using Acc = typename funcs::PscanAccType<T>::type;
  const auto op = MakePscanOp<T, Acc>(a, x, initial_state, dev_ctx.template Alloc<T>(out));
  funcs::Scan(dev_ctx, PscanLayout(x.dims()), false, reverse, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(pscan, GPU, ALL_LAYOUT, phi::PscanKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
