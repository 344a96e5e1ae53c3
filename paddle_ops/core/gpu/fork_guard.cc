#include "paddle_ops/core/gpu/fork_guard.h"

#include <pthread.h>

#include <atomic>

#include "paddle_ops/common/enforce.h"

namespace phi {
namespace gpu {

namespace {
std::atomic<bool> g_cuda_initialized{false};  // in this process or an ancestor before the fork
std::atomic<bool> g_forked_after_cuda{false};  // this process is such a fork's child

void OnForkChild() {
  if (g_cuda_initialized.load(std::memory_order_relaxed)) g_forked_after_cuda.store(true, std::memory_order_relaxed);
}
const int g_atfork_registered = pthread_atfork(nullptr, nullptr, &OnForkChild);
}  // namespace

void NoteCudaInitialized() { g_cuda_initialized.store(true, std::memory_order_relaxed); }

void CheckGpuUsableAfterFork() {
  if (g_forked_after_cuda.load(std::memory_order_relaxed)) {
    PADDLE_THROW(errors::PreconditionNotMet(
        "cannot use the GPU in a forked child process: CUDA was initialized in the parent process, and "
        "CUDA does not survive fork(). To use the GPU in child processes, start them with the 'spawn' "
        "(or 'forkserver') start method of multiprocessing, e.g. multiprocessing.get_context('spawn')"));
  }
  if (!g_cuda_initialized.load(std::memory_order_relaxed)) NoteCudaInitialized();
}

}  // namespace gpu
}  // namespace phi
