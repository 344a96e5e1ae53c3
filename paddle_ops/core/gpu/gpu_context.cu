// The CUDA runtime pieces: GPUContext, the device allocator (stream-ordered memory pools), device copies, and
// their registration with the core (allocator, memcpy, memset and context factory for
// AllocationType::GPU) at load time.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

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

// The device allocator: per device, a private CUDA memory pool (cudaMemPoolCreate; not the
// device's default pool, which torch's cudaMallocAsync backend uses, so thresholds, trims and
// statistics do not mix), allocated from and freed to stream-ordered (cudaMallocFromPoolAsync /
// cudaFreeAsync). Its release threshold is the largest value, so freed memory stays in the pool
// for reuse (empty_cache trims it). When an allocation fails, the device is synchronized, the
// pool trimmed and the allocation tried once more before MemoryError.
//
// Streams. A block is allocated on the stream current on the calling thread: our own stream,
// or the stream pushed in its place (PushStream; the torch integration runs on torch's current
// stream), and freed on that same stream, so the pool reuses it for later work of that stream
// in stream order without an event. The pool's internal dependencies are off
// (cudaMemPoolReuseAllowInternalDependencies = 0): an allocation on one stream never makes it
// wait for another stream's frees, so our stream and torch's do not wait on each other; memory
// freed on another stream is reused once that free has completed (opportunistic reuse) or
// after an event dependency. A block also used on another stream is recorded (RecordStream:
// a DLPack export to a consumer stream); when it is freed, its own stream first waits for an
// event recorded then on each such stream. Inside a CUDA graph capture of the stream, the
// allocation and the free become the graph's memory nodes (owned by the graph).
class PoolGPUAllocator : public Allocator {
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
    cudaStream_t stream = gpu::StreamOverride(dev);
    if (stream == nullptr) stream = ContextOf(place).own_stream();
    const cudaMemPool_t pool = PoolOf(dev);
    const size_t asked = bytes ? bytes : 1;  // a zero-size tensor still gets a distinct pointer
    void* p = nullptr;
    {
      DeviceGuard guard(dev);
      cudaError_t e = cudaMallocFromPoolAsync(&p, asked, pool, stream);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        p = nullptr;
        // Memory the pool keeps may be free only once queued frees complete: wait for the
        // device, give the pool's unused memory back, and try once more. Not while the stream
        // is captured into a graph (a synchronization would end the capture).
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture == cudaStreamCaptureStatusNone) {
          cudaDeviceSynchronize();
          cudaMemPoolTrimTo(pool, 0);
          (void)cudaGetLastError();
          retries_.fetch_add(1, std::memory_order_relaxed);
          e = cudaMallocFromPoolAsync(&p, asked, pool, stream);
          if (e != cudaSuccess) {
            (void)cudaGetLastError();
            p = nullptr;
          }
        } else {
          (void)cudaGetLastError();
        }
      }
    }
    if (!p) {
      size_t free_b = 0, total_b = 0;
      {
        DeviceGuard guard(dev);
        cudaMemGetInfo(&free_b, &total_b);
        (void)cudaGetLastError();
      }
      PADDLE_THROW(errors::ResourceExhausted(
          "out of GPU memory on %s: tried to allocate %d bytes (%.2f GiB); %.2f GiB free of %.2f GiB, %.2f GiB "
          "held by this process's allocator",
          place.DebugString(), bytes, bytes / 1073741824.0, free_b / 1073741824.0, total_b / 1073741824.0,
          Stats(dev).reserved / 1073741824.0));
    }
    allocations_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mu_);
      live_[p] = stream;
    }
    return std::make_shared<Allocation>(p, bytes, place, [this, dev](void* q) { Free(dev, q); });
  }

  // `stream`: a cudaStream_t (never null; cudaStreamLegacy for the legacy default stream).
  void RecordStream(const void* ptr, cudaStream_t stream) {
    void* p = const_cast<void*>(ptr);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(p);
    if (it == live_.end() || it->second == stream) return;  // not our block, or its own stream
    std::vector<cudaStream_t>& uses = uses_[p];
    if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
  }

  // Waits for every device with a pool, then gives the pools' unused memory back.
  void EmptyCache() {
    for (const auto& [dev, pool] : Pools()) {
      DeviceGuard guard(dev);
      cudaDeviceSynchronize();
      cudaMemPoolTrimTo(pool, 0);
      (void)cudaGetLastError();
    }
  }
  size_t cached() {
    size_t c = 0;
    for (const auto& [dev, pool] : Pools()) {
      const gpu::MemoryStats s = Stats(dev);
      c += s.reserved - std::min(s.reserved, s.allocated);
    }
    return c;
  }
  gpu::MemoryStats Stats(int dev) {
    gpu::MemoryStats s{};
    const cudaMemPool_t pool = FindPool(dev);
    if (pool == nullptr) return s;
    s.reserved = Attribute(pool, cudaMemPoolAttrReservedMemCurrent);
    s.allocated = Attribute(pool, cudaMemPoolAttrUsedMemCurrent);
    s.peak_reserved = Attribute(pool, cudaMemPoolAttrReservedMemHigh);
    s.peak_allocated = Attribute(pool, cudaMemPoolAttrUsedMemHigh);
    s.allocations = allocations_.load(std::memory_order_relaxed);
    s.oom_retries = retries_.load(std::memory_order_relaxed);
    return s;
  }
  // The high-water marks start again from the current values (the pool's own rule for a 0).
  void ResetPeaks(int dev) {
    const cudaMemPool_t pool = FindPool(dev);
    if (pool == nullptr) return;
    uint64_t zero = 0;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero);
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero);
    (void)cudaGetLastError();
  }

 private:
  static size_t Attribute(cudaMemPool_t pool, cudaMemPoolAttr attr) {
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, attr, &v) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return static_cast<size_t>(v);
  }

  std::vector<std::pair<int, cudaMemPool_t>> Pools() {
    std::lock_guard<std::mutex> lock(mu_);
    return {pools_.begin(), pools_.end()};
  }
  cudaMemPool_t FindPool(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(dev);
    return it == pools_.end() ? nullptr : it->second;
  }

  // The pool of `dev`, made on first use: device memory of `dev`, kept (release threshold the
  // largest value), no internal dependencies between streams.
  cudaMemPool_t PoolOf(int dev) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(dev);
    if (it != pools_.end()) return it->second;
    DeviceGuard guard(dev);
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool = nullptr;
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemPoolCreate(&pool, &props));
    uint64_t keep = ~uint64_t{0};
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    int off = 0, on = 1;
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &off));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &on));
    PADDLE_ENFORCE_GPU_SUCCESS(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &on));
    pools_.emplace(dev, pool);
    return pool;
  }

  // The deleter of every block: its stream first waits for the other streams it was recorded
  // on (RecordStream), then the block is freed on its stream. Cannot throw (it runs in a
  // deleter).
  void Free(int dev, void* q) {
    std::vector<cudaStream_t> uses;
    cudaStream_t home = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto live = live_.find(q);
      if (live == live_.end()) return;
      home = live->second;
      live_.erase(live);
      auto it = uses_.empty() ? uses_.end() : uses_.find(q);
      if (it != uses_.end()) {
        uses = std::move(it->second);
        uses_.erase(it);
      }
    }
    DeviceGuard guard(dev);
    if (!uses.empty()) OrderAfter(home, uses);
    if (cudaFreeAsync(q, home) != cudaSuccess) (void)cudaGetLastError();
  }

  // Later work on `home` waits for the work queued on `uses` so far; a failed event falls
  // back to waiting for the whole device.
  static void OrderAfter(cudaStream_t home, const std::vector<cudaStream_t>& uses) {
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
  std::map<int, cudaMemPool_t> pools_;                          // by device
  std::unordered_map<void*, cudaStream_t> live_;                // every block handed out: its stream
  std::unordered_map<void*, std::vector<cudaStream_t>> uses_;  // RecordStream's, by block
  std::atomic<size_t> allocations_{0};
  std::atomic<size_t> retries_{0};
};

PoolGPUAllocator& TheAllocator() {
  static PoolGPUAllocator* a = new PoolGPUAllocator;  // never destroyed: blocks may outlive exit
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
MemoryStats GetMemoryStats(int device) { return TheAllocator().Stats(device); }
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
  (void)device;  // a block's pointer is unique across devices
  TheAllocator().RecordStream(ptr, StreamOfHandle(stream));
}

}  // namespace gpu
}  // namespace phi
