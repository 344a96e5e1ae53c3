// Plain C++ view of the CUDA runtime for code compiled without nvcc (the Python module):
// device count, synchronization, memory statistics. Defined in gpu_context.cu.
#pragma once

#include <cstddef>

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

}  // namespace gpu
}  // namespace phi
