// The GPU steps of repeat_interleave (declared in kernels/impl/repeat_interleave_kernel_impl.h):
// one thread per element for the int-count form; for the tensor form the starts on the scan
// engine (the total and a negative-count flag copied to the host in one 16-byte copy unless
// output_size gives the length), the marker by a scatter kernel, and the gather (an index flood
// storing the element for rows; for slices of inner > 1 elements a flood of the M markers
// alone, in place, then whole slices copied, consecutive threads on consecutive elements).
#pragma once

#include <cstdint>

#include "kernels/funcs/gpu/scan_dispatch.cuh"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "kernels/util/fast_divmod.h"
#include "kernels/util/gpu_launch.cuh"
#include "paddle_ops/core/gpu/gpu_context.h"

namespace phi {
namespace repeat {

template <>
struct Pieces<GPUContext> {
  DenseTensor starts, marker;
};

template <typename T>
void CopyRepeated(const GPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* x, T* out) {
  const int64_t M = l.length * repeats;
  const funcs::FastDivMod inner(l.inner), rows(M), rep(repeats);
  const int64_t n = l.length;
  funcs::ForEachIndex(ctx, l.outer * M * l.inner, [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * M + i
    const int64_t o = rows.Div(line);
    const int64_t i = line - o * M;
    out[k] = x[(o * n + rep.Div(i)) * static_cast<int64_t>(inner.divisor) + (k - line * static_cast<int64_t>(inner.divisor))];
  });
}

template <typename T>
void SumRepeated(const GPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* out_grad, T* x_grad) {
  using Acc = typename funcs::FloodGradAcc<T>::type;
  const funcs::FastDivMod inner(l.inner);
  const int64_t n = l.length, M = n * repeats, r = repeats;
  funcs::ForEachIndex(ctx, l.outer * n * l.inner, [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * n + j
    const int64_t in = k - line * static_cast<int64_t>(inner.divisor);
    const int64_t o = line / n;
    const int64_t j = line - o * n;
    const T* g = out_grad + (o * M + j * r) * static_cast<int64_t>(inner.divisor) + in;
    Acc acc = Acc(0);
    for (int64_t c = 0; c < r; ++c) acc += static_cast<Acc>(g[c * static_cast<int64_t>(inner.divisor)]);
    x_grad[k] = static_cast<T>(acc);
  });
}

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
void StartsOf(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t* starts, int64_t* summary) {
  if (summary) PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(summary, 0, 2 * sizeof(int64_t), ctx.stream()));
  funcs::Scan(ctx, funcs::ScanLayout{1, n, 1}, true, false, MakeStartsOp<R>(repeats, n, starts, summary));
}

// The counts are not checked against a given output_size (that would need the copy it saves).
inline int64_t Starts(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t output_size,
                      Pieces<GPUContext>* p) {
  p->starts = DenseTensor(DataType::INT64, DDim({n}));
  int64_t* starts = ctx.Alloc<int64_t>(&p->starts);
  int64_t M = output_size;
  DenseTensor summary_t(DataType::INT64, DDim({2}));
  int64_t* summary = M < 0 ? ctx.Alloc<int64_t>(&summary_t) : nullptr;
  if (repeats.dtype() == DataType::INT32) {
    StartsOf<int32_t>(ctx, repeats, n, starts, summary);
  } else {
    StartsOf<int64_t>(ctx, repeats, n, starts, summary);
  }
  if (M < 0) {
    int64_t host[2];
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemcpyAsync(host, summary, sizeof(host), cudaMemcpyDeviceToHost, ctx.stream()));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(ctx.stream()));
    PADDLE_ENFORCE(host[0] == 0, errors::InvalidArgument("repeat_interleave: repeats must be non-negative, but it "
                                                         "holds a negative count"));
    M = host[1];
  }
  return M;
}

// The scatter, for slices with a nonzero count and a start inside [0, M) (an unchecked
// output_size may cut the output short).
template <typename R>
void MarkerOf(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, const int64_t* starts, int64_t M,
              int64_t* marker) {
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(marker, 0xff, M * sizeof(int64_t), ctx.stream()));  // all -1
  const auto op = MakeStartsOp<R>(repeats, n, nullptr, nullptr);
  funcs::ForEachIndex(ctx, n, [=] __device__(int64_t j) {
    const int64_t s = starts[j];
    if (op.Count(j) > 0 && s >= 0 && s < M) marker[s] = j;
  });
}

inline const int64_t* Marker(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t M,
                             Pieces<GPUContext>* p) {
  p->marker = DenseTensor(DataType::INT64, DDim({M}));
  int64_t* marker = ctx.Alloc<int64_t>(&p->marker);
  const int64_t* starts = p->starts.data<int64_t>();
  if (repeats.dtype() == DataType::INT32) {
    MarkerOf<int32_t>(ctx, repeats, n, starts, M, marker);
  } else {
    MarkerOf<int64_t>(ctx, repeats, n, starts, M, marker);
  }
  return marker;
}

template <typename T>
void Gather(const GPUContext& ctx, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<GPUContext>* p) {
  const int64_t n = l.length;
  if (l.inner == 1) {  // rows: the flood stores the gathered element
    op.index = funcs::RepeatIndex(l.inner, M, n);
    funcs::Scan(ctx, funcs::ScanLayout{l.outer, M, l.inner}, false, false, op);
    return;
  }
  funcs::MarkerFloodOp flood;
  flood.marker = p->marker.data<int64_t>();  // op.marker, flooded in place
  funcs::Scan(ctx, funcs::ScanLayout{1, M, 1}, false, false, flood);
  const int64_t* src = flood.marker;
  const T* px = op.x;
  T* po = op.out;
  const funcs::FastDivMod inner(l.inner), rows(M);
  funcs::ForEachIndex(ctx, l.outer * M * l.inner, [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * M + i
    const int64_t o = rows.Div(line);
    const int64_t j = src[line - o * M];
    const int64_t d = static_cast<int64_t>(inner.divisor);
    po[k] = j < 0 ? static_cast<T>(0.0f) : px[(o * n + j) * d + (k - line * d)];
  });
}

}  // namespace repeat
}  // namespace phi
