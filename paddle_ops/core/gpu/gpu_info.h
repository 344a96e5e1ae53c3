// Plain C++ view of the CUDA runtime for code compiled without nvcc (the Python module):
// device count, synchronization, memory statistics. Defined in gpu_context.cu.
#pragma once

#include <cstddef>
#include <cstdint>

namespace phi {
namespace gpu {

int DeviceCount();  // 0 when no GPU (or no driver) is present
void Synchronize();  // waits for every GPU context's stream
size_t CachedBytes();  // held by the caching allocator, free for reuse
void EmptyCache();  // returns the wholly free segments to the driver

// The caching allocator's bytes on one device (block_pool.h): held from the driver, in
// tensors' blocks, and the most of each since start or ResetPeakMemoryStats.
struct MemoryStats {
  size_t reserved, allocated, peak_reserved, peak_allocated;
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

}  // namespace gpu
}  // namespace phi
