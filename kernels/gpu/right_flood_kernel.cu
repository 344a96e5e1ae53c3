// right_flood and its gradient on the GPU: the bodies of impl/right_flood_kernel_impl.h on the
// GPU scan engine, with the op's fast tiles (flood_tiles.cuh: the forward's and the gradient's,
// measured with tools/dev/harness/flood).
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/flood_tiles.cuh"
#include "kernels/impl/right_flood_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(right_flood, GPU, ALL_LAYOUT, phi::RightFloodKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(right_flood_grad, GPU, ALL_LAYOUT, phi::RightFloodGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
