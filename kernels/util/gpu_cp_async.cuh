// Asynchronous copies from global to shared memory (cp.async, sm_80 and later), in one place for
// every kernel that stages its inputs this way: the scan engine's staged rows and column strips,
// pscan's one-pass tiles and gla's sm_90a backward.
//
// Where cp.async does not exist (an older architecture, or a kernel compiled as host code, as
// tools/dev/harness/gla/bwd_emulation.cc does) each copy is an ordinary load and store, so the
// commit and wait calls have nothing to wait for and do nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace phi {
namespace funcs {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define PADDLE_OPS_HAS_CP_ASYNC 1
#else
#define PADDLE_OPS_HAS_CP_ASYNC 0
#endif

// kBytes (4, 8 or 16) from gmem to smem, in flight without registers: 16-byte copies bypass L1
// (.cg), smaller ones go through it (.ca, the only form they have).
template <int kBytes>
__device__ __forceinline__ void CpAsync(void* smem, const void* gmem) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if PADDLE_OPS_HAS_CP_ASYNC
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(kBytes) : "memory");
  }
#else
  std::memcpy(smem, gmem, kBytes);
#endif
}

// 16 bytes from gmem, or 16 zero bytes where !valid (gmem is then not read).
__device__ __forceinline__ void CpAsync16OrZero(void* smem, const void* gmem, bool valid) {
#if PADDLE_OPS_HAS_CP_ASYNC
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0)
               : "memory");
#else
  if (valid) {
    std::memcpy(smem, gmem, 16);
  } else {
    std::memset(smem, 0, 16);
  }
#endif
}

// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void CpAsyncCommit() {
#if PADDLE_OPS_HAS_CP_ASYNC
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void CpAsyncWait() {
#if PADDLE_OPS_HAS_CP_ASYNC
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// Waits for every copy this thread issued, committed or not.
__device__ __forceinline__ void CpAsyncWaitAll() {
#if PADDLE_OPS_HAS_CP_ASYNC
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

}  // namespace funcs
}  // namespace phi
