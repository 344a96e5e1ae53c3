#include "kernels/util/cast_value.h"
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/pscan_ops.h"
#include "kernels/pscan_grad_kernel.h"

namespace phi {
namespace {

// a_grad[r] = sum over d < D of elems[r * D + d], one warp per row r: each lane a fixed
// strided subset in order, then a fixed shuffle tree (deterministic, no atomics).
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

}  // namespace

template <typename T, typename Context>
void PscanGradKernel(const Context& dev_ctx, const DenseTensor& a,
                     const paddle::optional<DenseTensor>& initial_state, const DenseTensor& out,
                     const DenseTensor& out_grad, bool reverse, DenseTensor* a_grad,
                     DenseTensor* x_grad, DenseTensor* initial_state_grad) {
  using Acc = typename funcs::PscanAccType<T>::type;
  DenseTensor elems;
  const auto op = MakePscanGradOp<T, Acc>(dev_ctx, a, initial_state, out, out_grad, reverse, a_grad,
                                          x_grad, initial_state_grad, &elems);
  // With T == 0 no step writes initial_state_grad: the state then reaches no output.
  if (op.initial_state_grad && out.dims()[1] == 0) {
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(op.initial_state_grad, 0, initial_state_grad->numel() * sizeof(T),
                                               dev_ctx.stream()));
  }
  const funcs::ScanLayout l = PscanLayout(out.dims());
  funcs::Scan(dev_ctx, l, false, !reverse, op);
  const int64_t rows = l.outer * l.length;
  if (op.index.gate_per_row && rows > 0) {
    constexpr int kThreads = 256;
    const unsigned blocks = static_cast<unsigned>((rows * 32 + kThreads - 1) / kThreads);
    SumLastAxisKernel<T, Acc><<<blocks, kThreads, 0, dev_ctx.stream()>>>(op.a_grad_elems, rows, l.inner, op.a_grad);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  }
}

}  // namespace phi

PD_REGISTER_KERNEL(pscan_grad, GPU, ALL_LAYOUT, phi::PscanGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
