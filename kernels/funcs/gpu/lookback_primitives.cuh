// Pieces of the block tiles' look-back (scan_block_rows.cuh) that the scan1d harness's variants
// (tools/dev/harness/scan1d) share without the rest of the engine.
//
// StoreStatusWord / LoadStatusWord: a tile's 16-byte status word (its flag inside) written and
// read whole, volatile, so a poll never sees half a word (aligned 16-byte accesses are
// single-copy atomic in practice on sm_70+, as CUB's tile status relies on).
//
// FoldInOrder: the sequential fold c = step(c, get(i)) for i = n - 1 down to 0 with each operand
// asked for four steps ahead, so a shared-memory load's latency hides behind a chain of short
// dependent steps. The same steps in the same order as the plain loop, so the result is the same
// bits.
#pragma once

#include <cuda_runtime.h>

namespace phi {
namespace funcs {
namespace scan_gpu {

__device__ __forceinline__ void StoreStatusWord(uint4* p, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}
__device__ __forceinline__ uint4 LoadStatusWord(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

template <typename C, typename Get, typename Step>
__device__ __forceinline__ C FoldInOrder(C c, int n, Get get, Step step) {
  int i = n - 1;
  if (i >= 3) {
    auto q0 = get(i), q1 = get(i - 1), q2 = get(i - 2), q3 = get(i - 3);
    for (; i >= 7; i -= 4) {
      c = step(c, q0);
      q0 = get(i - 4);
      c = step(c, q1);
      q1 = get(i - 5);
      c = step(c, q2);
      q2 = get(i - 6);
      c = step(c, q3);
      q3 = get(i - 7);
    }
    c = step(c, q0);
    c = step(c, q1);
    c = step(c, q2);
    c = step(c, q3);
    i -= 4;
  }
  for (; i >= 0; --i) c = step(c, get(i));
  return c;
}

}  // namespace scan_gpu
}  // namespace funcs
}  // namespace phi
