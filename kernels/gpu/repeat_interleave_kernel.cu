// repeat_interleave and its gradients on the GPU (both count forms, sharing the pieces of the
// stream decompaction).
#include "kernels/util/fast_divmod.h"
#include "kernels/gpu/flood_tiles.cuh"
#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/util/gpu_launch.cuh"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/impl/flood_ops.h"
#include "kernels/repeat_interleave_grad_kernel.h"
#include "kernels/repeat_interleave_kernel.h"

namespace phi {
namespace {

template <typename R>
funcs::RepeatStartsOp<R> MakeStartsOp(const DenseTensor& repeats, int64_t n, int64_t* starts, int64_t* summary) {
  funcs::RepeatStartsOp<R> op;
  op.repeats = repeats.data<R>();
  op.broadcast = repeats.numel() == 1;
  op.n = n;
  op.starts = starts;
  op.summary = summary;
  return op;
}

// starts = the exclusive cumsum of the counts (the scan engine); with `summary` (2 int64,
// zeroed here) also the negative-count flag and the total.
template <typename R>
void RepeatStartsGpu(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t* starts,
                     int64_t* summary) {
  if (summary) PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(summary, 0, 2 * sizeof(int64_t), ctx.stream()));
  funcs::Scan(ctx, funcs::ScanLayout{1, n, 1}, true, false, MakeStartsOp<R>(repeats, n, starts, summary));
}

// The scatter: marker[starts[j]] = j for every slice with a nonzero count (and a start inside
// [0, M): an unchecked output_size may cut the output short), -1 elsewhere.
template <typename R>
void RepeatMarkerGpu(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, const int64_t* starts, int64_t M,
                     int64_t* marker) {
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(marker, 0xff, M * sizeof(int64_t), ctx.stream()));  // all -1
  const auto op = MakeStartsOp<R>(repeats, n, nullptr, nullptr);
  funcs::ForEachIndex(ctx, n, [=] __device__(int64_t j) {
    const int64_t s = starts[j];
    if (op.Count(j) > 0 && s >= 0 && s < M) marker[s] = j;
  });
}

// starts and marker for the counts `repeats` and an output axis of length M, in scratch tensors.
struct RepeatPieces {
  DenseTensor starts, marker;
};

void RepeatMarker(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t M, RepeatPieces* p) {
  p->marker = DenseTensor(DataType::INT64, DDim({M}));
  int64_t* marker = ctx.Alloc<int64_t>(&p->marker);
  const int64_t* starts = p->starts.data<int64_t>();
  if (repeats.dtype() == DataType::INT32) {
    RepeatMarkerGpu<int32_t>(ctx, repeats, n, starts, M, marker);
  } else {
    RepeatMarkerGpu<int64_t>(ctx, repeats, n, starts, M, marker);
  }
}

}  // namespace

// out[o, i, k] = x[o, i / repeats, k].
template <typename T, typename Context>
void RepeatInterleaveKernel(const Context& dev_ctx, const DenseTensor& x, int repeats, int axis, DenseTensor* out) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const T* px = x.data<T>();
  T* po = dev_ctx.template Alloc<T>(out);
  const int64_t M = l.length * repeats;
  if (out->numel() == 0) return;
  const funcs::FastDivMod inner(l.inner), rows(M), rep(repeats);
  const int64_t n = l.length;
  funcs::ForEachIndex(dev_ctx, out->numel(), [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * M + i
    const int64_t o = rows.Div(line);
    const int64_t i = line - o * M;
    po[k] = px[(o * n + rep.Div(i)) * static_cast<int64_t>(inner.divisor) + (k - line * static_cast<int64_t>(inner.divisor))];
  });
}

// x_grad[o, j, k] = sum over c < repeats of out_grad[o, j * repeats + c, k], in that order.
template <typename T, typename Context>
void RepeatInterleaveGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                                int repeats, int axis, DenseTensor* x_grad) {
  using Acc = typename funcs::FloodGradAcc<T>::type;
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const T* pg = out_grad.data<T>();
  T* pd = dev_ctx.template Alloc<T>(x_grad);
  if (x_grad->numel() == 0) return;
  const funcs::FastDivMod inner(l.inner);
  const int64_t n = l.length, M = n * repeats, r = repeats;
  funcs::ForEachIndex(dev_ctx, x_grad->numel(), [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * n + j
    const int64_t in = k - line * static_cast<int64_t>(inner.divisor);
    const int64_t o = line / n;
    const int64_t j = line - o * n;
    const T* g = pg + (o * M + j * r) * static_cast<int64_t>(inner.divisor) + in;
    Acc acc = Acc(0);
    for (int64_t c = 0; c < r; ++c) acc += static_cast<Acc>(g[c * static_cast<int64_t>(inner.divisor)]);
    pd[k] = static_cast<T>(acc);
  });
}

// The stream decompaction of kernels/impl/flood_ops.h: starts, scatter, index flood, gather.
// The output length is the counts' total, copied to the host (one 16-byte copy, with the
// negative-count flag), unless output_size gives it.
template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& repeats,
                                           int axis, int64_t output_size, DenseTensor* out) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const int64_t n = l.length;
  RepeatPieces p;
  p.starts = DenseTensor(DataType::INT64, DDim({n}));
  int64_t* starts = dev_ctx.template Alloc<int64_t>(&p.starts);
  int64_t M = output_size;
  DenseTensor summary_t(DataType::INT64, DDim({2}));
  int64_t* summary = M < 0 ? dev_ctx.template Alloc<int64_t>(&summary_t) : nullptr;
  if (repeats.dtype() == DataType::INT32) {
    RepeatStartsGpu<int32_t>(dev_ctx, repeats, n, starts, summary);
  } else {
    RepeatStartsGpu<int64_t>(dev_ctx, repeats, n, starts, summary);
  }
  if (M < 0) {
    int64_t host[2];
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemcpyAsync(host, summary, sizeof(host), cudaMemcpyDeviceToHost, dev_ctx.stream()));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(dev_ctx.stream()));
    PADDLE_ENFORCE(host[0] == 0, errors::InvalidArgument("repeat_interleave: repeats must be non-negative, but it "
                                                         "holds a negative count"));
    M = host[1];
  }
  out->Resize(RepeatOutputDims(out->dims(), axis, M));
  funcs::RepeatGatherOp<T> op;
  op.out = dev_ctx.template Alloc<T>(out);
  if (out->numel() == 0) return;
  RepeatMarker(dev_ctx, repeats, n, M, &p);
  op.marker = p.marker.data<int64_t>();
  op.x = x.data<T>();
  if (l.inner == 1) {  // rows: the flood stores the gathered element
    op.index = funcs::RepeatIndex(l.inner, M, n);
    funcs::Scan(dev_ctx, funcs::ScanLayout{l.outer, M, l.inner}, false, false, op);
    return;
  }
  // Slices of inner > 1 elements: flood the M markers alone (in place), then copy whole
  // slices, consecutive threads on consecutive elements of a slice.
  funcs::MarkerFloodOp flood;
  flood.marker = p.marker.data<int64_t>();
  funcs::Scan(dev_ctx, funcs::ScanLayout{1, M, 1}, false, false, flood);
  const int64_t* src = flood.marker;
  const T* px = op.x;
  T* po = op.out;
  const funcs::FastDivMod inner(l.inner), rows(M);
  funcs::ForEachIndex(dev_ctx, out->numel(), [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * M + i
    const int64_t o = rows.Div(line);
    const int64_t j = src[line - o * M];
    const int64_t d = static_cast<int64_t>(inner.divisor);
    po[k] = j < 0 ? static_cast<T>(0.0f) : px[(o * n + j) * d + (k - line * d)];
  });
}

// The segment sums: one segmented-sum scan of out_grad from the end, storing at the markers.
template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexGradKernel(const Context& dev_ctx, const DenseTensor& x,
                                               const DenseTensor& repeats, const DenseTensor& out_grad, int axis,
                                               DenseTensor* x_grad) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const DDim& gd = out_grad.dims();  // x's dims (1-D for a 0-D x) with M along the axis
  const int64_t n = l.length, M = gd[axis < 0 ? axis + gd.size() : axis];
  funcs::RepeatSegmentSumOp<T, typename funcs::FloodGradAcc<T>::type> op;
  op.x_grad = dev_ctx.template Alloc<T>(x_grad);
  if (x_grad->numel() == 0) return;
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(op.x_grad, 0, x_grad->numel() * sizeof(T), dev_ctx.stream()));
  if (out_grad.numel() == 0) return;
  RepeatPieces p;
  p.starts = DenseTensor(DataType::INT64, DDim({n}));
  int64_t* starts = dev_ctx.template Alloc<int64_t>(&p.starts);
  if (repeats.dtype() == DataType::INT32) {
    RepeatStartsGpu<int32_t>(dev_ctx, repeats, n, starts, nullptr);
  } else {
    RepeatStartsGpu<int64_t>(dev_ctx, repeats, n, starts, nullptr);
  }
  RepeatMarker(dev_ctx, repeats, n, M, &p);
  op.marker = p.marker.data<int64_t>();
  op.out_grad = out_grad.data<T>();
  op.index = funcs::RepeatIndex(l.inner, M, n);
  funcs::Scan(dev_ctx, funcs::ScanLayout{l.outer, M, l.inner}, false, true, op);
}

}  // namespace phi

PD_REGISTER_KERNEL(repeat_interleave, GPU, ALL_LAYOUT, phi::RepeatInterleaveKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_grad, GPU, ALL_LAYOUT, phi::RepeatInterleaveGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index, GPU, ALL_LAYOUT, phi::RepeatInterleaveWithTensorIndexKernel,
                   float, double, phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(repeat_interleave_with_tensor_index_grad, GPU, ALL_LAYOUT,
                   phi::RepeatInterleaveWithTensorIndexGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
