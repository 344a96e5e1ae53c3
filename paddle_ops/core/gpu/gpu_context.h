// GPUContext: the DeviceContext of one GPU, with its own stream. Kernels registered for
// Backend::GPU receive it; `stream()` is where they launch: our own stream, or the stream the
// calling thread has put in its place for this device (gpu::PushStream in gpu_info.h; the
// torch integration runs our kernels on torch's current stream that way).
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
namespace gpu {
// The stream the calling thread has put in place of ours on `device` (PushStream), or null.
cudaStream_t StreamOverride(int device);
}  // namespace gpu

class GPUContext : public DeviceContext {
 public:
  explicit GPUContext(const Place& place);
  ~GPUContext() override;
  cudaStream_t stream() const {
    gpu::CheckGpuUsableAfterFork();  // every launch and copy asks for the stream
    const cudaStream_t s = gpu::StreamOverride(device_);
    return s ? s : stream_;
  }
  // Our own stream, whatever the calling thread has put in its place.
  cudaStream_t own_stream() const { return stream_; }
  void Wait() const override;
  int MakeCurrent() const override;
  void RestoreCurrent(int previous) const override;
  int GetSMCount() const { return sm_count_; }

 private:
  cudaStream_t stream_ = nullptr;
  int device_ = 0;
  int sm_count_ = 0;
};

template <>
struct BackendContextOf<Backend::GPU> {
  using type = GPUContext;
};

}  // namespace phi
