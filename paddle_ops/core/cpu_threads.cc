#include "paddle_ops/core/cpu_threads.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>

#include "paddle_ops/common/enforce.h"

namespace phi {

namespace {
std::atomic<int> g_threads{0};
std::atomic<bool> g_forked_child{false};
void MarkForkedChild() { g_forked_child.store(true, std::memory_order_relaxed); }
const int g_atfork_registered = pthread_atfork(nullptr, nullptr, &MarkForkedChild);
}  // namespace

int CpuMaxThreads() { return std::max(kCpuThreadsBound, omp_get_num_procs()); }

int CpuNumThreads() {
  if (g_forked_child.load(std::memory_order_relaxed)) return 1;
  const int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : std::min(omp_get_max_threads(), CpuMaxThreads());
}

void SetCpuNumThreads(int n) {
  PADDLE_ENFORCE(n <= CpuMaxThreads(),
                 errors::InvalidArgument("set_num_threads(): argument 'n' = %d is above the bound of %d threads (the "
                                         "larger of %d and the %d CPUs here)",
                                         n, CpuMaxThreads(), kCpuThreadsBound, omp_get_num_procs()));
  g_threads.store(n > 0 ? n : 0, std::memory_order_relaxed);
}

void CheckOmpNumThreads() {
  const int n = omp_get_max_threads();
  if (n <= CpuMaxThreads()) return;
  PADDLE_THROW(errors::InvalidArgument("OMP_NUM_THREADS asks for %d threads, above paddle_ops' bound of %d (the "
                                       "larger of %d and the %d CPUs here)",
                                       n, CpuMaxThreads(), kCpuThreadsBound, omp_get_num_procs()));
}

}  // namespace phi
