// The CPU steps of repeat_interleave (declared in kernels/impl/repeat_interleave_kernel_impl.h):
// plain loops for the int-count form; for the tensor form the starts on the engine with the op
// the GPU uses, after checking the counts (each >= 0, their sum within int64), then the gather
// by runs of the starts and the gradient's sums per slice (no per-output scratch).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/funcs/cpu/scan_runtime.h"
#include "kernels/util/broadcast.h"  // kParallelChunk, kParallelMinElements
#include "kernels/util/omp_exception.h"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "paddle_ops/core/device_context.h"

namespace phi {
namespace repeat {

template <>
struct Pieces<CPUContext> {
  std::vector<int64_t> starts;
};

template <typename T>
void CopyRepeated(const CPUContext&, const funcs::ScanLayout& l, int repeats, const T* x, T* out) {
  const int64_t M = l.length * repeats;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < M; ++i) {
      const T* src = x + (o * l.length + i / repeats) * l.inner;
      T* dst = out + (o * M + i) * l.inner;
      for (int64_t k = 0; k < l.inner; ++k) dst[k] = src[k];
    }
  }
}

template <typename T>
void SumRepeated(const CPUContext&, const funcs::ScanLayout& l, int repeats, const T* out_grad, T* x_grad) {
  using Acc = typename funcs::FloodGradAcc<T>::type;
  const int64_t M = l.length * repeats;
  std::vector<Acc> acc(static_cast<size_t>(l.inner));
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t j = 0; j < l.length; ++j) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t c = 0; c < repeats; ++c) {
        const T* g = out_grad + (o * M + j * repeats + c) * l.inner;
        for (int64_t k = 0; k < l.inner; ++k) acc[k] += static_cast<Acc>(g[k]);
      }
      T* dst = x_grad + (o * l.length + j) * l.inner;
      for (int64_t k = 0; k < l.inner; ++k) dst[k] = static_cast<T>(acc[k]);
    }
  }
}

// The counts are checked here (each >= 0, their total against output_size when that is given).
inline int64_t Starts(const CPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t output_size,
                      Pieces<CPUContext>* p) {
  p->starts.assign(static_cast<size_t>(n), 0);
  int64_t total = 0;
  VisitRepeatsType(repeats.dtype(), [&](auto r) {
    using R = decltype(r);
    funcs::RepeatStartsOp<R> op;
    op.repeats = repeats.data<R>();
    op.broadcast = repeats.numel() == 1;
    op.n = n;
    op.starts = p->starts.data();
    op.summary = nullptr;
    int64_t sum = 0;
    for (int64_t j = 0; j < repeats.numel(); ++j) {
      CheckRepeatCount(j, op.repeats[j]);
      if (__builtin_add_overflow(sum, static_cast<int64_t>(op.repeats[j]), &sum)) ThrowRepeatTotalOverflow();
    }
    if (op.broadcast && __builtin_mul_overflow(sum, n, &sum)) ThrowRepeatTotalOverflow();
    funcs::Scan(ctx, funcs::ScanLayout{1, n, 1}, true, false, op);
    total = n > 0 ? p->starts[n - 1] + op.Count(n - 1) : 0;
  });
  CheckRepeatOutputSize(output_size, total);
  return total;
}

// Each slice's outputs summed from the end (the order of the segmented scan), in parallel over
// the slices: each x_grad element is summed by one thread in a fixed order. A thread's
// accumulator (`inner` values) may not be allocatable: kept, and thrown after the region.
template <typename T>
void SegmentSum(const CPUContext&, const DenseTensor&, const funcs::ScanLayout& l, int64_t M, const T* out_grad,
                T* x_grad, Pieces<CPUContext>* p) {
  using Acc = typename funcs::FloodGradAcc<T>::type;
  const int64_t n = l.length, inner = l.inner, slices = l.outer * l.length;
  const int64_t* starts = p->starts.data();
  funcs::OmpExceptionKeeper keep;
#pragma omp parallel num_threads(funcs::CpuNumThreads()) if (l.outer * M * inner > funcs::kParallelMinElements)
  {
    std::vector<Acc> acc;
    keep.Run([&] { acc.resize(static_cast<size_t>(inner)); });
#pragma omp for schedule(dynamic, 16)
    for (int64_t t = 0; t < slices; ++t) {
      if (keep.failed()) continue;
      const int64_t o = t / n, j = t - o * n;
      const int64_t b = starts[j], e = j + 1 < n ? starts[j + 1] : M;
      if (e <= b) continue;  // a zero count: x_grad stays 0
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t i = e - 1; i >= b; --i) {
        const T* g = out_grad + (o * M + i) * inner;
        for (int64_t k = 0; k < inner; ++k) acc[k] += static_cast<Acc>(g[k]);
      }
      T* dst = x_grad + t * inner;
      for (int64_t k = 0; k < inner; ++k) dst[k] = static_cast<T>(acc[k]);
    }
  }
  keep.Rethrow();
}

// No per-output scratch: the [outer * M] output slices are cut into fixed tiles (in parallel);
// a tile finds the source of its first slice by a binary search of the starts (the last j with
// starts[j] <= i: a count of 0 shares its start with the next slice), then walks the runs,
// filling each with its source slice.
template <typename T>
void Gather(const CPUContext&, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<CPUContext>* p) {
  const int64_t n = l.length, inner = l.inner, lines = l.outer * M;
  const int64_t* starts = p->starts.data();
  const int64_t per = std::max<int64_t>(1, funcs::kParallelChunk / std::max<int64_t>(inner, 1));
  const int64_t tiles = (lines + per - 1) / per;
  // No keeper: the body only reads the starts and copies T values (nothing in it can throw).
#pragma omp parallel for num_threads(funcs::CpuNumThreads()) schedule(static) \
    if (lines * inner > funcs::kParallelMinElements && tiles > 1)
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t end = std::min(lines, (t + 1) * per);
    for (int64_t line = t * per; line < end;) {
      const int64_t o = line / M;
      const int64_t stop = std::min(end - o * M, M);  // this tile's slices [i, stop) of row o
      int64_t i = line - o * M;
      int64_t j = std::upper_bound(starts, starts + n, i) - starts - 1;
      for (; i < stop; ++j) {
        const int64_t run_end = std::min(j + 1 < n ? starts[j + 1] : M, stop);
        const T* src = op.x + (o * n + j) * inner;
        T* dst = op.out + (o * M + i) * inner;
        if (inner == 1) {
          std::fill(dst, dst + (run_end - i), *src);
        } else {
          for (int64_t c = i; c < run_end; ++c, dst += inner) std::copy(src, src + inner, dst);
        }
        i = std::max(i, run_end);
      }
      line = o * M + stop;
    }
  }
}

}  // namespace repeat
}  // namespace phi
