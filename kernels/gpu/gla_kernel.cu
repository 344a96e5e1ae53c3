// gla and gla_grad on the GPU: the bodies of impl/gla_kernel_impl.h with the GPU step of
// kernels/gla/launch_gpu.cuh.
#include "kernels/gla/launch_gpu.cuh"
#include "kernels/impl/gla_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(gla, GPU, ALL_LAYOUT, phi::GlaKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(gla_grad, GPU, ALL_LAYOUT, phi::GlaGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
