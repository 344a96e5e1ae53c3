// The GPU reference scan backend: the seed design's path (seed 001), thrust's transformed
// prefix scans with the op's Combine as the binary operator. One row uses
// thrust::transform_{in,ex}clusive_scan; batched rows use the by-key form with the row as
// the key, and a permutation of indices walks each row in scan order, so neither `inner > 1`
// (a non-last axis) nor `reverse` moves any data. The op's Load/Store (cum_scan_ops.h) are
// the same as on the CPU; a final pass stores each prefix state through Store, which may
// read the element's neighbour (the logcumsumexp gradient does).
//
// It stays selectable beside the fast engine (scan_dispatch.cuh): PADDLE_OPS_GPU_SCAN=thrust
// (gpu/scan_dispatch.cuh).
#pragma once

#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform_scan.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system_error.h>

#include <new>

#include "kernels/funcs/scan_layout.h"
#include "paddle_ops/core/gpu/gpu_context.h"

namespace phi {
namespace funcs {

// The position of logical element k, where logical order is [outer, inner, length] with
// `length` fastest and running in scan order.
struct ScanOrder {
  int64_t length, inner;
  bool reverse;
  HOSTDEVICE ScanPos operator()(int64_t k) const {
    const int64_t s = k % length;  // step in scan order
    const int64_t row = k / length;
    const int64_t o = row / inner, i = row % inner;
    const int64_t l = reverse ? length - 1 - s : s;
    const int64_t off = (o * length + l) * inner + i;
    return ScanPos{off, reverse ? off + inner : off - inner, s == 0};
  }
};

template <typename Op>
struct ScanLoadAt {
  Op op;
  ScanOrder order;
  HOSTDEVICE typename Op::State operator()(int64_t k) const { return op.Load(order(k)); }
};

template <typename Op>
struct ScanCombineFn {
  Op op;
  HOSTDEVICE typename Op::State operator()(const typename Op::State& a, const typename Op::State& b) const {
    return op.Combine(a, b);
  }
};

template <typename Op>
struct ScanStoreAt {
  Op op;
  ScanOrder order;
  const typename Op::State* states;
  HOSTDEVICE void operator()(int64_t k) const { op.Store(order(k), states[k]); }
};

struct RowKey {
  int64_t length;
  HOSTDEVICE int64_t operator()(int64_t k) const { return k / length; }
};

template <typename Op>
void ScanThrust(const GPUContext& ctx, const ScanLayout& l, bool exclusive, bool reverse, const Op& op) {
  using State = typename Op::State;
  const int64_t n = l.numel();
  if (n == 0) return;
  // Prefix states, in logical order.
  DenseTensor scratch(DataType::UINT8, DDim({static_cast<int64_t>(n * sizeof(State))}));
  State* states = static_cast<State*>(ctx.Alloc(&scratch, DataType::UINT8));
  const ScanOrder order{l.length, l.inner, reverse};
  thrust::counting_iterator<int64_t> idx(0);
  auto in = thrust::make_transform_iterator(idx, ScanLoadAt<Op>{op, order});
  const ScanCombineFn<Op> combine{op};
  auto policy = thrust::cuda::par.on(ctx.stream());
  try {
    if (l.outer * l.inner == 1) {
      // One row: the seed's transformed scan, element -> state as the transform.
      if (exclusive) {
        thrust::transform_exclusive_scan(policy, idx, idx + n, states, ScanLoadAt<Op>{op, order},
                                         op.Identity(), combine);
      } else {
        thrust::transform_inclusive_scan(policy, idx, idx + n, states, ScanLoadAt<Op>{op, order}, combine);
      }
    } else {
      auto keys = thrust::make_transform_iterator(idx, RowKey{l.length});
      if (exclusive) {
        thrust::exclusive_scan_by_key(policy, keys, keys + n, in, states, op.Identity(),
                                      thrust::equal_to<int64_t>(), combine);
      } else {
        thrust::inclusive_scan_by_key(policy, keys, keys + n, in, states, thrust::equal_to<int64_t>(), combine);
      }
    }
    thrust::for_each(policy, idx, idx + n, ScanStoreAt<Op>{op, order, states});
  } catch (const std::bad_alloc&) {
    PADDLE_THROW(errors::ResourceExhausted("out of GPU memory in thrust's scan (%d elements)", n));
  } catch (const thrust::system_error& e) {
    PADDLE_THROW(errors::Fatal("thrust scan failed: %s", e.what()));
  }
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  // `scratch` is returned to the caching allocator here; later work on this stream is
  // ordered after the scan, so reusing the block is safe.
}

}  // namespace funcs
}  // namespace phi
