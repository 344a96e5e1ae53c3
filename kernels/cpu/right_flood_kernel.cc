// right_flood and its gradient on the CPU: the bodies of impl/right_flood_kernel_impl.h on the
// CPU scan engine (its generic path).
#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/right_flood_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(right_flood, CPU, ALL_LAYOUT, phi::RightFloodKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(right_flood_grad, CPU, ALL_LAYOUT, phi::RightFloodGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
