// DeviceContext: what a kernel runs with (place, allocator; on the GPU also a stream).
// CPUContext lives here; GPUContext (core/gpu_context.h) derives from the same base, so
// kernels are written against `const Context&` and registered per backend.
#pragma once

#include "paddle_ops/core/dense_tensor.h"

namespace phi {

class DeviceContext {
 public:
  explicit DeviceContext(Place place) : place_(place) {}
  virtual ~DeviceContext() = default;
  const Place& GetPlace() const { return place_; }
  virtual void Wait() const {}
  // Kernels launch on the calling thread's current device, so a kernel of gpu:1 must not run
  // while gpu:0 is current: Kernel::Call makes the context's device current for the call and
  // restores the caller's after it (as torch's device guard does). Nothing on the CPU.
  // MakeCurrent returns what RestoreCurrent takes back.
  virtual int MakeCurrent() const { return -1; }
  virtual void RestoreCurrent(int /*previous*/) const {}

  // Allocate `tensor` (its dims must be set) on this context's place for `dtype`.
  void* Alloc(DenseTensor* tensor, DataType dtype) const;
  template <typename T>
  T* Alloc(DenseTensor* tensor) const {
    return static_cast<T*>(Alloc(tensor, CppTypeToDataType<T>::Type()));
  }

 private:
  Place place_;
};

class CPUContext : public DeviceContext {
 public:
  CPUContext() : DeviceContext(CPUPlace()) {}
};

// One context per place, created on first use.
class DeviceContextPool {
 public:
  static DeviceContextPool& Instance();
  const DeviceContext* Get(const Place& place);
  // The GPU backend registers how to create its contexts.
  using Factory = DeviceContext* (*)(const Place& place);
  void RegisterFactory(AllocationType type, Factory factory);

 private:
  DeviceContextPool() = default;
};

}  // namespace phi
