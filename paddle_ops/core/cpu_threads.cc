#include "paddle_ops/core/cpu_threads.h"

#include <omp.h>
#include <pthread.h>

#include <atomic>

namespace phi {

namespace {
std::atomic<int> g_threads{0};
std::atomic<bool> g_forked_child{false};
void MarkForkedChild() { g_forked_child.store(true, std::memory_order_relaxed); }
const int g_atfork_registered = pthread_atfork(nullptr, nullptr, &MarkForkedChild);
}  // namespace

int CpuNumThreads() {
  if (g_forked_child.load(std::memory_order_relaxed)) return 1;
  const int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}
void SetCpuNumThreads(int n) { g_threads.store(n > 0 ? n : 0, std::memory_order_relaxed); }

}  // namespace phi
