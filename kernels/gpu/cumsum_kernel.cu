// cumsum and cumsum_grad on the GPU: the bodies of impl/cumsum_kernel_impl.h on the GPU scan
// engine, with the fast tiles of cumsum_tiles.cuh for float32, float16 and bfloat16.
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/cumsum_tiles.cuh"
#include "kernels/impl/cumsum_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(cumsum, GPU, ALL_LAYOUT, phi::CumsumKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(cumsum_grad, GPU, ALL_LAYOUT, phi::CumsumGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
