// The `_C.static` submodule: op descriptions, build-time InferMeta and run-time entry points
// of every op in api_yaml/ (generated into static_ops.inc), for paddle_ops.static.
#include "paddle_ops/python/static_bind.h"

#include "paddle_ops/core/kernel_factory.h"
#include "paddle_ops_gen/api.h"
#include "paddle_ops_gen/infermeta_all.h"

namespace paddle_ops {
namespace pybind {

phi::DenseTensor MetaInput(py::handle meta, const char* op, const char* arg) {
  if (!py::isinstance<py::tuple>(meta) || py::len(meta) != 2) {
    throw py::type_error(std::string(op) + "(): argument '" + arg + "' must be a (dims, dtype) pair");
  }
  auto t = meta.cast<py::tuple>();
  const std::vector<int64_t> dims = CastInt64Vector(t[0], op, arg);
  return phi::DenseTensor(CastDataType(t[1], op, arg), phi::make_ddim(dims));
}

paddle::optional<phi::DenseTensor> MetaOptionalInput(py::handle meta, const char* op, const char* arg) {
  if (meta.is_none()) return paddle::none;
  return MetaInput(meta, op, arg);
}

py::object MetaOutput(const phi::DenseTensor& t) {
  if (t.dtype() == phi::DataType::UNDEFINED) return py::none();
  return py::make_tuple(phi::vectorize(t.dims()), t.dtype());
}

void CheckKernel(const char* op, const phi::Place& place, phi::DataType dtype) {
  const phi::KernelKey key(phi::TransToBackend(place), phi::DataLayout::ALL_LAYOUT, dtype);
  phi::KernelFactory::Instance().SelectKernelOrThrow(op, key);
}

}  // namespace pybind
}  // namespace paddle_ops

#include "paddle_ops_gen/static_ops.inc"

namespace paddle_ops {
namespace pybind {

namespace {
const StaticOpTable& Table() {
  static const StaticOpTable table = [] {
    StaticOpTable t;
    static_gen::RegisterOps(t);
    return t;
  }();
  return table;
}

const StaticOp& Find(const std::string& op) {
  auto it = Table().find(op);
  if (it == Table().end()) throw py::value_error("static graph mode: unknown op '" + op + "'");
  return it->second;
}
}  // namespace

void BindStatic(py::module_& m) {
  // Python subclasses of Tensor (paddle_ops.static.Variable) need a constructor; it makes an
  // undefined Tensor and is reserved to them.
  auto tensor = py::reinterpret_borrow<py::class_<Tensor>>(py::type::of<Tensor>());
  tensor.def(py::init([](const std::string& kind) {
               if (kind != "static.Variable") {
                 throw py::type_error("Tensor() cannot be constructed directly; use paddle_ops.to_tensor()");
               }
               return Tensor();
             }),
             py::arg("kind"));

  py::module_ s = m.def_submodule("static", "static graph mode: op descriptions, InferMeta and run entries");
  s.def("op_specs", [] { return std::string(static_gen::kOpSpecsJson); },
        "JSON: every op's inputs, attributes, outputs and grad op (from api_yaml/)");
  s.def("infer_meta",
        [](const std::string& op, const py::list& ins, const py::list& attrs, const phi::Place& place) {
          return Find(op).infer_meta(ins, attrs, place);
        },
        py::arg("op"), py::arg("inputs"), py::arg("attrs"), py::arg("place"),
        "Run the op's InferMeta on (dims, dtype) inputs; returns (dims, dtype) or None per output");
  s.def("run",
        [](const std::string& op, const py::list& ins, const py::list& attrs) { return Find(op).run(ins, attrs); },
        py::arg("op"), py::arg("inputs"), py::arg("attrs"),
        "Run the op (generated C++ API, no autograd); returns a Tensor or None per output");
}

}  // namespace pybind
}  // namespace paddle_ops
