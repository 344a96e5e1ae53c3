// repeat_interleave and its gradients on the CPU (both count forms): the bodies of
// impl/repeat_interleave_kernel_impl.h with the CPU steps of repeat_interleave_steps.h
// (the four registrations are written once, in the impl header).
#include "kernels/cpu/repeat_interleave_steps.h"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "paddle_ops/core/kernel_registry.h"

PD_REGISTER_REPEAT_INTERLEAVE_KERNELS(CPU)
