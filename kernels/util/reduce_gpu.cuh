// Sum over a set of dims on the GPU (sum, mean and the broadcast-reduction of binary-op
// gradients). One block per output element, each thread a fixed strided subset, then a
// fixed shared-memory tree: the result does not depend on timing (deterministic).
#pragma once

#include <vector>

#include "kernels/util/gpu_launch.cuh"
#include "paddle_ops/common/ddim.h"

namespace phi {
namespace funcs {

struct ReduceGeometry {
  int n_keep = 0, n_red = 0;
  int64_t keep_dims[DDim::kMaxRank], keep_strides[DDim::kMaxRank];
  int64_t red_dims[DDim::kMaxRank], red_strides[DDim::kMaxRank];
  int64_t n_out = 1, n_reduced = 1;
};

inline ReduceGeometry MakeReduceGeometry(const DDim& dims, const std::vector<bool>& reduce) {
  ReduceGeometry g;
  int64_t stride = 1;
  int64_t s[DDim::kMaxRank];
  for (int i = dims.size() - 1; i >= 0; --i) {
    s[i] = stride;
    stride *= dims[i];
  }
  for (int i = 0; i < dims.size(); ++i) {
    if (reduce[i]) {
      g.red_dims[g.n_red] = dims[i];
      g.red_strides[g.n_red++] = s[i];
      g.n_reduced *= dims[i];
    } else {
      g.keep_dims[g.n_keep] = dims[i];
      g.keep_strides[g.n_keep++] = s[i];
      g.n_out *= dims[i];
    }
  }
  return g;
}

HOSTDEVICE inline int64_t Unravel(int64_t k, int n, const int64_t* dims, const int64_t* strides) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    off += (k % dims[d]) * strides[d];
    k /= dims[d];
  }
  return off;
}

template <typename T, typename Acc, typename Out, typename Load>
__global__ void ReduceSumKernel(const T* in, Out* out, ReduceGeometry g, double scale, Load load) {
  __shared__ Acc partial[256];
  for (int64_t o = blockIdx.x; o < g.n_out; o += gridDim.x) {
    const int64_t base = Unravel(o, g.n_keep, g.keep_dims, g.keep_strides);
    Acc acc = Acc(0);
    for (int64_t r = threadIdx.x; r < g.n_reduced; r += blockDim.x) {
      acc += load(in[base + Unravel(r, g.n_red, g.red_dims, g.red_strides)]);
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if (scale == 1.0) {
        out[o] = CastValue<Out>(partial[0]);
      } else {
        out[o] = CastValue<Out>(static_cast<double>(partial[0]) * scale);
      }
    }
    __syncthreads();
  }
}

// Elements read into the accumulator: 16-bit floats through float.
template <typename Acc>
struct LoadAs {
  template <typename T>
  HOSTDEVICE Acc operator()(T v) const { return CastValue<Acc>(v); }
};

// out (the kept dims, row-major) = scale * sum of load(in) over the dims flagged in `reduce`.
template <typename T, typename Acc, typename Out, typename Load = LoadAs<Acc>>
void ReduceSumGpu(const GPUContext& ctx, const T* in, const DDim& dims, const std::vector<bool>& reduce,
                  Out* out, double scale = 1.0, Load load = Load()) {
  const ReduceGeometry g = MakeReduceGeometry(dims, reduce);
  if (g.n_out == 0) return;
  const int blocks = static_cast<int>(std::min<int64_t>(g.n_out, int64_t{ctx.GetSMCount()} * 16));
  ReduceSumKernel<T, Acc, Out, Load><<<blocks, 256, 0, ctx.stream()>>>(in, out, g, scale, load);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

}  // namespace funcs
}  // namespace phi
