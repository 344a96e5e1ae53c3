// Plain C++ view of the CUDA runtime for code compiled without nvcc (the Python module):
// device count, synchronization, memory statistics. Defined in gpu_context.cu.
#pragma once

#include <cstddef>

namespace phi {
namespace gpu {

int DeviceCount();  // 0 when no GPU (or no driver) is present
void Synchronize();  // waits for every GPU context's stream
size_t CachedBytes();  // held by the caching allocator, free for reuse
void EmptyCache();  // returns cached blocks to the driver

}  // namespace gpu
}  // namespace phi
