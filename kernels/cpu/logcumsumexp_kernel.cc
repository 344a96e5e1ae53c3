// logcumsumexp and its gradient on the CPU: the bodies of impl/logcumsumexp_kernel_impl.h on
// the CPU scan engine, with the SIMD fast paths of cum_scan_fast.h.
#include "kernels/cpu/cum_scan_fast.h"
#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/logcumsumexp_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(logcumsumexp, CPU, ALL_LAYOUT, phi::LogcumsumexpKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(logcumsumexp_grad, CPU, ALL_LAYOUT, phi::LogcumsumexpGradKernel, float,
                   double, phi::dtype::float16, phi::dtype::bfloat16) {}
