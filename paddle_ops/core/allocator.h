// Allocation and allocators. An Allocation owns a block of memory on one Place and frees it
// when the last DenseTensor sharing it goes away. Each AllocationType has one Allocator;
// the GPU backend registers its own at start-up (RegisterAllocator), CPU is built in.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "paddle_ops/common/place.h"

namespace phi {

class Allocation {
 public:
  using Deleter = std::function<void(void*)>;
  Allocation(void* ptr, size_t size, Place place, Deleter deleter)
      : ptr_(ptr), size_(size), place_(place), deleter_(std::move(deleter)) {}
  ~Allocation() {
    if (deleter_ && ptr_) deleter_(ptr_);
  }
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  void* ptr() const { return ptr_; }
  size_t size() const { return size_; }
  const Place& place() const { return place_; }

 private:
  void* ptr_;
  size_t size_;
  Place place_;
  Deleter deleter_;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Throws ResourceExhausted (Python MemoryError) naming the size when memory runs out.
  virtual std::shared_ptr<Allocation> Allocate(size_t bytes, const Place& place) = 0;
};

// The allocator for a place's type; throws PreconditionNotMet when none is registered
// (e.g. a GPU place in a build without CUDA).
Allocator* GetAllocator(const Place& place);
void RegisterAllocator(AllocationType type, Allocator* allocator);

// The CPU allocator's cache of large freed blocks (core.cc): bytes held, and release them.
size_t CpuCachedBytes();
size_t CpuCacheLimit();
void CpuEmptyCache();

// Copies bytes between places (CPU<->CPU here; the GPU backend registers its copier).
using MemcpyFn = void (*)(void* dst, const Place& dst_place, const void* src,
                          const Place& src_place, size_t bytes);
void RegisterMemcpy(AllocationType type, MemcpyFn fn);
void Memcpy(void* dst, const Place& dst_place, const void* src, const Place& src_place,
            size_t bytes);
using MemsetZeroFn = void (*)(void* dst, const Place& place, size_t bytes);
void RegisterMemsetZero(AllocationType type, MemsetZeroFn fn);
void MemsetZero(void* dst, const Place& place, size_t bytes);

}  // namespace phi
