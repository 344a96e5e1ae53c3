// pscan and its gradient on the CPU: the bodies of impl/pscan_kernel_impl.h on the CPU scan
// engine (its generic path).
#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/pscan_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(pscan, CPU, ALL_LAYOUT, phi::PscanKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(pscan_grad, CPU, ALL_LAYOUT, phi::PscanGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
