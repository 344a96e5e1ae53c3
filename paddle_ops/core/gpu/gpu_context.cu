// The CUDA runtime pieces: GPUContext, the caching device allocator, device copies, and
// their registration with the core (allocator, memcpy, memset and context factory for
// AllocationType::GPU) at load time.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "paddle_ops/core/gpu/block_pool.h"
#include "paddle_ops/core/gpu/gpu_context.h"
#include "paddle_ops/core/gpu/gpu_info.h"

namespace phi {

namespace {
// The calling thread's stream in place of ours (PushStream), and what it replaced.
struct PushedEntry {
  int device;
  cudaStream_t stream;  // null: none
};
thread_local PushedEntry t_pushed{-1, nullptr};
thread_local std::vector<PushedEntry> t_saved;

cudaStream_t StreamOfHandle(uintptr_t h) {  // 0 (torch's name of the legacy default stream) -> cudaStreamLegacy
  return h == 0 ? cudaStreamLegacy : reinterpret_cast<cudaStream_t>(h);
}

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

const GPUContext& ContextOf(const Place& place) {
  return static_cast<const GPUContext&>(*DeviceContextPool::Instance().Get(place));
}

// The caching allocator: per device, a BlockPool (block_pool.h) cuts tensors' blocks out of
// segments from cudaMalloc, with size classes, best fit, splitting and merging, and gives
// wholly free segments back before it asks for a new one when holding them would pass 1.5x
// the most ever in use, so the memory held stays near
// what is in use even when every shape differs. When cudaMalloc fails, the queued work is
// waited for, every free segment given back and the segment asked for once more before
// MemoryError.
//
// Streams. A block is allocated for the stream current on the calling thread: our own stream
// (tag 0), or the stream pushed in its place (PushStream; the torch integration runs on
// torch's current stream). Its segment belongs to that stream and, once freed, it is reused
// only by a later allocation for the same stream, so the reuse is ordered after every earlier
// use on that stream without an event (PyTorch's allocator does the same). A torch op's
// outputs and scratch are therefore safe to free and reuse on torch's stream, and our own
// stream never picks up a block torch's stream may still be reading. A block also used on
// another stream is recorded (RecordStream: a DLPack export to a consumer stream); when it is
// freed, its own stream waits for an event recorded then on each such stream before the block
// goes back to the pool. (Allocating a torch op's outputs from torch's allocator instead
// would need torch in this library, or a Python callback for every output and scratch buffer.)
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
    const uintptr_t tag = reinterpret_cast<uintptr_t>(gpu::StreamOverride(dev));  // 0: our stream
    NoteOwnStream(dev);
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      p = PoolOf(dev).Allocate(bytes, tag);
    }
    if (!p) {  // wait for every stream of the device (free blocks may be in use there), then retry
      {
        DeviceGuard guard(dev);
        cudaDeviceSynchronize();
        (void)cudaGetLastError();
      }
      std::lock_guard<std::mutex> lock(mu_);
      BlockPool& pool = PoolOf(dev);
      pool.ReleaseFreeSegments();
      p = pool.Allocate(bytes, tag);
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
    return std::make_shared<Allocation>(p, bytes, place, [this, dev](void* q) { Free(dev, q); });
  }

  // `stream`: a cudaStream_t (never null; cudaStreamLegacy for the legacy default stream).
  void RecordStream(int dev, const void* ptr, cudaStream_t stream, cudaStream_t own) {
    void* p = const_cast<void*>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    auto pool = pools_.find(dev);
    uintptr_t tag = 0;
    if (pool == pools_.end() || !pool->second->StreamOf(p, &tag)) return;  // not our block
    const cudaStream_t home = tag ? reinterpret_cast<cudaStream_t>(tag) : own;
    if (stream == home) return;
    std::vector<cudaStream_t>& uses = uses_[p];
    if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
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
  // Our own stream of `dev`, kept for the pool's SegmentMove (which runs under mu_, where the
  // context pool is not to be called). Read before the lock, once per device.
  static constexpr int kMaxDevices = 64;
  std::atomic<cudaStream_t> own_[kMaxDevices] = {};
  void NoteOwnStream(int dev) {
    if (dev < kMaxDevices && own_[dev].load(std::memory_order_acquire) == nullptr)
      own_[dev].store(ContextOf(GPUPlace(dev)).own_stream(), std::memory_order_release);
  }

  // A free segment moves from stream `from` to `to` (block_pool.h): later work on `to` waits
  // for an event recorded now on `from`, so it cannot overwrite what `from` still reads. Only
  // from streams that live as long as the process (ours, the legacy and the per-thread default
  // streams): a stream another library created may have been destroyed since.
  bool MoveSegment(int dev, uintptr_t from, uintptr_t to) {
    if (dev >= kMaxDevices) return false;
    const cudaStream_t own = own_[dev].load(std::memory_order_acquire);
    const cudaStream_t f = from ? reinterpret_cast<cudaStream_t>(from) : own;
    const cudaStream_t t = to ? reinterpret_cast<cudaStream_t>(to) : own;
    if (own == nullptr || !(f == own || f == cudaStreamLegacy || f == cudaStreamPerThread)) return false;
    DeviceGuard guard(dev);
    cudaEvent_t ev = nullptr;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventRecord(ev, f);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(t, ev, 0);
    if (ev) cudaEventDestroy(ev);  // released by the driver once it has completed
    if (e != cudaSuccess) (void)cudaGetLastError();
    return e == cudaSuccess;
  }

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
          },
          [this, dev](uintptr_t from, uintptr_t to) { return MoveSegment(dev, from, to); });
    }
    return *pool;
  }

  // The deleter of every block: the block's stream first waits for the other streams it was
  // recorded on (RecordStream), then the block goes back to the pool.
  void Free(int dev, void* q) {
    std::vector<cudaStream_t> uses;
    uintptr_t tag = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = uses_.empty() ? uses_.end() : uses_.find(q);
      if (it == uses_.end()) {
        PoolOf(dev).Free(q);
        return;
      }
      uses = std::move(it->second);
      uses_.erase(it);
      PoolOf(dev).StreamOf(q, &tag);
    }
    OrderAfter(dev, tag, uses);
    std::lock_guard<std::mutex> lock(mu_);
    PoolOf(dev).Free(q);
  }

  // Later work on the stream of `tag` waits for the work queued on `uses` so far. Cannot throw
  // (it runs in a deleter): a failed event falls back to waiting for the whole device.
  static void OrderAfter(int dev, uintptr_t tag, const std::vector<cudaStream_t>& uses) {
    DeviceGuard guard(dev);
    const cudaStream_t home = tag ? reinterpret_cast<cudaStream_t>(tag) : ContextOf(GPUPlace(dev)).own_stream();
    for (cudaStream_t s : uses) {
      cudaEvent_t ev = nullptr;
      cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
      if (e == cudaSuccess) e = cudaEventRecord(ev, s);
      if (e == cudaSuccess) e = cudaStreamWaitEvent(home, ev, 0);
      if (ev) cudaEventDestroy(ev);  // released by the driver once it has completed
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        cudaDeviceSynchronize();
        (void)cudaGetLastError();
        return;
      }
    }
  }

  std::mutex mu_;
  std::map<int, std::unique_ptr<BlockPool>> pools_;  // by device
  std::unordered_map<void*, std::vector<cudaStream_t>> uses_;  // RecordStream's, by block
};

CachingGPUAllocator& TheAllocator() {
  static CachingGPUAllocator* a = new CachingGPUAllocator;  // never destroyed: blocks may outlive exit
  return *a;
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

GPUContext::GPUContext(const Place& place) : DeviceContext(place), device_(place.GetDeviceId()) {
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
  for (int i = 0; i < n; ++i) {
    const GPUContext& ctx = ContextOf(GPUPlace(i));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(ctx.own_stream()));
    if (ctx.stream() != ctx.own_stream()) ctx.Wait();  // and the stream pushed in its place
  }
}

size_t CachedBytes() { return TheAllocator().cached(); }
void EmptyCache() { TheAllocator().EmptyCache(); }
MemoryStats GetMemoryStats(int device) {
  const BlockPoolStats s = TheAllocator().Stats(device);
  return MemoryStats{s.reserved, s.allocated, s.peak_reserved, s.peak_allocated, s.device_allocs, s.stream_moves};
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

// Our own stream even while another is pushed on this thread (the import was used on ours).
void WaitStream(int device) {
  PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(ContextOf(GPUPlace(device)).own_stream()));
}

cudaStream_t StreamOverride(int device) { return t_pushed.device == device ? t_pushed.stream : nullptr; }

void PushStream(int device, uintptr_t stream) {
  PADDLE_ENFORCE(device >= 0, errors::InvalidArgument("PushStream: device %d is not a GPU index", device));
  t_saved.push_back(t_pushed);
  t_pushed = PushedEntry{device, StreamOfHandle(stream)};
}

void PopStream() {
  PADDLE_ENFORCE(!t_saved.empty(),
                 errors::PreconditionNotMet("PopStream: no stream was pushed on this thread"));
  t_pushed = t_saved.back();
  t_saved.pop_back();
}

uintptr_t PushedStream(int device) { return reinterpret_cast<uintptr_t>(StreamOverride(device)); }

void RecordStream(int device, const void* ptr, uintptr_t stream) {
  const cudaStream_t own = ContextOf(GPUPlace(device)).own_stream();  // before the allocator's lock
  TheAllocator().RecordStream(device, ptr, StreamOfHandle(stream), own);
}

}  // namespace gpu
}  // namespace phi
