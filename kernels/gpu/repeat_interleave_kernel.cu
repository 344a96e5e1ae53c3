// repeat_interleave and its gradients on the GPU (both count forms): the bodies of
// impl/repeat_interleave_kernel_impl.h with the GPU steps of repeat_interleave_steps.cuh and the
// flood tiles (flood_tiles.cuh).
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/gpu/flood_tiles.cuh"
#include "kernels/gpu/repeat_interleave_steps.cuh"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(repeat_interleave, GPU, ALL_LAYOUT, phi::RepeatInterleaveKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_grad, GPU, ALL_LAYOUT, phi::RepeatInterleaveGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index, GPU, ALL_LAYOUT, phi::RepeatInterleaveWithTensorIndexKernel,
                   float, double, phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index_grad, GPU, ALL_LAYOUT,
                   phi::RepeatInterleaveWithTensorIndexGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
