// The GPU steps of repeat_interleave (declared in kernels/impl/repeat_interleave_kernel_impl.h):
// one thread per element for the int-count form; for the tensor form the starts on the scan
// engine (the total, a negative-count and an overflow flag copied to the host in one copy unless
// output_size gives the length), the gather by a binary search of the starts per element (no
// per-output scratch), and the gradient's marker by a scatter kernel.
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

// starts = the exclusive cumsum of the counts (the scan engine); with `summary` (3 int64,
// zeroed here) also the negative-count flag, the total and the overflow flag.
template <typename R>
void StartsOf(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t* starts, int64_t* summary) {
  if (summary) PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(summary, 0, 3 * sizeof(int64_t), ctx.stream()));
  funcs::Scan(ctx, funcs::ScanLayout{1, n, 1}, true, false, MakeStartsOp<R>(repeats, n, starts, summary));
}

// The counts are not checked against a given output_size (that would need the copy it saves).
inline int64_t Starts(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t output_size,
                      Pieces<GPUContext>* p) {
  p->starts = DenseTensor(DataType::INT64, DDim({n}));
  int64_t* starts = ctx.Alloc<int64_t>(&p->starts);
  int64_t M = output_size;
  DenseTensor summary_t(DataType::INT64, DDim({3}));
  int64_t* summary = M < 0 ? ctx.Alloc<int64_t>(&summary_t) : nullptr;
  if (repeats.dtype() == DataType::INT32) {
    StartsOf<int32_t>(ctx, repeats, n, starts, summary);
  } else {
    StartsOf<int64_t>(ctx, repeats, n, starts, summary);
  }
  if (M < 0) {
    int64_t host[3];
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemcpyAsync(host, summary, sizeof(host), cudaMemcpyDeviceToHost, ctx.stream()));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(ctx.stream()));
    PADDLE_ENFORCE(host[0] == 0, errors::InvalidArgument("repeat_interleave: repeats must be non-negative, but it "
                                                         "holds a negative count"));
    if (host[2] != 0) ThrowRepeatTotalOverflow();
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

// p->marker (M entries): j at starts[j] for every slice with a nonzero count, -1 elsewhere.
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

// The segment sums: one segmented-sum scan of out_grad from the end, storing at the markers.
template <typename T>
void SegmentSum(const GPUContext& ctx, const DenseTensor& repeats, const funcs::ScanLayout& l, int64_t M,
                const T* out_grad, T* x_grad, Pieces<GPUContext>* p) {
  funcs::RepeatSegmentSumOp<T, typename funcs::FloodGradAcc<T>::type> op;
  op.x_grad = x_grad;
  op.marker = Marker(ctx, repeats, l.length, M, p);
  op.out_grad = out_grad;
  op.index = funcs::RepeatIndex(l.inner, M, l.length);
  funcs::Scan(ctx, funcs::ScanLayout{l.outer, M, l.inner}, false, true, op);
}

// No per-output scratch: each output element finds its source slice by a binary search of the
// starts (the last j with starts[j] <= i: a count of 0 shares its start with the next slice);
// consecutive threads write consecutive elements. An output_size past the true total repeats the
// last slice; a negative count (undetected when output_size is given) still reads inside x.
template <typename T>
void Gather(const GPUContext& ctx, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<GPUContext>* p) {
  const int64_t n = l.length;
  const int64_t* starts = p->starts.data<int64_t>();
  const T* px = op.x;
  T* po = op.out;
  const funcs::FastDivMod inner(l.inner), rows(M);
  funcs::ForEachIndex(ctx, l.outer * M * l.inner, [=] __device__(int64_t k) {
    const int64_t line = inner.Div(k);  // o * M + i
    const int64_t o = rows.Div(line);
    const int64_t i = line - o * M;
    int64_t lo = 0, hi = n;  // starts[lo] <= i (starts[0] = 0) and the answer is below hi
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (starts[mid] <= i) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const int64_t d = static_cast<int64_t>(inner.divisor);
    po[k] = px[(o * n + lo) * d + (k - line * d)];
  });
}

}  // namespace repeat
}  // namespace phi
