// Dynamic shared memory above the 48 KB default is an opt-in per kernel and device
// (cudaFuncAttributeMaxDynamicSharedMemorySize, an attribute of the current device's copy of the
// kernel). AllowDynamicSmem asks once per kernel, device and size (a set under a mutex), so a
// kernel launched in a loop does not call the driver at every launch. No library headers: the
// kernel harnesses include it too; PADDLE_ENFORCE_GPU_SUCCESS must be defined by the includer.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <set>
#include <tuple>

namespace phi {
namespace funcs {

inline void AllowDynamicSmem(const void* kernel, int64_t bytes) {
  if (bytes <= 48 * 1024) return;
  int device = 0;
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetDevice(&device));
  static std::mutex mu;
  static std::set<std::tuple<const void*, int, int64_t>> done;
  const auto key = std::make_tuple(kernel, device, bytes);
  std::lock_guard<std::mutex> lock(mu);
  if (done.count(key) != 0) return;
  PADDLE_ENFORCE_GPU_SUCCESS(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  done.insert(key);
}

}  // namespace funcs
}  // namespace phi
