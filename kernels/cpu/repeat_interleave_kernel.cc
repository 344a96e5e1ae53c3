// repeat_interleave and its gradients on the CPU (both count forms): the bodies of
// impl/repeat_interleave_kernel_impl.h with the CPU steps of repeat_interleave_steps.h.
#include "kernels/cpu/repeat_interleave_steps.h"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_KERNEL(repeat_interleave, CPU, ALL_LAYOUT, phi::RepeatInterleaveKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_grad, CPU, ALL_LAYOUT, phi::RepeatInterleaveGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index, CPU, ALL_LAYOUT, phi::RepeatInterleaveWithTensorIndexKernel,
                   float, double, phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index_grad, CPU, ALL_LAYOUT,
                   phi::RepeatInterleaveWithTensorIndexGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
