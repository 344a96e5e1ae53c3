// PD_REGISTER_KERNEL(kernel_name, Backend, ALL_LAYOUT, phi::XKernel, dtypes...) { body }
// registers XKernel<T, BackendContext> for each listed T, as phi's macro does. The body
// that follows may adjust the kernel (`kernel->OutputAt(1).SetDataType(...)`).
#pragma once

#include "paddle_ops/core/kernel_factory.h"

namespace phi {

template <Backend B>
struct BackendContextOf;
template <>
struct BackendContextOf<Backend::CPU> {
  using type = CPUContext;
};
// BackendContextOf<Backend::GPU> is defined by core/gpu_context.h.

namespace detail {
template <typename Registrar, typename... Ts>
int RegisterForTypes() {
  (Registrar::template Register<Ts>(), ...);
  return 0;
}
}  // namespace detail
}  // namespace phi

#define PD_REGISTER_KERNEL(kernel_name, backend, layout, meta_kernel_fn, ...)                  \
  static void PD_CONCAT(__pd_kernel_args_def_##kernel_name##_, backend)(::phi::Kernel * kernel); \
  namespace {                                                                                  \
  struct PD_CONCAT(__PdRegistrar_##kernel_name##_, backend) {                                  \
    template <typename T>                                                                      \
    static void Register() {                                                                   \
      using Ctx = typename ::phi::BackendContextOf<::phi::Backend::backend>::type;             \
      ::phi::Kernel* k = ::phi::KernelFactory::Instance().Insert(                              \
          #kernel_name,                                                                        \
          ::phi::KernelKey(::phi::Backend::backend, ::phi::DataLayout::layout,                 \
                           ::phi::CppTypeToDataType<T>::Type()),                               \
          ::phi::MakeKernel<Ctx>(&meta_kernel_fn<T, Ctx>));                                    \
      PD_CONCAT(__pd_kernel_args_def_##kernel_name##_, backend)(k);                            \
    }                                                                                          \
  };                                                                                           \
  [[maybe_unused]] const int PD_CONCAT(__pd_registered_##kernel_name##_, backend) =            \
      ::phi::detail::RegisterForTypes<PD_CONCAT(__PdRegistrar_##kernel_name##_, backend),      \
                                      __VA_ARGS__>();                                          \
  }                                                                                            \
  static void PD_CONCAT(__pd_kernel_args_def_##kernel_name##_, backend)(                       \
      [[maybe_unused]] ::phi::Kernel * kernel)
