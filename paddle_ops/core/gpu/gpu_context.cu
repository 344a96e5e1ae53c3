// The CUDA runtime pieces: GPUContext, the caching device allocator, device copies, and
// their registration with the core (allocator, memcpy, memset and context factory for
// AllocationType::GPU) at load time.
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "paddle_ops/core/gpu/block_pool.h"
#include "paddle_ops/core/gpu/gpu_context.h"
#include "paddle_ops/core/gpu/gpu_info.h"

namespace phi {

namespace {
// Scoped switch of the current device.
class DeviceGuard {
 public:
  explicit DeviceGuard(int id) {
    cudaGetDevice(&prev_);
    if (prev_ != id) cudaSetDevice(id);
  }
  ~DeviceGuard() {
    int cur = 0;
    cudaGetDevice(&cur);
    if (cur != prev_) cudaSetDevice(prev_);
  }

 private:
  int prev_ = 0;
};

// The caching allocator: per device, a BlockPool (block_pool.h) cuts tensors' blocks out of
// segments from cudaMalloc, with size classes, best fit, splitting and merging, and gives
// wholly free segments back before it asks for a new one when holding them would pass 1.5x
// the most ever in use, so the memory held stays near
// what is in use even when every shape differs. When cudaMalloc fails, the queued work is
// waited for, every free segment given back and the segment asked for once more before
// MemoryError. Reuse is safe with one stream per device: work on the stream is ordered, as
// with PyTorch's allocator.
class CachingGPUAllocator : public Allocator {
 public:
  std::shared_ptr<Allocation> Allocate(size_t bytes, const Place& place) override {
    gpu::CheckGpuUsableAfterFork();
    const int dev = place.GetDeviceId();
    static const int n = gpu::DeviceCount();  // fixed for the life of the process
    if (n == 0) {
      PADDLE_THROW(errors::PreconditionNotMet(
          "no GPU is visible to this process (CUDA_VISIBLE_DEVICES, the driver, or no device): cannot "
          "allocate %d bytes on %s",
          bytes, place.DebugString()));
    }
    PADDLE_ENFORCE(dev >= 0 && dev < n,
                   errors::InvalidArgument("%s does not exist: %d GPU(s) visible", place.DebugString(), n));
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      BlockPool& pool = PoolOf(dev);
      p = pool.Allocate(bytes);
      if (!p) {
        gpu::Synchronize();
        pool.ReleaseFreeSegments();
        p = pool.Allocate(bytes);
      }
    }
    if (!p) {
      size_t free_b = 0, total_b = 0;
      {
        DeviceGuard guard(dev);
        cudaMemGetInfo(&free_b, &total_b);
      }
      PADDLE_THROW(errors::ResourceExhausted(
          "out of GPU memory on %s: tried to allocate %d bytes (%.2f GiB); %.2f GiB free of %.2f GiB, %.2f GiB "
          "held by this process's allocator",
          place.DebugString(), bytes, bytes / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0,
          Stats(dev).reserved / 1073741824.0));
    }
    return std::make_shared<Allocation>(p, bytes, place, [this, dev](void* q) {
      std::lock_guard<std::mutex> lock(mu_);
      PoolOf(dev).Free(q);
    });
  }

  void EmptyCache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [dev, pool] : pools_) pool->ReleaseFreeSegments();
  }
  size_t cached() {
    std::lock_guard<std::mutex> lock(mu_);
    size_t c = 0;
    for (auto& [dev, pool] : pools_) c += pool->stats().reserved - pool->stats().allocated;
    return c;
  }
  BlockPoolStats Stats(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(dev);
    return it == pools_.end() ? BlockPoolStats{} : it->second->stats();
  }
  void ResetPeaks(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(dev);
    if (it != pools_.end()) it->second->ResetPeaks();
  }

 private:
  // Called under mu_.
  BlockPool& PoolOf(int dev) {
    auto& pool = pools_[dev];
    if (!pool) {
      pool = std::make_unique<BlockPool>(
          [dev](size_t n) -> void* {
            DeviceGuard guard(dev);
            void* p = nullptr;
            if (cudaMalloc(&p, n) != cudaSuccess) {
              (void)cudaGetLastError();
              return nullptr;
            }
            return p;
          },
          [dev](void* p) {
            DeviceGuard guard(dev);
            cudaFree(p);
          });
    }
    return *pool;
  }

  std::mutex mu_;
  std::map<int, std::unique_ptr<BlockPool>> pools_;  // by device
};

CachingGPUAllocator& TheAllocator() {
  static CachingGPUAllocator* a = new CachingGPUAllocator;  // never destroyed: blocks may outlive exit
  return *a;
}

const GPUContext& ContextOf(const Place& place) {
  return static_cast<const GPUContext&>(*DeviceContextPool::Instance().Get(place));
}

void GpuMemcpy(void* dst, const Place& dst_place, const void* src, const Place& src_place, size_t bytes) {
  const bool d_gpu = dst_place.GetType() == AllocationType::GPU;
  const bool s_gpu = src_place.GetType() == AllocationType::GPU;
  const Place& dev = d_gpu ? dst_place : src_place;
  const GPUContext& ctx = ContextOf(dev);
  DeviceGuard guard(dev.GetDeviceId());
  if (d_gpu && s_gpu && dst_place != src_place) {
    ContextOf(src_place).Wait();
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemcpyPeerAsync(dst, dst_place.GetDeviceId(), src, src_place.GetDeviceId(),
                                                   bytes, ctx.stream()));
  } else {
    const cudaMemcpyKind kind = d_gpu && s_gpu ? cudaMemcpyDeviceToDevice
                                : d_gpu        ? cudaMemcpyHostToDevice
                                               : cudaMemcpyDeviceToHost;
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemcpyAsync(dst, src, bytes, kind, ctx.stream()));
  }
  // Copies that touch host memory complete before returning (the host buffer may be freed).
  if (!(d_gpu && s_gpu)) ctx.Wait();
}

void GpuMemsetZero(void* dst, const Place& place, size_t bytes) {
  const GPUContext& ctx = ContextOf(place);
  DeviceGuard guard(place.GetDeviceId());
  PADDLE_ENFORCE_GPU_SUCCESS(cudaMemsetAsync(dst, 0, bytes, ctx.stream()));
}

DeviceContext* MakeGPUContext(const Place& place) {
  const int n = gpu::DeviceCount();
  PADDLE_ENFORCE(n > 0, errors::PreconditionNotMet("no GPU is visible to this process: cannot use %s",
                                                   place.DebugString()));
  PADDLE_ENFORCE(place.GetDeviceId() >= 0 && place.GetDeviceId() < n,
                 errors::InvalidArgument("%s does not exist: %d GPU(s) visible", place.DebugString(), n));
  return new GPUContext(place);
}

// Registration with the core at load time.
const bool kRegistered = [] {
  RegisterAllocator(AllocationType::GPU, &TheAllocator());
  RegisterMemcpy(AllocationType::GPU, &GpuMemcpy);
  RegisterMemsetZero(AllocationType::GPU, &GpuMemsetZero);
  DeviceContextPool::Instance().RegisterFactory(AllocationType::GPU, &MakeGPUContext);
  return true;
}();
}  // namespace

GPUContext::GPUContext(const Place& place) : DeviceContext(place) {
  DeviceGuard guard(place.GetDeviceId());
  PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  PADDLE_ENFORCE_GPU_SUCCESS(
      cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, place.GetDeviceId()));
}

GPUContext::~GPUContext() {
  if (stream_) cudaStreamDestroy(stream_);
}

void GPUContext::Wait() const {
  PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(stream()));
}

int GPUContext::MakeCurrent() const {
  gpu::CheckGpuUsableAfterFork();  // before any CUDA call: a forked child gets its clear error
  int previous = -1;
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetDevice(&previous));
  const int id = GetPlace().GetDeviceId();
  if (previous != id) PADDLE_ENFORCE_GPU_SUCCESS(cudaSetDevice(id));
  return previous;
}

void GPUContext::RestoreCurrent(int previous) const {
  int current = -1;
  if (previous >= 0 && cudaGetDevice(&current) == cudaSuccess && current != previous) cudaSetDevice(previous);
}

namespace gpu {

// Asked once (fixed for the process): a forked child reuses its parent's answer instead of
// calling into CUDA, which does not survive the fork (the query initializes the driver).
int DeviceCount() {
  static const int count = [] {
    int n = 0;
    NoteCudaInitialized();
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

void Synchronize() {
  const int n = DeviceCount();
  for (int i = 0; i < n; ++i) ContextOf(GPUPlace(i)).Wait();
}

size_t CachedBytes() { return TheAllocator().cached(); }
void EmptyCache() { TheAllocator().EmptyCache(); }
MemoryStats GetMemoryStats(int device) {
  const BlockPoolStats s = TheAllocator().Stats(device);
  return MemoryStats{s.reserved, s.allocated, s.peak_reserved, s.peak_allocated};
}
void ResetPeakMemoryStats(int device) { TheAllocator().ResetPeaks(device); }

uintptr_t StreamHandle(int device) { return reinterpret_cast<uintptr_t>(ContextOf(GPUPlace(device)).stream()); }

void MakeVisibleTo(int device, uintptr_t consumer) {
  const GPUContext& ctx = ContextOf(GPUPlace(device));
  const cudaStream_t to = consumer == 1   ? cudaStreamLegacy
                          : consumer == 2 ? cudaStreamPerThread
                                          : reinterpret_cast<cudaStream_t>(consumer);
  if (to == ctx.stream()) return;
  DeviceGuard guard(device);
  cudaEvent_t done;
  PADDLE_ENFORCE_GPU_SUCCESS(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  PADDLE_ENFORCE_GPU_SUCCESS(cudaEventRecord(done, ctx.stream()));
  const cudaError_t e = cudaStreamWaitEvent(to, done, 0);
  cudaEventDestroy(done);  // released by the driver once it has completed
  PADDLE_ENFORCE_GPU_SUCCESS(e);
}

void WaitStream(int device) { ContextOf(GPUPlace(device)).Wait(); }

}  // namespace gpu
}  // namespace phi
