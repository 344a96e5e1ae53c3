// The extension module paddle_ops._C: Tensor, dtypes, places, the autograd entry points
// and (in the `ops` submodule) the generated _C_ops functions.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>

#include "kernels/funcs/simd/cpu_isa.h"
#include "paddle_ops/autograd/backward.h"
#include "paddle_ops/common/flags.h"
#include "paddle_ops/core/cpu_threads.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/core/kernel_factory.h"
#include "paddle_ops/python/arg_parse.h"
#include "paddle_ops/python/dlpack.h"
#include "paddle_ops/python/static_bind.h"
#include "paddle_ops_gen/api.h"
#ifdef PADDLE_OPS_WITH_GPU
#include "paddle_ops/core/gpu/gpu_info.h"
#endif

namespace py = pybind11;

namespace paddle_ops {
namespace pybind {

Tensor CopyDenseTo(const phi::DenseTensor& src, const phi::Place& place) {
  auto dst = std::make_shared<phi::DenseTensor>(src.dtype(), src.dims());
  void* p = dst->AllocateFrom(phi::GetAllocator(place), src.dtype(), place);
  phi::DeviceContextPool::Instance().Get(src.place())->Wait();
  phi::Memcpy(p, place, src.raw_data(), src.place(), src.numel() * phi::SizeOf(src.dtype()));
  return Tensor(dst);
}

namespace {

// The NumPy dtype a tensor's values are exchanged as (bfloat16 values travel as float32; its bits,
// what numpy() gives, as uint16).
py::dtype NumpyDtypeOf(phi::DataType t) {
  switch (t) {
    case phi::DataType::BOOL: return py::dtype("bool");
    case phi::DataType::UINT8: return py::dtype("uint8");
    case phi::DataType::INT8: return py::dtype("int8");
    case phi::DataType::INT16: return py::dtype("int16");
    case phi::DataType::INT32: return py::dtype("int32");
    case phi::DataType::INT64: return py::dtype("int64");
    case phi::DataType::FLOAT16: return py::dtype("float16");
    case phi::DataType::BFLOAT16: return py::dtype("float32");
    case phi::DataType::FLOAT32: return py::dtype("float32");
    case phi::DataType::FLOAT64: return py::dtype("float64");
    default: throw py::type_error("unsupported dtype " + phi::DataTypeToString(t));
  }
}

// A CPU copy of `t` (the tensor itself if already on the CPU).
phi::DenseTensor ToCpu(const phi::DenseTensor& t) {
  if (t.place().GetType() == phi::AllocationType::CPU) return t;
  phi::DenseTensor c(t.dtype(), t.dims());
  void* dst = c.AllocateFrom(phi::GetAllocator(phi::CPUPlace()), t.dtype(), phi::CPUPlace());
  phi::Memcpy(dst, phi::CPUPlace(), t.raw_data(), t.place(), t.numel() * phi::SizeOf(t.dtype()));
  return c;
}

// Tensor.numpy(): a NumPy copy of the data. A bfloat16 tensor gives its bits as uint16, as
// Paddle's numpy() does (NumPy has no bfloat16); its values: t.astype('float32').numpy().
py::array TensorToNumpy(const Tensor& t) {
  const phi::DenseTensor cpu = ToCpu(t.dense());
  std::vector<py::ssize_t> shape(cpu.dims().Get(), cpu.dims().Get() + cpu.dims().size());
  const bool bf16 = cpu.dtype() == phi::DataType::BFLOAT16;
  py::array out(bf16 ? py::dtype("uint16") : NumpyDtypeOf(cpu.dtype()), shape);
  const int64_t n = cpu.numel();
  if (n > 0) std::memcpy(out.mutable_data(), cpu.raw_data(), n * phi::SizeOf(cpu.dtype()));
  return out;
}

// `array` must be C-contiguous with the NumPy dtype of `dtype`; for bfloat16 either float32
// (rounded to nearest even here) or uint16 (the bfloat16 bits as they are, as Paddle reads them).
Tensor TensorFromNumpy(py::array array, phi::DataType dtype) {
  const bool bf16_bits = dtype == phi::DataType::BFLOAT16 && array.dtype().equal(py::dtype("uint16"));
  if ((!bf16_bits && !array.dtype().equal(NumpyDtypeOf(dtype))) || !(array.flags() & py::array::c_style)) {
    throw py::type_error("internal: array dtype does not match the requested tensor dtype");
  }
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  auto dense = std::make_shared<phi::DenseTensor>(dtype, phi::make_ddim(dims));
  const phi::Place cpu = phi::CPUPlace();
  void* dst = dense->AllocateFrom(phi::GetAllocator(cpu), dtype, cpu);
  const int64_t n = dense->numel();
  if (n > 0) {
    if (dtype == phi::DataType::BFLOAT16 && !bf16_bits) {
      const float* src = static_cast<const float*>(array.data());
      auto* d = static_cast<phi::dtype::bfloat16*>(dst);
      for (int64_t i = 0; i < n; ++i) d[i] = phi::dtype::bfloat16(src[i]);
    } else {
      std::memcpy(dst, array.data(), n * phi::SizeOf(dtype));
    }
  }
  return Tensor(dense);  // on the CPU; the caller moves it to `place`
}

Tensor CopyTo(const Tensor& t, const phi::Place& place) {
  const phi::DenseTensor& src = t.dense();
  if (src.place() == place) return Tensor(t.impl());
  return CopyDenseTo(src, place);
}

// A flag's value for Python: an int for an integer flag, else the choice's name.
py::object FlagValue(const paddle_ops::flags::FlagInfo& f, int64_t v) {
  if (f.kind == paddle_ops::flags::FlagKind::kInteger) return py::int_(v);
  return py::str(paddle_ops::flags::FormatFlagValue(f, v));
}

// _C.load_flags, get_flag, get_flags, set_flags, flag_table, unknown_env_flags: the flags of
// paddle_ops/common/flags.h, for paddle.get_flags / set_flags (framework.py).
void BindFlags(py::module_& m) {
  namespace fl = paddle_ops::flags;
  m.def("load_flags", &fl::LoadFlags, "read the PADDLE_OPS_* environment variables (once); ValueError on a bad one");
  m.def("unknown_env_flags", &fl::UnknownEnvironmentVariables);
  m.def("get_flag", [](const std::string& name) {
    const int64_t v = fl::GetFlagValue(name);
    for (const auto& f : fl::FlagTable())
      if (name == f.name) return FlagValue(f, v);
    return py::object(py::none());
  });
  m.def("get_flags", []() {
    py::dict d;
    for (const auto& f : fl::FlagTable()) d[f.name] = FlagValue(f, fl::GetFlagValue(f.name));
    return d;
  });
  m.def("set_flags", &fl::SetFlags, "set flags from (name, text value) pairs, all validated first");
  m.def("flag_table", []() {
    py::list rows;
    for (const auto& f : fl::FlagTable()) {
      py::dict r;
      r["name"] = f.name;
      r["kind"] = f.kind == fl::FlagKind::kInteger ? "integer" : "choice";
      r["choices"] = std::vector<std::string>(f.choices.begin(), f.choices.end());
      r["default"] = FlagValue(f, f.default_value);
      r["accepted"] = fl::AcceptedValues(f);
      r["start_only"] = f.start_only;
      r["doc"] = f.doc;
      rows.append(r);
    }
    return rows;
  });
}

void TranslateEnforce(const phi::EnforceNotMet& e) {
  const std::string& msg = e.message();
  switch (e.code()) {
    case phi::ErrorCode::OUT_OF_RANGE: PyErr_SetString(PyExc_IndexError, msg.c_str()); break;
    case phi::ErrorCode::INVALID_ARGUMENT: PyErr_SetString(PyExc_ValueError, msg.c_str()); break;
    case phi::ErrorCode::INVALID_TYPE: PyErr_SetString(PyExc_TypeError, msg.c_str()); break;
    case phi::ErrorCode::RESOURCE_EXHAUSTED: PyErr_SetString(PyExc_MemoryError, msg.c_str()); break;
    default: PyErr_SetString(PyExc_RuntimeError, msg.c_str()); break;
  }
}

// The gradients given for `outputs` (None: ones): each of its output's dtype and shape.
std::vector<OptionalTensor> ToOptionalList(const py::object& obj, const std::vector<Tensor>& outputs) {
  std::vector<OptionalTensor> v;
  if (obj.is_none()) return v;
  for (py::handle h : obj) {
    if (h.is_none()) {
      v.emplace_back(paddle::none);
    } else {
      v.emplace_back(CastTensor(h, "grad", "grad_outputs"));
    }
  }
  if (!v.empty() && v.size() != outputs.size()) {
    throw py::value_error("got " + std::to_string(v.size()) + " grad_outputs for " + std::to_string(outputs.size()) +
                          " outputs");
  }
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i]) continue;
    const std::string which = "grad_outputs[" + std::to_string(i) + "]";
    if (v[i]->dtype() != outputs[i].dtype()) {
      throw py::type_error(which + " must have its output's dtype " + phi::DataTypeToString(outputs[i].dtype()) +
                           ", but got " + phi::DataTypeToString(v[i]->dtype()));
    }
    if (v[i]->dims() != outputs[i].dims()) {
      throw py::value_error(which + " must have its output's shape " + outputs[i].dims().to_str() + ", but got shape " +
                            v[i]->dims().to_str());
    }
  }
  return v;
}

}  // namespace
}  // namespace pybind
}  // namespace paddle_ops

using paddle_ops::Tensor;
using namespace paddle_ops::pybind;  // NOLINT

PYBIND11_MODULE(_C, m) {
  m.doc() = "paddle_ops native module";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const phi::EnforceNotMet& e) {
      TranslateEnforce(e);
    } catch (const std::bad_alloc&) {
      // A container inside a kernel or binding could not get memory (the allocators name
      // their size themselves, as EnforceNotMet).
      PyErr_SetString(PyExc_MemoryError, "out of host memory: a buffer for this operation could not be allocated");
    } catch (const std::length_error&) {
      PyErr_SetString(PyExc_MemoryError,
                      "out of memory: this operation asked for a buffer larger than the machine can address");
    }
  });

  py::enum_<phi::DataType>(m, "DataType")
      .value("BOOL", phi::DataType::BOOL)
      .value("UINT8", phi::DataType::UINT8)
      .value("INT8", phi::DataType::INT8)
      .value("INT16", phi::DataType::INT16)
      .value("INT32", phi::DataType::INT32)
      .value("INT64", phi::DataType::INT64)
      .value("FLOAT16", phi::DataType::FLOAT16)
      .value("BFLOAT16", phi::DataType::BFLOAT16)
      .value("FLOAT32", phi::DataType::FLOAT32)
      .value("FLOAT64", phi::DataType::FLOAT64)
      .def_property_readonly("name_str", [](phi::DataType t) { return phi::DataTypeToString(t); });
  m.def("dtype_from_string", [](const std::string& s) { return phi::StringToDataType(s); });
  m.def("numpy_dtype_of", [](phi::DataType t) { return NumpyDtypeOf(t); });

  py::class_<phi::Place>(m, "Place")
      .def(py::init([](const std::string& kind, int id) {
             if (kind == "cpu") return phi::Place(phi::AllocationType::CPU);
             if (kind == "gpu") return phi::Place(phi::AllocationType::GPU, id);
             throw py::value_error("unknown place kind '" + kind + "' (expected 'cpu' or 'gpu')");
           }),
           py::arg("kind"), py::arg("device_id") = 0)
      .def("is_cpu_place", [](const phi::Place& p) { return p.GetType() == phi::AllocationType::CPU; })
      .def("is_gpu_place", [](const phi::Place& p) { return p.GetType() == phi::AllocationType::GPU; })
      .def("gpu_device_id", &phi::Place::GetDeviceId)
      .def("short_string", &phi::Place::ShortString)
      .def("__eq__", [](const phi::Place& a, const phi::Place& b) { return a == b; })
      .def("__hash__", [](const phi::Place& p) { return static_cast<int>(p.GetType()) * 1000 + p.GetDeviceId(); })
      .def("__repr__", &phi::Place::DebugString);

  py::class_<Tensor> tensor(m, "Tensor");
  tensor.def_property_readonly("shape", [](const Tensor& t) { return phi::vectorize(t.dims()); })
      .def_property_readonly("dtype", &Tensor::dtype)
      // the dtype as a plain int (int(DataType)): the front door's fast path tests it in a set of
      // ints, cheaper than making and hashing a DataType object (paddle_ops/_front.py)
      .def_property_readonly("_dtype_code", [](const Tensor& t) { return static_cast<int>(t.dtype()); })
      .def_property_readonly("place", &Tensor::place)
      .def_property_readonly("ndim", [](const Tensor& t) { return t.dims().size(); })
      .def_property_readonly("size", &Tensor::numel)
      .def("numel", &Tensor::numel)
      .def_property("stop_gradient", &Tensor::stop_gradient,
                    [](Tensor& t, bool s) {
                      if (!s && !t.is_leaf()) return;  // non-leaves already record history
                      // As in Paddle, an integer or bool tensor takes False too; autograd sends
                      // no gradient to it (egr::RequiresGrad looks at floating inputs only).
                      t.set_stop_gradient(s);
                    })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("grad", [](const Tensor& t) -> py::object {
        auto g = t.autograd_meta()->grad;
        if (!g) return py::none();
        return py::cast(Tensor(g));
      })
      .def("_reset_grad", [](Tensor& t) { t.autograd_meta()->grad.reset(); })
      .def("_set_grad", [](Tensor& t, const Tensor& g) { t.autograd_meta()->grad = g.impl(); })
      .def("detach", &Tensor::detach)
      .def("numpy", &TensorToNumpy)
      .def("_copy_to", &CopyTo)
      // A copy in new memory on the same place (to_tensor(tensor); _copy_to shares on the same place).
      .def("_clone", [](const Tensor& t) { return CopyDenseTo(t.dense(), t.dense().place()); })
      .def("_share_id", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl().get()); });
  BindDlpack(m, tensor);  // __dlpack__, __dlpack_device__, data_ptr, _from_dlpack_capsule

  m.def("tensor_from_numpy", [](py::array a, phi::DataType dtype, const phi::Place& place) {
    Tensor t = TensorFromNumpy(a, dtype);
    if (place.GetType() != phi::AllocationType::CPU) t = CopyTo(t, place);
    return t;
  });
  m.def("empty", [](py::handle shape_arg, py::handle dtype_arg, py::handle place_arg) {
    const std::vector<int64_t> shape = CastInt64Vector(shape_arg, "empty", "shape");
    for (int64_t d : shape) {
      if (d < 0) throw py::value_error("empty(): argument 'shape' has a negative size " + std::to_string(d));
    }
    const phi::DataType dtype = CastDataType(dtype_arg, "empty", "dtype");
    if (!py::isinstance<phi::Place>(place_arg)) {
      throw py::type_error("empty(): argument 'place' must be a Place, but got " +
                           std::string(py::str(py::type::handle_of(place_arg).attr("__name__"))));
    }
    const phi::Place place = place_arg.cast<phi::Place>();
    auto dense = std::make_shared<phi::DenseTensor>(dtype, phi::make_ddim(shape));
    {
      py::gil_scoped_release release;
      dense->AllocateFrom(phi::GetAllocator(place), dtype, place);
    }
    return Tensor(dense);
  });
  m.def("run_backward", [](const std::vector<Tensor>& outputs, const py::object& grads, bool retain_graph) {
    auto g = ToOptionalList(grads, outputs);
    py::gil_scoped_release release;
    paddle_ops::Backward(outputs, g, retain_graph);
  });
  m.def("run_grad", [](const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                       const py::object& grads, bool retain_graph, bool allow_unused,
                       const std::vector<Tensor>& no_grad_vars) {
    auto g = ToOptionalList(grads, outputs);
    std::vector<paddle_ops::OptionalTensor> r;
    {
      py::gil_scoped_release release;
      r = paddle_ops::Grad(outputs, inputs, g, retain_graph, allow_unused, no_grad_vars);
    }
    py::list out;
    for (auto& t : r) out.append(t ? py::cast(*t) : py::none());
    return out;
  });
  m.def("is_grad_enabled", &paddle_ops::GradMode::IsEnabled);
  m.def("set_grad_enabled", &paddle_ops::GradMode::SetEnabled);
  m.def("set_num_threads", [](py::handle n) {
    void PaddleOpsSetNumThreads(int);
    PaddleOpsSetNumThreads(CastInt(n, "set_num_threads", "n"));
  }, py::arg("n"), "CPU threads of the kernels (n <= 0: follow OMP_NUM_THREADS); ValueError above the bound, "
                   "the larger of 1024 and the CPU count (_C.max_num_threads())");
  m.def("max_num_threads", &phi::CpuMaxThreads, "the largest thread count set_num_threads takes");
  m.def("check_omp_threads", &phi::CheckOmpNumThreads, "ValueError if OMP_NUM_THREADS asks for more threads than the bound");
  m.def("get_num_threads", []() { int PaddleOpsGetNumThreads(void); return PaddleOpsGetNumThreads(); }, "CPU threads the scan kernels use");
  // The addresses of get_num_threads' function, `int(void)`, and of one that writes every flag's
  // current value (flag_table's order, the stored form) and returns their count: the
  // integrations' runtime library (its own copy of the kernels, paddle_ops.integrations._runtime)
  // calls them at each op, so that set_num_threads and set_flags reach it.
  m.def("_num_threads_source", []() {
    int PaddleOpsGetNumThreads(void);
    return reinterpret_cast<std::uintptr_t>(&PaddleOpsGetNumThreads);
  });
  m.def("_flags_source", []() {
    int32_t (*source)(int64_t*, int32_t) = [](int64_t* values, int32_t cap) -> int32_t {
      static const std::vector<std::string> names = [] {  // no string built per call
        std::vector<std::string> n;
        for (const auto& f : paddle_ops::flags::FlagTable()) n.emplace_back(f.name);
        return n;
      }();
      for (size_t i = 0; i < names.size() && static_cast<int32_t>(i) < cap; ++i)
        values[i] = paddle_ops::flags::GetFlagValue(names[i]);  // loaded at import: no throw
      return static_cast<int32_t>(names.size());
    };
    return reinterpret_cast<std::uintptr_t>(source);
  });
  m.def("is_compiled_with_cuda", []() {
#ifdef PADDLE_OPS_WITH_GPU
    return true;
#else
    return false;
#endif
  });
  m.def("gpu_device_count", []() {
#ifdef PADDLE_OPS_WITH_GPU
    return phi::gpu::DeviceCount();
#else
    return 0;
#endif
  });
  m.def("device_synchronize", []() {
#ifdef PADDLE_OPS_WITH_GPU
    py::gil_scoped_release release;
    if (phi::gpu::DeviceCount() > 0) phi::gpu::Synchronize();
#endif
  });
  // The torch integration's stream swap (gpu_info.h): while pushed, our kernels of GPU
  // `device` on this thread run on `stream` (a cudaStream_t as an int, 0 the legacy default
  // stream) instead of our stream; pop restores the previous one.
  m.def("_gpu_push_stream", [](int device, uintptr_t stream) {
#ifdef PADDLE_OPS_WITH_GPU
    phi::gpu::PushStream(device, stream);
#else
    (void)device, (void)stream;
    throw std::runtime_error("paddle_ops was built without CUDA: it cannot run on a CUDA stream");
#endif
  });
  m.def("_gpu_pop_stream", []() {
#ifdef PADDLE_OPS_WITH_GPU
    phi::gpu::PopStream();
#endif
  });
  // The stream pushed on this thread for `device` (1 for the legacy default stream), or None.
  m.def("_gpu_pushed_stream", [](int device) -> py::object {
#ifdef PADDLE_OPS_WITH_GPU
    const uintptr_t s = phi::gpu::PushedStream(device);
    if (s != 0) return py::int_(s);
#endif
    (void)device;
    return py::none();
  });
  m.def("gpu_empty_cache", []() {
#ifdef PADDLE_OPS_WITH_GPU
    if (phi::gpu::DeviceCount() > 0) phi::gpu::EmptyCache();
#endif
  });
  // The GPU allocator's statistics of one device: (reserved, allocated, peak_reserved,
  // peak_allocated) bytes of its memory pool, then the counts (allocations, out-of-memory
  // retries); zeros without a GPU.
  m.def("gpu_memory_stats", [](int device) {
#ifdef PADDLE_OPS_WITH_GPU
    const auto s = phi::gpu::GetMemoryStats(device);
    return std::make_tuple(s.reserved, s.allocated, s.peak_reserved, s.peak_allocated, s.allocations,
                           s.oom_retries);
#else
    (void)device;
    return std::make_tuple(size_t{0}, size_t{0}, size_t{0}, size_t{0}, size_t{0}, size_t{0});
#endif
  });
  m.def("gpu_reset_peak_memory_stats", [](int device) {
#ifdef PADDLE_OPS_WITH_GPU
    phi::gpu::ResetPeakMemoryStats(device);
#else
    (void)device;
#endif
  });
  m.def("cpu_isa", []() {
    namespace simd = phi::funcs::simd;
    return py::make_tuple(simd::CpuIsaName(simd::CpuIsaSupported()), simd::CpuIsaName(simd::CpuIsaInUse()));
  }, "(the widest CPU instruction set compiled in and supported by this CPU by its CPUID, the one "
     "the dispatched CPU kernels use now under PADDLE_OPS_CPU_ISA): 'baseline', 'avx2' or 'avx512'");
  m.def("cpu_empty_cache", []() { phi::CpuEmptyCache(); });
  m.def("cpu_cached_bytes", []() { return phi::CpuCachedBytes(); });
  m.def("cpu_cache_limit", []() { return phi::CpuCacheLimit(); });
  m.def("registered_kernels", [](const std::string& op) {
    std::vector<std::pair<std::string, std::string>> keys;
    for (const auto& k : phi::KernelFactory::Instance().KeysOf(op))
      keys.emplace_back(phi::BackendToString(k.backend()), phi::DataTypeToString(k.dtype()));
    return keys;
  });

  BindFlags(m);

  py::module_ ops = m.def_submodule("ops", "the generated _C_ops functions (api_yaml/ops.yaml)");
  BindGeneratedOps(ops);
  BindStatic(m);  // _C.static: static graph mode (static_bind.cc)
}
