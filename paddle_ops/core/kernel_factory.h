// KernelKey, Kernel and KernelFactory: every kernel is registered under (op name, backend,
// layout, dtype) and looked up by the generated API shims.
//
// A phi kernel is a plain function template instantiation
//   void XKernel<T, Context>(const Context&, inputs..., attrs..., outputs*)
// The factory erases its type: it keeps the function pointer, a trampoline that casts the
// DeviceContext back to Context, and the typeid of the argument list, which Call<Args...>()
// checks so a shim and a kernel that disagree on the signature fail with an error, not UB.
#pragma once

#include <map>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "paddle_ops/common/data_type.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/core/dense_tensor.h"
#include "paddle_ops/core/device_context.h"

namespace phi {

enum class Backend { UNDEFINED = 0, CPU = 1, GPU = 2 };
std::string BackendToString(Backend b);  // "CPU", "GPU"
Backend TransToBackend(const Place& place);
Place DefaultPlace(Backend b, int device_id = 0);

class KernelKey {
 public:
  KernelKey() = default;
  KernelKey(Backend backend, DataLayout layout, DataType dtype)
      : backend_(backend), layout_(layout), dtype_(dtype) {}
  Backend backend() const { return backend_; }
  DataLayout layout() const { return layout_; }
  DataType dtype() const { return dtype_; }
  bool operator<(const KernelKey& o) const {
    return std::make_tuple(backend_, layout_, dtype_) < std::make_tuple(o.backend_, o.layout_, o.dtype_);
  }
  bool operator==(const KernelKey& o) const {
    return backend_ == o.backend_ && layout_ == o.layout_ && dtype_ == o.dtype_;
  }
  std::string ToString() const;  // "(CPU, float32)"

 private:
  Backend backend_ = Backend::UNDEFINED;
  DataLayout layout_ = DataLayout::ALL_LAYOUT;
  DataType dtype_ = DataType::UNDEFINED;
};

// Per-output settings a registration body may change (PD_REGISTER_KERNEL(...) { ... }).
struct TensorArgDef {
  DataType dtype = DataType::UNDEFINED;
  TensorArgDef& SetDataType(DataType t) {
    dtype = t;
    return *this;
  }
};

class Kernel {
 public:
  using RawFn = void (*)();
  Kernel() = default;
  Kernel(RawFn fn, RawFn invoker, std::type_index signature)
      : fn_(fn), invoker_(invoker), signature_(signature) {}

  // Args must be spelled exactly as in the kernel's parameter list (the generated shims do).
  template <typename... Args>
  void Call(const DeviceContext& ctx, Args... args) const {
    using Sig = void(Args...);
    PADDLE_ENFORCE(signature_ == std::type_index(typeid(Sig)),
                   errors::Fatal("kernel signature mismatch: the caller passes %s but the "
                                 "registered kernel takes %s",
                                 typeid(Sig).name(), signature_.name()));
    using Invoker = void (*)(RawFn, const DeviceContext&, Args...);
    struct CurrentDevice {  // the kernel's device is current while it runs
      const DeviceContext& ctx;
      int previous;
      ~CurrentDevice() { ctx.RestoreCurrent(previous); }
    } current{ctx, ctx.MakeCurrent()};
    reinterpret_cast<Invoker>(invoker_)(fn_, ctx, static_cast<Args>(args)...);
  }
  bool IsValid() const { return fn_ != nullptr; }
  TensorArgDef& OutputAt(size_t i) {
    if (outputs_.size() <= i) outputs_.resize(i + 1);
    return outputs_[i];
  }
  const std::vector<TensorArgDef>& outputs() const { return outputs_; }

 private:
  RawFn fn_ = nullptr;
  RawFn invoker_ = nullptr;
  std::type_index signature_ = std::type_index(typeid(void));
  std::vector<TensorArgDef> outputs_;
};

namespace detail {
template <typename Context, typename... Args>
void InvokeKernel(Kernel::RawFn fn, const DeviceContext& ctx, Args... args) {
  reinterpret_cast<void (*)(const Context&, Args...)>(fn)(static_cast<const Context&>(ctx),
                                                          static_cast<Args>(args)...);
}
}  // namespace detail

template <typename Context, typename... Args>
Kernel MakeKernel(void (*fn)(const Context&, Args...)) {
  return Kernel(reinterpret_cast<Kernel::RawFn>(fn),
                reinterpret_cast<Kernel::RawFn>(&detail::InvokeKernel<Context, Args...>),
                std::type_index(typeid(void(Args...))));
}

class KernelFactory {
 public:
  static KernelFactory& Instance();
  Kernel* Insert(const std::string& name, const KernelKey& key, Kernel kernel);
  // nullptr when absent.
  const Kernel* Find(const std::string& name, const KernelKey& key) const;
  // Throws NotFound naming the op, the backend and the dtype, and listing what is registered.
  const Kernel& SelectKernelOrThrow(const std::string& name, const KernelKey& key) const;
  bool HasKernel(const std::string& name) const { return kernels_.count(name) > 0; }
  std::vector<KernelKey> KeysOf(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, std::map<KernelKey, Kernel>> kernels_;
};

}  // namespace phi
