#include "paddle_ops/python/arg_parse.h"

#include <cmath>
#include <limits>

namespace paddle_ops {
namespace pybind {

namespace {
[[noreturn]] void TypeError(const char* op, const char* arg, const char* expected, py::handle got) {
  throw py::type_error(std::string(op) + "(): argument '" + arg + "' must be " + expected + ", but got " +
                       std::string(py::str(py::type::handle_of(got).attr("__name__"))));
}
bool IsBool(py::handle o) {
  return py::isinstance<py::bool_>(o) ||
         std::string(py::str(py::type::handle_of(o).attr("__name__"))) == "bool_";
}
bool IsInteger(py::handle o) {
  if (IsBool(o) || py::isinstance<py::float_>(o)) return false;
  return py::isinstance<py::int_>(o) || py::hasattr(o, "__index__");
}
bool IsReal(py::handle o) { return !IsBool(o) && (IsInteger(o) || py::isinstance<py::float_>(o) ||
                                                  py::hasattr(o, "__float__")) &&
                                   !py::isinstance<Tensor>(o); }
}  // namespace

Tensor CastTensor(py::handle obj, const char* op, const char* arg) {
  if (!py::isinstance<Tensor>(obj)) TypeError(op, arg, "a Tensor", obj);
  return obj.cast<Tensor>();
}

paddle::optional<Tensor> CastOptionalTensor(py::handle obj, const char* op, const char* arg) {
  if (obj.is_none()) return paddle::none;
  return CastTensor(obj, op, arg);
}

int64_t CastInt64(py::handle obj, const char* op, const char* arg) {
  if (!IsInteger(obj)) TypeError(op, arg, "int", obj);
  return py::int_(py::reinterpret_borrow<py::object>(obj).attr("__index__")()).cast<int64_t>();
}

int CastInt(py::handle obj, const char* op, const char* arg) {
  const int64_t v = CastInt64(obj, op, arg);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    throw py::value_error(std::string(op) + "(): argument '" + arg + "' = " + std::to_string(v) +
                          " does not fit in a 32-bit int");
  }
  return static_cast<int>(v);
}

double CastDouble(py::handle obj, const char* op, const char* arg) {
  if (!IsReal(obj)) TypeError(op, arg, "float", obj);
  return py::float_(py::reinterpret_borrow<py::object>(obj)).cast<double>();
}
float CastFloat(py::handle obj, const char* op, const char* arg) {
  return static_cast<float>(CastDouble(obj, op, arg));
}

bool CastBool(py::handle obj, const char* op, const char* arg) {
  if (!IsBool(obj)) TypeError(op, arg, "bool", obj);
  return py::bool_(py::reinterpret_borrow<py::object>(obj)).cast<bool>();
}

std::string CastString(py::handle obj, const char* op, const char* arg) {
  if (!py::isinstance<py::str>(obj)) TypeError(op, arg, "str", obj);
  return obj.cast<std::string>();
}

phi::Scalar CastScalar(py::handle obj, const char* op, const char* arg) {
  if (IsBool(obj)) return phi::Scalar(CastBool(obj, op, arg));
  if (IsInteger(obj)) return phi::Scalar(CastInt64(obj, op, arg));
  if (IsReal(obj)) return phi::Scalar(CastDouble(obj, op, arg));
  TypeError(op, arg, "a number", obj);
}

std::vector<int64_t> CastInt64Vector(py::handle obj, const char* op, const char* arg) {
  std::vector<int64_t> v;
  if (IsInteger(obj)) return {CastInt64(obj, op, arg)};
  if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj)) {
    TypeError(op, arg, "a list or tuple of ints", obj);
  }
  for (py::handle item : obj) {
    if (!IsInteger(item)) TypeError(op, arg, "a list or tuple of ints (an element is not)", item);
    v.push_back(CastInt64(item, op, arg));
  }
  return v;
}

std::vector<int> CastIntVector(py::handle obj, const char* op, const char* arg) {
  std::vector<int> v;
  for (int64_t x : CastInt64Vector(obj, op, arg)) v.push_back(static_cast<int>(x));
  return v;
}

std::vector<float> CastFloatVector(py::handle obj, const char* op, const char* arg) {
  std::vector<float> v;
  if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj)) {
    TypeError(op, arg, "a list or tuple of floats", obj);
  }
  for (py::handle item : obj) v.push_back(CastFloat(item, op, arg));
  return v;
}

phi::IntArray CastIntArray(py::handle obj, const char* op, const char* arg) {
  return phi::IntArray(CastInt64Vector(obj, op, arg));
}

phi::DataType CastDataType(py::handle obj, const char* op, const char* arg) {
  if (py::isinstance<phi::DataType>(obj)) return obj.cast<phi::DataType>();
  if (py::isinstance<py::str>(obj)) {
    const phi::DataType t = phi::StringToDataType(obj.cast<std::string>());
    if (t == phi::DataType::UNDEFINED) {
      throw py::type_error(std::string(op) + "(): argument '" + arg + "': unknown dtype '" +
                           obj.cast<std::string>() + "'");
    }
    return t;
  }
  TypeError(op, arg, "a dtype (paddle_ops.float32, 'float32', ...)", obj);
}

py::object ToPyObject(const Tensor& t) {
  if (!t.defined()) return py::none();
  return py::cast(t);
}

}  // namespace pybind
}  // namespace paddle_ops
