// Python -> C++ argument conversion for the generated _C_ops functions. Each Cast* names
// the op and the argument in its TypeError, so a wrong argument type is reported as
// "cumsum(): argument 'axis' must be int, but got float".
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <vector>

#include "paddle_ops/autograd/tensor.h"
#include "paddle_ops/common/scalar.h"

namespace py = pybind11;

namespace paddle_ops {
namespace pybind {

Tensor CastTensor(py::handle obj, const char* op, const char* arg);
paddle::optional<Tensor> CastOptionalTensor(py::handle obj, const char* op, const char* arg);
int CastInt(py::handle obj, const char* op, const char* arg);
int64_t CastInt64(py::handle obj, const char* op, const char* arg);
float CastFloat(py::handle obj, const char* op, const char* arg);
double CastDouble(py::handle obj, const char* op, const char* arg);
bool CastBool(py::handle obj, const char* op, const char* arg);
std::string CastString(py::handle obj, const char* op, const char* arg);
phi::Scalar CastScalar(py::handle obj, const char* op, const char* arg);
phi::IntArray CastIntArray(py::handle obj, const char* op, const char* arg);
std::vector<int> CastIntVector(py::handle obj, const char* op, const char* arg);
std::vector<int64_t> CastInt64Vector(py::handle obj, const char* op, const char* arg);
std::vector<float> CastFloatVector(py::handle obj, const char* op, const char* arg);
phi::DataType CastDataType(py::handle obj, const char* op, const char* arg);

py::object ToPyObject(const Tensor& t);
template <typename... Ts>
py::object ToPyObject(const std::tuple<Ts...>& t) {
  py::tuple out(sizeof...(Ts));
  size_t i = 0;
  std::apply([&](const auto&... v) { ((out[i++] = ToPyObject(v)), ...); }, t);
  return std::move(out);
}

void BindGeneratedOps(py::module_& m);  // generated: pybind_ops.cc

}  // namespace pybind
}  // namespace paddle_ops
