// Plain C++ view of the CUDA runtime for code compiled without nvcc (the Python module):
// device count, synchronization, memory statistics. Defined in gpu_context.cu.
#pragma once

#include <cstddef>
#include <cstdint>

namespace phi {
namespace gpu {

int DeviceCount();  // 0 when no GPU (or no driver) is present
void Synchronize();  // waits for every GPU context's stream
size_t CachedBytes();  // held by the allocator's pools, free for reuse
void EmptyCache();  // waits for the devices, then gives the pools' unused memory back

// The allocator's memory pool of one device (gpu_context.cu), from the pool's attributes: bytes
// reserved from the driver, in use by blocks, and the most of each since start or
// ResetPeakMemoryStats; then the counts of allocations and of out-of-memory retries (a
// synchronize and trim before trying once more), over all devices.
struct MemoryStats {
  size_t reserved, allocated, peak_reserved, peak_allocated;
  size_t allocations, oom_retries;
};
MemoryStats GetMemoryStats(int device);
void ResetPeakMemoryStats(int device);

// DLPack's stream exchange (python/dlpack.cc). StreamHandle: our stream on `device` as the
// integer a producer is given. MakeVisibleTo: work queued so far on our stream of `device`
// happens before anything later queued on `consumer` (1 = the legacy default stream,
// 2 = the per-thread default stream, else a cudaStream_t), through an event, without a sync.
uintptr_t StreamHandle(int device);
void MakeVisibleTo(int device, uintptr_t consumer);
// Waits for our stream of `device` (an imported buffer is handed back only after it).
void WaitStream(int device);

// A stream in place of ours, for the calling thread only (the torch integration: our kernels
// run on torch's current stream for the length of a call, so nothing crosses streams). While
// pushed, every kernel, copy and allocation of `device` on this thread uses `stream` (a
// cudaStream_t as an integer; 0 is the legacy default stream, as torch names it); other
// threads and other devices keep our stream. PopStream restores what was in place before the
// matching PushStream (calls nest); it throws when nothing was pushed. ScopedStream pairs them.
void PushStream(int device, uintptr_t stream);
void PopStream();
// The stream in place of ours on `device` for this thread (never 0: the legacy default stream
// reads 1), or 0 when none.
uintptr_t PushedStream(int device);
class ScopedStream {
 public:
  ScopedStream(int device, uintptr_t stream) { PushStream(device, stream); }
  ~ScopedStream() { PopStream(); }
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;
};

// The block of our caching allocator that starts at `ptr` (an Allocation's ptr()) is used on
// `stream` (DLPack's numbering: 1 the legacy default stream, 2 the per-thread default stream,
// else a cudaStream_t) besides the stream it was allocated for: when it is freed, that stream
// waits (an event, no host wait) for the work queued on `stream` by then, before the block can
// be reused (PyTorch's record_stream). No-op for memory that is not ours, or on its own stream.
void RecordStream(int device, const void* ptr, uintptr_t stream);

}  // namespace gpu
}  // namespace phi
