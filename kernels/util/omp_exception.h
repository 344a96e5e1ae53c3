// OmpExceptionKeeper: no C++ exception leaves an OpenMP parallel region. An exception that
// escapes a region's structured block (std::bad_alloc from a per-thread buffer, an enforce in a
// worker) calls std::terminate and kills the Python process; so every region whose body can
// throw runs that body through Run(), which keeps the first exception thrown by any thread and
// makes the remaining work items of every thread return at once, and the code after the region
// calls Rethrow() (a MemoryError / ValueError ... in Python, as if the work had run serially).
//
//   OmpExceptionKeeper keep;
//   #pragma omp parallel for ...
//   for (int64_t t = 0; t < tasks; ++t) keep.Run([&] { body(t); });
//   keep.Rethrow();
#pragma once

#include <atomic>
#include <exception>
#include <mutex>
#include <utility>

namespace phi {
namespace funcs {

class OmpExceptionKeeper {
 public:
  // f() on this thread, unless some thread has already failed; an exception f throws is kept
  // (the first one) and does not propagate.
  template <typename F>
  void Run(F&& f) noexcept {
    if (failed()) return;
    try {
      std::forward<F>(f)();
    } catch (...) {
      Keep();
    }
  }

  bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }

  // After the region: throws the kept exception, if any.
  void Rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void Keep() noexcept {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    failed_.store(true, std::memory_order_relaxed);
  }

  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
};

}  // namespace funcs
}  // namespace phi
