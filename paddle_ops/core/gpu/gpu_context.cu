// The CUDA runtime pieces: GPUContext, the caching device allocator, device copies, and
// their registration with the core (allocator, memcpy, memset and context factory for
// AllocationType::GPU) at load time.
#include <map>
#include <mutex>
#include <vector>

#include "paddle_ops/core/free_blocks.h"
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

// A caching allocator: freed blocks go back to a per-device free list keyed by size
// (rounded up to 512 bytes) and are reused by later allocations of the same rounded size,
// so steady-state loops never call cudaMalloc. On out-of-memory the cache is released and
// the allocation retried once before MemoryError. Reuse is safe with one stream per device:
// work on the stream is ordered, as with PyTorch's allocator.
class CachingGPUAllocator : public Allocator {
 public:
  std::shared_ptr<Allocation> Allocate(size_t bytes, const Place& place) override {
    gpu::CheckGpuUsableAfterFork();
    const size_t rounded = bytes == 0 ? 512 : (bytes + 511) / 512 * 512;
    const int dev = place.GetDeviceId();
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      p = free_[dev].Take(rounded);
      if (p) cached_ -= rounded;
    }
    if (!p) {
      DeviceGuard guard(dev);
      cudaError_t e = cudaMalloc(&p, rounded);
      if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        gpu::Synchronize();
        EmptyCache();
        e = cudaMalloc(&p, rounded);
      }
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        PADDLE_THROW(errors::ResourceExhausted(
            "out of GPU memory on %s: tried to allocate %d bytes (%.2f GiB); %.2f GiB free of %.2f GiB",
            place.DebugString(), bytes, bytes / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0));
      }
    }
    return std::make_shared<Allocation>(p, bytes, place, [this, dev, rounded](void* q) {
      std::lock_guard<std::mutex> lock(mu_);
      free_[dev].Put(q, rounded);
      cached_ += rounded;
    });
  }

  void EmptyCache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [dev, pool] : free_) {
      DeviceGuard guard(dev);
      pool.Clear([](void* q) { cudaFree(q); });
    }
    cached_ = 0;
  }
  size_t cached() const { return cached_; }

 private:
  std::mutex mu_;
  std::map<int, FreeBlocks> free_;  // by device
  size_t cached_ = 0;
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

}  // namespace gpu
}  // namespace phi
