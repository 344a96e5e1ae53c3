// pscan and its gradient on the GPU: the bodies of impl/pscan_kernel_impl.h on the GPU scan
// engine, with the op's fast tiles (pscan_tiles.cuh).
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/pscan_tiles.cuh"
#include "kernels/impl/pscan_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(pscan, GPU, ALL_LAYOUT, phi::PscanKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(pscan_grad, GPU, ALL_LAYOUT, phi::PscanGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
