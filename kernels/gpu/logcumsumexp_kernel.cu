// logcumsumexp and its gradient on the GPU: the bodies of impl/logcumsumexp_kernel_impl.h on
// the GPU scan engine, with the op's fast tiles (logcumsumexp_tiles.cuh).
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/logcumsumexp_tiles.cuh"
#include "kernels/impl/logcumsumexp_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(logcumsumexp, GPU, ALL_LAYOUT, phi::LogcumsumexpKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(logcumsumexp_grad, GPU, ALL_LAYOUT, phi::LogcumsumexpGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
