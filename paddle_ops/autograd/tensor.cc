#include "paddle_ops/autograd/tensor.h"

#include "paddle_ops/common/enforce.h"

namespace paddle_ops {

const phi::DenseTensor& Tensor::dense() const {
  PADDLE_ENFORCE(impl_ != nullptr, phi::errors::PreconditionNotMet("the tensor is not defined (None)"));
  return *impl_;
}

}  // namespace paddle_ops
