// The CPU steps of repeat_interleave (declared in kernels/impl/repeat_interleave_kernel_impl.h):
// plain loops for the int-count form; for the tensor form the starts on the engine with the op
// the GPU uses, after checking the counts, and the marker and gather on the host.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/funcs/cpu/scan_cpu.h"
#include "kernels/impl/repeat_interleave_kernel_impl.h"
#include "paddle_ops/core/device_context.h"

namespace phi {
namespace repeat {

template <>
struct Pieces<CPUContext> {
  std::vector<int64_t> starts, marker;
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
    for (int64_t j = 0; j < repeats.numel(); ++j) CheckRepeatCount(j, op.repeats[j]);
    funcs::Scan(ctx, funcs::ScanLayout{1, n, 1}, true, false, op);
    total = n > 0 ? p->starts[n - 1] + op.Count(n - 1) : 0;
  });
  CheckRepeatOutputSize(output_size, total);
  return total;
}

inline const int64_t* Marker(const CPUContext&, const DenseTensor&, int64_t n, int64_t M, Pieces<CPUContext>* p) {
  p->marker.assign(static_cast<size_t>(M), -1);
  const std::vector<int64_t>& starts = p->starts;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t next = j + 1 < n ? starts[j + 1] : M;
    if (next > starts[j]) p->marker[starts[j]] = j;
  }
  return p->marker.data();
}

template <typename T>
void Gather(const CPUContext& ctx, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<CPUContext>*) {
  op.index = funcs::RepeatIndex(l.inner, M, l.length);
  funcs::Scan(ctx, funcs::ScanLayout{l.outer, M, l.inner}, false, false, op);
}

}  // namespace repeat
}  // namespace phi
