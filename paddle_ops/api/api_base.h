// Helpers the generated API shims (build/generated/paddle_ops_gen/api.cc) call.
#pragma once

#include <initializer_list>
#include <memory>
#include <utility>

#include "paddle_ops/autograd/tensor.h"

namespace paddle_ops {
namespace experimental {
namespace detail {

using NamedTensor = std::pair<const char*, const Tensor*>;
using NamedOptionalTensor = std::pair<const char*, const paddle::optional<Tensor>*>;

// The place the op runs on: that of its inputs, which must all be defined (required ones)
// and on one place; otherwise InvalidArgument naming the op and the inputs.
phi::Place CommonPlace(const char* op, std::initializer_list<NamedTensor> required,
                       std::initializer_list<NamedOptionalTensor> optional);

paddle::optional<phi::DenseTensor> OptionalDense(const paddle::optional<Tensor>& t);

// Wraps a kernel's output. An optional output the kernel left unallocated becomes an
// undefined Tensor (None in Python); a required one is an internal error.
Tensor MakeOutput(const std::shared_ptr<phi::DenseTensor>& out, bool optional, const char* op,
                  const char* name);

}  // namespace detail
}  // namespace experimental
}  // namespace paddle_ops
