// GPUContext: the DeviceContext of one GPU, with its own stream. Kernels registered for
// Backend::GPU receive it; `stream()` is where they launch.
#pragma once

#include <cuda_runtime.h>

#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/gpu/fork_guard.h"
#include "paddle_ops/core/kernel_registry.h"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr)                                                         \
  do {                                                                                           \
    cudaError_t __e = (expr);                                                                    \
    if (__e != cudaSuccess) {                                                                    \
      if (__e == cudaErrorMemoryAllocation) {                                                    \
        (void)cudaGetLastError();                                                                \
        PADDLE_THROW(::phi::errors::ResourceExhausted("CUDA out of memory in %s: %s", #expr,      \
                                                      cudaGetErrorString(__e)));                 \
      }                                                                                          \
      PADDLE_THROW(::phi::errors::Fatal("CUDA error %d (%s) in %s", static_cast<int>(__e),       \
                                        cudaGetErrorString(__e), #expr));                        \
    }                                                                                            \
  } while (0)

namespace phi {

class GPUContext : public DeviceContext {
 public:
  explicit GPUContext(const Place& place);
  ~GPUContext() override;
  cudaStream_t stream() const {
    gpu::CheckGpuUsableAfterFork();  // every launch and copy asks for the stream
    return stream_;
  }
  void Wait() const override;
  int MakeCurrent() const override;
  void RestoreCurrent(int previous) const override;
  int GetSMCount() const { return sm_count_; }

 private:
  cudaStream_t stream_ = nullptr;
  int sm_count_ = 0;
};

template <>
struct BackendContextOf<Backend::GPU> {
  using type = GPUContext;
};

}  // namespace phi
