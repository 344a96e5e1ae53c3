// DLPack exchange for the Python module (dlpack.cc): Tensor.__dlpack__, __dlpack_device__,
// data_ptr, and the capsule import behind paddle_ops.from_dlpack.
#pragma once

#include <pybind11/pybind11.h>

#include "paddle_ops/autograd/tensor.h"

namespace paddle_ops {
namespace pybind {

// A new tensor on `place` holding a copy of `src` (module.cc).
Tensor CopyDenseTo(const phi::DenseTensor& src, const phi::Place& place);

// Adds the DLPack methods to the Tensor class and _C._from_dlpack_capsule /
// _C._dlpack_consumer_stream to the module.
void BindDlpack(pybind11::module_& m, pybind11::class_<Tensor>& tensor);

}  // namespace pybind
}  // namespace paddle_ops
