#include "paddle_ops/api/api_base.h"

namespace paddle_ops {
namespace experimental {
namespace detail {

phi::Place CommonPlace(const char* op, std::initializer_list<NamedTensor> required,
                       std::initializer_list<NamedOptionalTensor> optional) {
  phi::Place place;
  const char* first = nullptr;
  auto visit = [&](const char* name, const Tensor& t) {
    const phi::Place& p = t.dense().place();
    PADDLE_ENFORCE(p.GetType() != phi::AllocationType::UNDEFINED,
                   phi::errors::InvalidArgument("%s(): input '%s' holds no data", op, name));
    if (!first) {
      first = name;
      place = p;
      return;
    }
    PADDLE_ENFORCE(p == place, phi::errors::InvalidArgument(
                                   "%s(): all inputs must be on one place, but '%s' is on %s and '%s' on %s",
                                   op, first, place.DebugString(), name, p.DebugString()));
  };
  for (const auto& [name, t] : required) {
    PADDLE_ENFORCE(t->defined(), phi::errors::InvalidArgument("%s(): input '%s' is None", op, name));
    visit(name, *t);
  }
  for (const auto& [name, t] : optional)
    if (*t && (*t)->defined()) visit(name, **t);
  return place;
}

paddle::optional<phi::DenseTensor> OptionalDense(const paddle::optional<Tensor>& t) {
  if (!t || !t->defined()) return paddle::none;
  return t->dense();
}

Tensor MakeOutput(const std::shared_ptr<phi::DenseTensor>& out, bool optional, const char* op,
                  const char* name) {
  if (!out->has_allocation()) {
    PADDLE_ENFORCE(optional, phi::errors::Fatal("%s(): the kernel did not write output '%s'", op, name));
    return Tensor();
  }
  return Tensor(out);
}

}  // namespace detail
}  // namespace experimental
}  // namespace paddle_ops
