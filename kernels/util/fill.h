// Zero-filling an output buffer, the one step where a kernel body written once for both
// devices needs the device: std::fill_n on the CPU, cudaMemsetAsync on the context's stream on
// the GPU (the GPU overload is seen only by nvcc, in the .cu files that instantiate it).
#pragma once

#include <algorithm>
#include <cstdint>

#include "paddle_ops/core/device_context.h"
#if defined(__CUDACC__)
#include "paddle_ops/core/gpu/gpu_context.h"
#endif

namespace phi {
namespace funcs {

template <typename T>
void FillZero(const CPUContext&, T* p, int64_t n) {
  std::fill_n(p, n, static_cast<T>(0.0f));
}

#if defined(__CUDACC__)
template <typename T>
void FillZero(const GPUContext& ctx, T* p, int64_t n) {
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(p, 0, n * sizeof(T), ctx.stream()));
}
#endif

}  // namespace funcs
}  // namespace phi
