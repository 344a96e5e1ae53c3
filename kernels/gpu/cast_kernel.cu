// cast / cast_grad on the GPU, element by element with CastValue (util/cast_value.h).
#include "kernels/cast_kernel.h"
#include "kernels/util/gpu_launch.cuh"

namespace phi {
namespace {

template <typename T>
void CastGpu(const GPUContext& ctx, const DenseTensor& x, DataType dtype, DenseTensor* out) {
  const T* px = x.data<T>();
  PD_VISIT_ALL_TYPES(dtype, "cast", [&] {
    data_t* po = ctx.Alloc<data_t>(out);
    funcs::ForEachIndex(ctx, x.numel(), [=] __device__(int64_t k) { po[k] = CastValue<data_t>(px[k]); });
  });
}

}  // namespace

template <typename T, typename Context>
void CastKernel(const Context& dev_ctx, const DenseTensor& x, DataType dtype, DenseTensor* out) {
  CastGpu<T>(dev_ctx, x, dtype, out);
}

template <typename T, typename Context>
void CastGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, DenseTensor* x_grad) {
  CastGpu<T>(dev_ctx, out_grad, x.dtype(), x_grad);
}

}  // namespace phi

PD_REGISTER_KERNEL(cast, GPU, ALL_LAYOUT, phi::CastKernel, bool, uint8_t, int8_t, int16_t, int32_t, int64_t,
                   phi::dtype::float16, phi::dtype::bfloat16, float, double) {}
PD_REGISTER_KERNEL(cast_grad, GPU, ALL_LAYOUT, phi::CastGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
