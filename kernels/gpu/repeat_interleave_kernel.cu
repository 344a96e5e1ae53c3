// repeat_interleave and its gradients on the GPU (both count forms): the bodies of
// impl/repeat_interleave_kernel_impl.h with the GPU steps of repeat_interleave_steps.cuh and the
// flood tiles (flood_tiles.cuh) (the four registrations are written once, in the impl header).
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/flood_tiles.cuh"
#include "kernels/gpu/repeat_interleave_steps.cuh"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_REPEAT_INTERLEAVE_KERNELS(GPU)
