// gla and gla_grad on the CPU: the bodies of impl/gla_kernel_impl.h with the CPU step of
// kernels/gla/chunk_cpu.h (both CPU forms themselves are in kernels/gla/chunk_cpu.cc).
#include "kernels/gla/chunk_cpu.h"
#include "kernels/impl/gla_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(gla, CPU, ALL_LAYOUT, phi::GlaKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(gla_grad, CPU, ALL_LAYOUT, phi::GlaGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
