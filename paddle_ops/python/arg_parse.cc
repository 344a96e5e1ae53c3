#include "paddle_ops/python/arg_parse.h"

#include <cmath>
#include <limits>

namespace paddle_ops {
namespace pybind {

namespace {
// The type of `o` as a user knows it: "int", "str", "numpy.float32", "Tensor".
std::string TypeName(py::handle o) {
  py::handle t = py::type::handle_of(o);
  std::string name = py::str(t.attr("__name__"));
  std::string mod = py::hasattr(t, "__module__") ? std::string(py::str(t.attr("__module__"))) : "";
  return mod == "numpy" ? "numpy." + name : name;
}
[[noreturn]] void TypeError(const char* op, const char* arg, const char* expected, py::handle got) {
  throw py::type_error(std::string(op) + "(): argument '" + arg + "' must be " + expected + ", but got " +
                       TypeName(got));
}
[[noreturn]] void ValueError(const char* op, const char* arg, const std::string& what) {
  throw py::value_error(std::string(op) + "(): argument '" + arg + "' " + what);
}
// `o` is an instance of numpy.<type> (false when NumPy was never imported).
bool IsNumpy(py::handle o, const char* type) {
  py::handle numpy = PyImport_GetModule(py::str("numpy").ptr());
  if (!numpy) {
    PyErr_Clear();
    return false;
  }
  const bool is = PyObject_IsInstance(o.ptr(), py::getattr(numpy, type).ptr()) == 1;
  numpy.dec_ref();
  return is;
}
// bool and numpy.bool_ (never an int: True is not taken for 1, nor 1 for True).
bool IsBool(py::handle o) {
  if (PyBool_Check(o.ptr())) return true;
  if (PyLong_CheckExact(o.ptr()) || PyFloat_CheckExact(o.ptr())) return false;  // the common case, fast
  return IsNumpy(o, "bool_");
}
// int and NumPy's integer scalars (anything with __index__ that is not a bool).
bool IsInteger(py::handle o) {
  if (IsBool(o) || py::isinstance<py::float_>(o) || py::isinstance<Tensor>(o)) return false;
  return py::isinstance<py::int_>(o) || py::hasattr(o, "__index__");
}
// int, float, NumPy's integer and floating scalars (anything with __float__ but a bool or a
// Tensor).
bool IsReal(py::handle o) {
  if (IsBool(o) || py::isinstance<Tensor>(o)) return false;
  return IsInteger(o) || py::isinstance<py::float_>(o) || py::hasattr(o, "__float__");
}
}  // namespace

Tensor CastTensor(py::handle obj, const char* op, const char* arg) {
  if (!py::isinstance<Tensor>(obj)) TypeError(op, arg, "a Tensor", obj);
  Tensor t = obj.cast<Tensor>();
  // A paddle.static Variable (a Python subclass of Tensor with no data) outside static mode.
  if (!t.defined() && !py::type::handle_of(obj).is(py::type::of<Tensor>())) {
    throw py::type_error(std::string(op) + "(): argument '" + arg + "' is a static-graph Variable ('" +
                         std::string(py::str(py::getattr(obj, "name", py::str("?")))) +
                         "'), which holds no data outside static mode: use it between paddle.enable_static() and "
                         "paddle.disable_static(), or run its Program with Executor.run and pass the result");
  }
  return t;
}

paddle::optional<Tensor> CastOptionalTensor(py::handle obj, const char* op, const char* arg) {
  if (obj.is_none()) return paddle::none;
  return CastTensor(obj, op, arg);
}

int64_t CastInt64(py::handle obj, const char* op, const char* arg) {
  if (!IsInteger(obj)) TypeError(op, arg, "int", obj);
  py::object i = py::reinterpret_borrow<py::object>(obj).attr("__index__")();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow != 0) ValueError(op, arg, "= " + std::string(py::str(i)) + " does not fit in a 64-bit int");
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(v);
}

int CastInt(py::handle obj, const char* op, const char* arg) {
  const int64_t v = CastInt64(obj, op, arg);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    ValueError(op, arg, "= " + std::to_string(v) + " does not fit in a 32-bit int");
  }
  return static_cast<int>(v);
}

double CastDouble(py::handle obj, const char* op, const char* arg) {
  if (!IsReal(obj)) TypeError(op, arg, "float", obj);
  const double v = PyFloat_AsDouble(obj.ptr());  // an int too large for a double: OverflowError
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    ValueError(op, arg, "= " + std::string(py::str(obj)) + " is too large for a float");
  }
  return v;
}
float CastFloat(py::handle obj, const char* op, const char* arg) {
  const double v = CastDouble(obj, op, arg);
  if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) {
    ValueError(op, arg, "= " + std::to_string(v) + " is too large for a float32");
  }
  return static_cast<float>(v);
}

bool CastBool(py::handle obj, const char* op, const char* arg) {
  if (!IsBool(obj)) TypeError(op, arg, "bool", obj);
  return PyObject_IsTrue(obj.ptr()) == 1;
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
  for (int64_t x : CastInt64Vector(obj, op, arg)) {
    if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
      ValueError(op, arg, "has an element " + std::to_string(x) + " that does not fit in a 32-bit int");
    }
    v.push_back(static_cast<int>(x));
  }
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
