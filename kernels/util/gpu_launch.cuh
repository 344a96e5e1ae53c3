// Launch helpers for simple GPU kernels: a grid-stride loop over n indices.
#pragma once

#include <algorithm>
#include <type_traits>

#include "kernels/util/cast_value.h"
#include "paddle_ops/common/data_type.h"
#include "paddle_ops/core/gpu/gpu_context.h"

namespace phi {
namespace funcs {

template <typename F>
__global__ void ForEachIndexKernel(int64_t n, F f) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    f(i);
  }
}

// f(i) for i in [0, n) on ctx's stream.
template <typename F>
void ForEachIndex(const GPUContext& ctx, int64_t n, F f) {
  if (n <= 0) return;
  constexpr int kThreads = 256;
  const int64_t want = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(std::min<int64_t>(want, int64_t{ctx.GetSMCount()} * 32));
  ForEachIndexKernel<<<blocks, kThreads, 0, ctx.stream()>>>(n, f);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// The type 16-bit floats compute in.
template <typename T>
struct GpuComputeType {
  using type = typename std::conditional<IsHalfFloat<T>::value, float, T>::type;
};

}  // namespace funcs
}  // namespace phi
