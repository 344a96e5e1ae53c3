#include "kernels/impl/reshape_kernel_impl.h"

#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(reshape, CPU, ALL_LAYOUT, phi::ReshapeKernel, bool, uint8_t, int8_t, int16_t,
                   int32_t, int64_t, phi::dtype::float16, phi::dtype::bfloat16, float, double) {}
PD_REGISTER_KERNEL(reshape_grad, CPU, ALL_LAYOUT, phi::ReshapeGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
