// Static graph mode, native side: what the generated static_ops.inc (tools/codegen/gen_static.py)
// is built on. Each op gets an InferMeta entry (its InferMeta run on meta-only tensors while a
// Program is built) and a Run entry (the generated C++ API without autograd, for the Executor).
#pragma once

#include <map>
#include <string>
#include <tuple>

#include "paddle_ops/python/arg_parse.h"

namespace paddle_ops {
namespace pybind {

struct StaticOp {
  // ins: per tensor input (dims, dtype) or None; attrs: the Python attributes in YAML order.
  py::tuple (*infer_meta)(const py::list& ins, const py::list& attrs, const phi::Place& place);
  // ins: per tensor input a Tensor or None. Returns one entry per output (Tensor or None).
  py::tuple (*run)(const py::list& ins, const py::list& attrs);
};
using StaticOpTable = std::map<std::string, StaticOp>;

// A data-less tensor with the dims and dtype of `meta` = (dims, dtype).
phi::DenseTensor MetaInput(py::handle meta, const char* op, const char* arg);
paddle::optional<phi::DenseTensor> MetaOptionalInput(py::handle meta, const char* op, const char* arg);
// (dims, dtype) of an InferMeta output, or None when InferMeta left it unset (absent optional).
py::object MetaOutput(const phi::DenseTensor& t);
// The kernel lookup of the API shim, without running anything: raises the same NotFound.
void CheckKernel(const char* op, const phi::Place& place, phi::DataType dtype);

inline py::tuple AsTuple(const Tensor& t) { return py::make_tuple(ToPyObject(t)); }
template <typename... Ts>
py::tuple AsTuple(const std::tuple<Ts...>& t) {
  return py::reinterpret_steal<py::tuple>(ToPyObject(t).release());
}

void BindStatic(py::module_& m);  // static_bind.cc: the `_C.static` submodule

}  // namespace pybind
}  // namespace paddle_ops
