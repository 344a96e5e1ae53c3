#include "kernels/full_kernel.h"
#include "kernels/impl/full_kernel_impl.h"
#include "kernels/util/gpu_launch.cuh"

namespace phi {

template <typename T, typename Context>
void FullLikeKernel(const Context& dev_ctx, const DenseTensor& x, const Scalar& value, DataType dtype,
                    DenseTensor* out) {
  const T v = CheckedFillValue<T>(value);
  T* o = dev_ctx.template Alloc<T>(out);
  funcs::ForEachIndex(dev_ctx, out->numel(), [=] __device__(int64_t k) { o[k] = v; });
}

}  // namespace phi

PD_REGISTER_KERNEL(full_like, GPU, ALL_LAYOUT, phi::FullLikeKernel, bool, uint8_t, int8_t, int16_t, int32_t, int64_t,
                   phi::dtype::float16, phi::dtype::bfloat16, float, double) {}
