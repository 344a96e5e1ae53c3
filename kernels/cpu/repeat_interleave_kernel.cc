// repeat_interleave and its gradients on the CPU (both count forms, sharing the pieces of the
// stream decompaction).
#include "kernels/repeat_interleave_kernel.h"

#include <algorithm>
#include <vector>

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/impl/flood_ops.h"
#include "kernels/repeat_interleave_grad_kernel.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {
namespace {

// The exclusive cumsum of the counts (the engine, with the op the GPU uses), after checking
// them; returns their total.
int64_t RepeatStarts(const DenseTensor& repeats, int64_t n, std::vector<int64_t>* starts) {
  starts->assign(static_cast<size_t>(n), 0);
  int64_t total = 0;
  VisitRepeatsType(repeats.dtype(), [&](auto r) {
    using R = decltype(r);
    funcs::RepeatStartsOp<R> op;
    op.repeats = repeats.data<R>();
    op.broadcast = repeats.numel() == 1;
    op.n = n;
    op.starts = starts->data();
    op.summary = nullptr;
    for (int64_t j = 0; j < repeats.numel(); ++j) CheckRepeatCount(j, op.repeats[j]);
    funcs::ScanCpu(funcs::ScanLayout{1, n, 1}, true, false, op);
    total = n > 0 ? (*starts)[n - 1] + op.Count(n - 1) : 0;
  });
  return total;
}

// The scatter: marker[starts[j]] = j for every slice with a nonzero count, -1 elsewhere.
std::vector<int64_t> RepeatMarker(const std::vector<int64_t>& starts, int64_t M) {
  std::vector<int64_t> marker(static_cast<size_t>(M), -1);
  const int64_t n = static_cast<int64_t>(starts.size());
  for (int64_t j = 0; j < n; ++j) {
    const int64_t next = j + 1 < n ? starts[j + 1] : M;
    if (next > starts[j]) marker[starts[j]] = j;
  }
  return marker;
}

}  // namespace

// out[o, i, k] = x[o, i / repeats, k].
template <typename T, typename Context>
void RepeatInterleaveKernel(const Context& dev_ctx, const DenseTensor& x, int repeats, int axis, DenseTensor* out) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const T* px = x.data<T>();
  T* po = dev_ctx.template Alloc<T>(out);
  const int64_t M = l.length * repeats;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < M; ++i) {
      const T* src = px + (o * l.length + i / repeats) * l.inner;
      T* dst = po + (o * M + i) * l.inner;
      for (int64_t k = 0; k < l.inner; ++k) dst[k] = src[k];
    }
  }
}

// x_grad[o, j, k] = sum over c < repeats of out_grad[o, j * repeats + c, k], in that order.
template <typename T, typename Context>
void RepeatInterleaveGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                                int repeats, int axis, DenseTensor* x_grad) {
  using Acc = typename funcs::FloodGradAcc<T>::type;
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const T* pg = out_grad.data<T>();
  T* pd = dev_ctx.template Alloc<T>(x_grad);
  const int64_t M = l.length * repeats;
  std::vector<Acc> acc(static_cast<size_t>(l.inner));
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t j = 0; j < l.length; ++j) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t c = 0; c < repeats; ++c) {
        const T* g = pg + (o * M + j * repeats + c) * l.inner;
        for (int64_t k = 0; k < l.inner; ++k) acc[k] += static_cast<Acc>(g[k]);
      }
      T* dst = pd + (o * l.length + j) * l.inner;
      for (int64_t k = 0; k < l.inner; ++k) dst[k] = static_cast<T>(acc[k]);
    }
  }
}

// The stream decompaction of kernels/impl/flood_ops.h: starts, scatter, index flood + gather.
template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& repeats,
                                           int axis, int64_t output_size, DenseTensor* out) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  std::vector<int64_t> starts;
  const int64_t M = RepeatStarts(repeats, l.length, &starts);
  CheckRepeatOutputSize(output_size, M);
  out->Resize(RepeatOutputDims(out->dims(), axis, M));
  funcs::RepeatGatherOp<T> op;
  op.out = dev_ctx.template Alloc<T>(out);
  if (out->numel() == 0) return;
  const std::vector<int64_t> marker = RepeatMarker(starts, M);
  op.marker = marker.data();
  op.x = x.data<T>();
  op.index = funcs::RepeatIndex(l.inner, M, l.length);
  funcs::ScanCpu(funcs::ScanLayout{l.outer, M, l.inner}, false, false, op);
}

// The segment sums: one segmented-sum scan of out_grad from the end, storing at the markers.
template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexGradKernel(const Context& dev_ctx, const DenseTensor& x,
                                               const DenseTensor& repeats, const DenseTensor& out_grad, int axis,
                                               DenseTensor* x_grad) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const DDim& gd = out_grad.dims();  // x's dims (1-D for a 0-D x) with M along the axis
  const int64_t M = gd[axis < 0 ? axis + gd.size() : axis];
  std::vector<int64_t> starts;
  CheckRepeatOutputSize(M, RepeatStarts(repeats, l.length, &starts));
  funcs::RepeatSegmentSumOp<T, typename funcs::FloodGradAcc<T>::type> op;
  op.x_grad = dev_ctx.template Alloc<T>(x_grad);
  std::fill_n(op.x_grad, x_grad->numel(), static_cast<T>(0.0f));  // slices repeated 0 times
  if (out_grad.numel() == 0) return;
  const std::vector<int64_t> marker = RepeatMarker(starts, M);
  op.marker = marker.data();
  op.out_grad = out_grad.data<T>();
  op.index = funcs::RepeatIndex(l.inner, M, l.length);
  funcs::ScanCpu(funcs::ScanLayout{l.outer, M, l.inner}, false, true, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(repeat_interleave, CPU, ALL_LAYOUT, phi::RepeatInterleaveKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_grad, CPU, ALL_LAYOUT, phi::RepeatInterleaveGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index, CPU, ALL_LAYOUT, phi::RepeatInterleaveWithTensorIndexKernel,
                   float, double, phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index_grad, CPU, ALL_LAYOUT,
                   phi::RepeatInterleaveWithTensorIndexGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
