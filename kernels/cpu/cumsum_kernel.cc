// cumsum and cumsum_grad on the CPU: the bodies of impl/cumsum_kernel_impl.h on the CPU scan
// engine, with the SIMD fast path of the float sum (cum_scan_fast.h).
#include "kernels/cpu/cum_scan_fast.h"
#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/cumsum_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(cumsum, CPU, ALL_LAYOUT, phi::CumsumKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(cumsum_grad, CPU, ALL_LAYOUT, phi::CumsumGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
