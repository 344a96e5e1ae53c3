// out[r] = the sum over d of elems[r * D + d] for a [.., D] buffer of per-element terms (pscan's
// a_grad of a gate broadcast over D), each row in a fixed order (deterministic, no atomics).
// Two overloads, each its device's own arithmetic: the CPU sums every row left to right in
// double (ReduceSumCpu); the GPU runs one warp per row, each lane a fixed strided subset in
// order in Acc, then a fixed shuffle tree. The GPU overload is seen only by nvcc.
#pragma once

#include <cstdint>

#include "kernels/util/broadcast.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/core/device_context.h"
#if defined(__CUDACC__)
#include "paddle_ops/core/gpu/gpu_context.h"
#endif

namespace phi {
namespace funcs {

// dims: the [N, T, D] shape of elems; out has N * T elements.
template <typename T, typename Acc>
void SumLastAxis(const CPUContext&, const DDim& dims, const Acc* elems, T* out) {
  auto load = [&](int64_t i) { return static_cast<double>(elems[i]); };
  auto segment = [&](int64_t b, int64_t n) {
    double acc = 0;
    for (int64_t i = b; i < b + n; ++i) acc += elems[i];
    return acc;
  };
  auto store = [&](int64_t j, double v) { out[j] = static_cast<T>(v); };
  ReduceSumCpu<double>(dims, {false, false, true}, load, segment, store);
}

#if defined(__CUDACC__)
template <typename T, typename Acc>
__global__ void SumLastAxisKernel(const Acc* elems, int64_t rows, int64_t D, T* out) {
  const int64_t row = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const Acc* p = elems + row * D;
  Acc acc = Acc(0);
  for (int64_t d = lane; d < D; d += 32) acc += p[d];
#pragma unroll
  for (int w = 16; w > 0; w /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, w);
  if (lane == 0) out[row] = static_cast<T>(acc);
}

template <typename T, typename Acc>
void SumLastAxis(const GPUContext& ctx, const DDim& dims, const Acc* elems, T* out) {
  const int64_t rows = dims[0] * dims[1];
  if (rows <= 0) return;
  constexpr int kThreads = 256;
  const unsigned blocks = static_cast<unsigned>((rows * 32 + kThreads - 1) / kThreads);
  SumLastAxisKernel<T, Acc><<<blocks, kThreads, 0, ctx.stream()>>>(elems, rows, dims[2], out);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}
#endif

}  // namespace funcs
}  // namespace phi
