// CUDA does not survive fork(): a child of a process that initialized CUDA cannot use the GPU
// (its calls fail or hang). The guard turns that into a clear RuntimeError in the child, as
// torch gives, instead of a CUDA error code. Plain C++ (no CUDA headers): a pthread_atfork
// handler registered when the library loads, and two atomic flags.
#pragma once

namespace phi {
namespace gpu {

// Records that this process initialized CUDA (its forked children will refuse the GPU).
void NoteCudaInitialized();

// Called where the GPU is used (the allocator, a context's stream): in a forked child of a
// process that initialized CUDA it throws PreconditionNotMet (RuntimeError) saying so and
// naming the 'spawn' start method; otherwise it notes that CUDA is initialized here.
void CheckGpuUsableAfterFork();

}  // namespace gpu
}  // namespace phi
