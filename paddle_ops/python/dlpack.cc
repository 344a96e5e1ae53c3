// DLPack both ways, without copies where the layout allows.
//
// The structs below are declared here from the DLPack specification (version 1.0 of the ABI,
// https://dmlc.github.io/dlpack/latest/c_api.html and its Python specification): Debian's
// libdlpack-dev is 0.6 (no versioned tensor) and neither the CUDA toolkit nor pybind11 ship
// the header, so only the fields and codes this file uses are written out, in the layout the
// specification fixes.
#include "paddle_ops/python/dlpack.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <limits>
#include <string>
#include <vector>

#include "paddle_ops/core/device_context.h"
#ifdef PADDLE_OPS_WITH_GPU
#include "paddle_ops/core/gpu/gpu_info.h"
#endif

namespace py = pybind11;

namespace paddle_ops {
namespace pybind {
namespace {

// ---- the ABI (DLPack 1.0) -----------------------------------------------------------------
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 };
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kFlagReadOnly = 1ULL << 0;
constexpr uint64_t kFlagIsCopied = 1ULL << 1;
constexpr uint32_t kMajor = 1, kMinor = 0;

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kUsedLegacyName = "used_dltensor";
constexpr const char* kUsedVersionedName = "used_dltensor_versioned";

[[noreturn]] void ThrowBufferError(const std::string& msg) {
  PyErr_SetString(PyExc_BufferError, msg.c_str());
  throw py::error_already_set();
}

// ---- dtypes -------------------------------------------------------------------------------
// Every dtype we have and its DLPack type (one lane each).
struct DtypePair {
  phi::DataType ours;
  uint8_t code, bits;
};
constexpr DtypePair kDtypes[] = {
    {phi::DataType::BOOL, kDLBool, 8},      {phi::DataType::UINT8, kDLUInt, 8},
    {phi::DataType::INT8, kDLInt, 8},       {phi::DataType::INT16, kDLInt, 16},
    {phi::DataType::INT32, kDLInt, 32},     {phi::DataType::INT64, kDLInt, 64},
    {phi::DataType::FLOAT16, kDLFloat, 16}, {phi::DataType::BFLOAT16, kDLBfloat, 16},
    {phi::DataType::FLOAT32, kDLFloat, 32}, {phi::DataType::FLOAT64, kDLFloat, 64},
};

bool ToDLDataType(phi::DataType t, DLDataType* out) {
  for (const DtypePair& p : kDtypes) {
    if (p.ours == t) {
      *out = {p.code, p.bits, 1};
      return true;
    }
  }
  return false;
}

bool FromDLDataType(DLDataType d, phi::DataType* out) {
  for (const DtypePair& p : kDtypes) {
    if (d.lanes == 1 && p.code == d.code && p.bits == d.bits) {
      *out = p.ours;
      return true;
    }
  }
  return false;
}

std::string DLDataTypeName(DLDataType d) {
  const char* kind = d.code == kDLInt      ? "int"
                     : d.code == kDLUInt   ? "uint"
                     : d.code == kDLFloat  ? "float"
                     : d.code == kDLBfloat ? "bfloat"
                     : d.code == kDLComplex ? "complex"
                     : d.code == kDLBool   ? "bool"
                                           : nullptr;
  std::string name = kind ? kind + std::to_string(d.bits) : "type code " + std::to_string(d.code) +
                                                                 " of " + std::to_string(d.bits) + " bits";
  if (d.lanes != 1) name += " x" + std::to_string(d.lanes) + " lanes";
  return name;
}

// ---- export -------------------------------------------------------------------------------
// What an exported capsule keeps alive: our allocation (shared with the tensor) and the
// shape/strides arrays the DLTensor points into. No Python object: the deleter may run on
// any thread, without the GIL.
struct ExportContext {
  std::shared_ptr<phi::Allocation> holder;
  std::vector<int64_t> shape, strides;
};

template <typename Managed>
void DeleteExported(Managed* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
  delete self;
}

void FillExport(const phi::DenseTensor& d, ExportContext* ctx, DLTensor* dl) {
  ctx->holder = d.Holder();
  const int nd = d.dims().size();
  ctx->shape.assign(d.dims().Get(), d.dims().Get() + nd);
  ctx->strides.assign(nd, 1);
  for (int i = nd - 2; i >= 0; --i) ctx->strides[i] = ctx->strides[i + 1] * ctx->shape[i + 1];
  dl->data = ctx->holder->ptr();
  dl->byte_offset = d.meta().offset;
  const bool gpu = d.place().GetType() == phi::AllocationType::GPU;
  dl->device = {gpu ? kDLCUDA : kDLCPU, gpu ? d.place().GetDeviceId() : 0};
  dl->ndim = nd;
  ToDLDataType(d.dtype(), &dl->dtype);
  dl->shape = ctx->shape.data();
  dl->strides = ctx->strides.data();
}

// A capsule nobody consumed frees what it holds; a consumed one (renamed "used_...") is the
// consumer's to free.
template <typename Managed>
void CapsuleDestructor(PyObject* capsule, const char* name) {
  if (!PyCapsule_IsValid(capsule, name)) return;
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (m && m->deleter) m->deleter(m);
}
void LegacyCapsuleDestructor(PyObject* c) { CapsuleDestructor<DLManagedTensor>(c, kLegacyName); }
void VersionedCapsuleDestructor(PyObject* c) { CapsuleDestructor<DLManagedTensorVersioned>(c, kVersionedName); }

template <typename Managed>
py::object NewCapsule(std::unique_ptr<Managed> m, const char* name, PyCapsule_Destructor destructor) {
  PyObject* cap = PyCapsule_New(m.get(), name, destructor);
  Managed* raw = m.release();
  if (cap == nullptr) {
    raw->deleter(raw);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

// copy: None, True or False (the array API's three-valued argument).
int CopyMode(const py::object& copy, const char* who) {
  if (copy.is_none()) return -1;
  if (!PyBool_Check(copy.ptr()) && !py::isinstance(copy, py::module_::import("numpy").attr("bool_"))) {
    throw py::type_error(std::string(who) + ": argument 'copy' must be None, True or False, but got " +
                         std::string(py::str(py::type::handle_of(copy).attr("__name__"))));
  }
  return PyObject_IsTrue(copy.ptr()) ? 1 : 0;
}

phi::Place PlaceOfDevice(int64_t type, int64_t id, const char* who) {
  if (type == kDLCPU || type == kDLCUDAHost) return phi::CPUPlace();
  if (type == kDLCUDA) {
#ifdef PADDLE_OPS_WITH_GPU
    const int n = phi::gpu::DeviceCount();
    if (id < 0 || id >= n) {
      ThrowBufferError(std::string(who) + ": CUDA device " + std::to_string(id) + " is not visible (" +
                       std::to_string(n) + " GPU(s))");
    }
    return phi::Place(phi::AllocationType::GPU, static_cast<int>(id));
#else
    ThrowBufferError(std::string(who) + ": a CUDA tensor cannot be used: paddle_ops was built without CUDA");
#endif
  }
  ThrowBufferError(std::string(who) + ": DLPack device type " + std::to_string(type) +
                   " is not supported (paddle_ops takes CPU (1), CUDA host (3) and CUDA (2) memory)");
}

// Orders our pending work on the tensor's device before the consumer's stream; `holder`: the
// exported allocation's ptr().
void SyncForConsumer(const phi::Place& place, const void* holder, const py::object& stream) {
  if (place.GetType() != phi::AllocationType::GPU) {
    if (!stream.is_none()) {
      throw py::value_error("__dlpack__(): a CPU tensor takes stream=None, but got " + std::string(py::repr(stream)));
    }
    return;
  }
#ifdef PADDLE_OPS_WITH_GPU
  int64_t s = 1;  // None: the legacy default stream
  if (!stream.is_none()) {
    if (!PyLong_Check(stream.ptr()) || PyBool_Check(stream.ptr())) {
      throw py::type_error("__dlpack__(): argument 'stream' must be None or an int, but got " +
                           std::string(py::str(py::type::handle_of(stream).attr("__name__"))));
    }
    s = stream.cast<int64_t>();
  }
  if (s == -1) return;  // the consumer asked for no synchronization
  if (s == 0 || s < -1) {
    throw py::value_error("__dlpack__(): stream=" + std::to_string(s) +
                          " is not a CUDA stream (use None or 1 for the legacy default stream, 2 for the "
                          "per-thread default stream, -1 for no synchronization)");
  }
  py::gil_scoped_release release;
  phi::gpu::MakeVisibleTo(place.GetDeviceId(), static_cast<uintptr_t>(s));
  // The consumer uses the memory on its stream and may free it with work still queued there:
  // a block of ours is not reused before that work (gpu_info.h).
  phi::gpu::RecordStream(place.GetDeviceId(), holder, static_cast<uintptr_t>(s));
#endif
}

// A (major, minor) or (device_type, device_id) pair of ints.
std::pair<int64_t, int64_t> IntPair(const py::object& v, const char* arg, const char* what) {
  try {
    if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) return v.cast<std::pair<int64_t, int64_t>>();
  } catch (const py::cast_error&) {
  }
  throw py::type_error(std::string("__dlpack__(): argument '") + arg + "' must be None or a " + what +
                       " tuple of two ints, but got " + std::string(py::repr(v)));
}

py::object Dlpack(const Tensor& t, const py::object& stream, const py::object& max_version,
                  const py::object& dl_device, const py::object& copy) {
  const int copy_mode = CopyMode(copy, "__dlpack__()");
  bool versioned = false;
  if (!max_version.is_none()) {
    const auto v = IntPair(max_version, "max_version", "(major, minor)");
    versioned = v.first >= 1;
  }
  const phi::DenseTensor& src = t.dense();
  DLDataType dtype;
  if (!ToDLDataType(src.dtype(), &dtype)) {
    ThrowBufferError("__dlpack__(): dtype " + phi::DataTypeToString(src.dtype()) + " has no DLPack type");
  }
  if (!src.has_allocation()) ThrowBufferError("__dlpack__(): the tensor holds no memory yet");
  phi::Place target = src.place();
  if (!dl_device.is_none()) {
    const auto dev = IntPair(dl_device, "dl_device", "(device_type, device_id)");
    target = PlaceOfDevice(dev.first, dev.second, "__dlpack__()");
    if (dev.first == kDLCUDAHost) ThrowBufferError("__dlpack__(): cannot export to CUDA host memory");
  }
  const bool other_device = target != src.place();
  if (other_device && copy_mode == 0) {
    ThrowBufferError("__dlpack__(): the tensor is on " + src.place().DebugString() + ", dl_device asks for " +
                     target.DebugString() + ", and copy=False forbids the copy that would take");
  }
  const bool copied = other_device || copy_mode == 1;
  phi::DenseTensor out = src;
  if (copied) {
    py::gil_scoped_release release;
    out = *CopyDenseTo(src, target).impl();
  }
  // A copy to the CPU has finished already; otherwise the consumer's stream waits for our work.
  if (out.place().GetType() != phi::AllocationType::CPU || src.place().GetType() == phi::AllocationType::CPU) {
    SyncForConsumer(out.place(), out.Holder()->ptr(), stream);
  }

  auto ctx = std::make_unique<ExportContext>();
  if (versioned) {
    auto m = std::make_unique<DLManagedTensorVersioned>();
    m->version = {kMajor, kMinor};
    m->flags = copied ? kFlagIsCopied : 0;
    m->deleter = &DeleteExported<DLManagedTensorVersioned>;
    FillExport(out, ctx.get(), &m->dl_tensor);
    m->manager_ctx = ctx.release();
    return NewCapsule(std::move(m), kVersionedName, &VersionedCapsuleDestructor);
  }
  auto m = std::make_unique<DLManagedTensor>();
  m->deleter = &DeleteExported<DLManagedTensor>;
  FillExport(out, ctx.get(), &m->dl_tensor);
  m->manager_ctx = ctx.release();
  return NewCapsule(std::move(m), kLegacyName, &LegacyCapsuleDestructor);
}

// ---- import -------------------------------------------------------------------------------
// Owns a consumed producer tensor: calls its deleter once, after our stream is done with a
// GPU buffer. A buffer imported while this thread runs our kernels on a stream pushed in
// place of ours (the torch integration: torch's current stream) is used on that stream only:
// it goes back at once, and the producer's allocator orders its reuse on that stream.
struct Imported {
  DLManagedTensor* legacy = nullptr;
  DLManagedTensorVersioned* versioned = nullptr;
  phi::Place place;
  bool wait_for_our_stream = true;
  ~Imported() {
#ifdef PADDLE_OPS_WITH_GPU
    if (place.GetType() == phi::AllocationType::GPU && wait_for_our_stream) {
      try {
        phi::gpu::WaitStream(place.GetDeviceId());
      } catch (...) {  // a failed device: hand the memory back all the same
      }
    }
#endif
    if (legacy && legacy->deleter) legacy->deleter(legacy);
    if (versioned && versioned->deleter) versioned->deleter(versioned);
  }
};

// Copies a strided array of `es`-byte elements into `dst` in row-major order.
void GatherStrided(const char* src, char* dst, const std::vector<int64_t>& shape, const int64_t* strides,
                   size_t es, int64_t numel) {
  const int nd = static_cast<int>(shape.size());
  std::vector<int64_t> idx(nd, 0);
  int64_t off = 0;  // in elements, of idx
  for (int64_t k = 0; k < numel; ++k) {
    std::memcpy(dst + k * es, src + off * static_cast<int64_t>(es), es);
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

Tensor FromCapsule(const py::object& obj, const py::object& copy) {
  const char* who = "from_dlpack(): argument 'dlpack'";
  const int copy_mode = CopyMode(copy, "from_dlpack()");
  if (!PyCapsule_CheckExact(obj.ptr())) {
    throw py::type_error(std::string(who) + " must be a DLPack capsule or an object with __dlpack__, but got " +
                         std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  const char* name = PyCapsule_GetName(obj.ptr());
  if (name == nullptr) throw py::error_already_set();
  const std::string cname(name);
  if (cname == kUsedLegacyName || cname == kUsedVersionedName) {
    ThrowBufferError(std::string(who) + ": this DLPack capsule was already consumed (a capsule is used once)");
  }
  const bool is_versioned = cname == kVersionedName;
  if (!is_versioned && cname != kLegacyName) {
    throw py::type_error(std::string(who) + ": the capsule is named '" + cname + "', not '" + kLegacyName +
                         "' or '" + kVersionedName + "'");
  }
  void* raw = PyCapsule_GetPointer(obj.ptr(), name);
  if (raw == nullptr) throw py::error_already_set();
  DLTensor* dl = nullptr;
  uint64_t flags = 0;
  if (is_versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(raw);
    if (m->version.major != kMajor) {
      ThrowBufferError(std::string(who) + ": DLPack ABI version " + std::to_string(m->version.major) + "." +
                       std::to_string(m->version.minor) + " is not supported (paddle_ops reads 1.x)");
    }
    dl = &m->dl_tensor;
    flags = m->flags;
  } else {
    dl = &static_cast<DLManagedTensor*>(raw)->dl_tensor;
  }

  // Everything is checked before the capsule is consumed: a refused capsule stays with its
  // producer, whose destructor frees it.
  phi::DataType dtype;
  if (!FromDLDataType(dl->dtype, &dtype)) {
    throw py::type_error(std::string(who) + " has dtype " + DLDataTypeName(dl->dtype) +
                         ", which is not supported (paddle_ops takes bool, uint8, int8, int16, int32, int64, "
                         "float16, bfloat16, float32, float64)");
  }
  const phi::Place place = PlaceOfDevice(dl->device.device_type, dl->device.device_id, who);
  if (dl->ndim < 0 || (dl->ndim > 0 && dl->shape == nullptr)) {
    ThrowBufferError(std::string(who) + ": malformed DLTensor (ndim " + std::to_string(dl->ndim) + ")");
  }
  if (dl->ndim > phi::DDim::kMaxRank) {
    ThrowBufferError(std::string(who) + ": the tensor has " + std::to_string(dl->ndim) +
                     " dimensions; paddle_ops takes at most " + std::to_string(phi::DDim::kMaxRank));
  }
  std::vector<int64_t> shape(dl->shape, dl->shape + dl->ndim);
  int64_t numel = 1;
  for (int64_t s : shape) {
    if (s < 0) ThrowBufferError(std::string(who) + ": malformed DLTensor (negative dimension)");
    if (__builtin_mul_overflow(numel, s, &numel)) {
      ThrowBufferError(std::string(who) + ": the tensor's element count overflows int64");
    }
  }
  const size_t es = phi::SizeOf(dtype);
  uint64_t span_bytes = 0;  // byte_offset + numel * es, the extent read from data
  if (__builtin_mul_overflow(static_cast<uint64_t>(numel), static_cast<uint64_t>(es), &span_bytes) ||
      __builtin_add_overflow(span_bytes, dl->byte_offset, &span_bytes) ||
      span_bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    ThrowBufferError(std::string(who) + ": the tensor's byte count overflows int64");
  }
  bool contiguous = true;
  if (dl->strides != nullptr && numel > 1) {
    int64_t expect = 1;
    for (int d = dl->ndim - 1; d >= 0; --d) {
      if (shape[d] != 1 && dl->strides[d] != expect) contiguous = false;
      expect *= shape[d];
    }
  }
  const bool read_only = (flags & kFlagReadOnly) != 0;
  if (numel > 0 && dl->data == nullptr) ThrowBufferError(std::string(who) + ": the DLTensor's data is null");
  if (copy_mode == 0 && (!contiguous || read_only)) {
    ThrowBufferError(std::string(who) + ": the " +
                     (read_only ? std::string("producer marked the tensor read-only")
                                : std::string("tensor is strided (not row-major contiguous)")) +
                     ", so it can only be taken as a copy, and copy=False forbids that");
  }
  if (!contiguous && place.GetType() == phi::AllocationType::GPU) {
    ThrowBufferError(std::string(who) +
                     ": a strided (non-contiguous) CUDA tensor is not supported; make it contiguous first");
  }

  // Consumed from here on: the deleter is ours to call.
  if (PyCapsule_SetName(obj.ptr(), is_versioned ? kUsedVersionedName : kUsedLegacyName) != 0) {
    throw py::error_already_set();
  }
  auto owner = std::make_shared<Imported>();
  owner->place = place;
#ifdef PADDLE_OPS_WITH_GPU
  if (place.GetType() == phi::AllocationType::GPU) {
    owner->wait_for_our_stream = phi::gpu::PushedStream(place.GetDeviceId()) == 0;
  }
#endif
  if (is_versioned) owner->versioned = static_cast<DLManagedTensorVersioned*>(raw);
  else owner->legacy = static_cast<DLManagedTensor*>(raw);

  const phi::DDim dims = phi::make_ddim(shape);
  const char* base = static_cast<const char*>(dl->data) + dl->byte_offset;
  const bool take_copy = !contiguous || read_only || copy_mode == 1;
  if (numel == 0 || take_copy) {
    auto dense = std::make_shared<phi::DenseTensor>(dtype, dims);
    py::gil_scoped_release release;
    void* dst = dense->AllocateFrom(phi::GetAllocator(place), dtype, place);
    if (numel > 0) {
      if (contiguous) {
        phi::Memcpy(dst, place, base, place, numel * es);
      } else {
        GatherStrided(base, static_cast<char*>(dst), shape, dl->strides, es, numel);
      }
    }
    return Tensor(dense);  // `owner` hands the producer's buffer back here (after our stream)
  }
  const size_t bytes = static_cast<size_t>(span_bytes);
  auto holder = std::make_shared<phi::Allocation>(dl->data, bytes, place, [owner](void*) {});
  phi::DenseTensorMeta meta;
  meta.dtype = dtype;
  meta.dims = dims;
  meta.offset = dl->byte_offset;
  return Tensor(std::make_shared<phi::DenseTensor>(std::move(holder), meta));
}

}  // namespace

void BindDlpack(py::module_& m, py::class_<Tensor>& tensor) {
  tensor
      .def("__dlpack__", &Dlpack, py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
           py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
           "A DLPack capsule sharing this tensor's memory (versioned when max_version >= (1, 0))")
      .def("__dlpack_device__",
           [](const Tensor& t) {
             const phi::Place p = t.place();
             const bool gpu = p.GetType() == phi::AllocationType::GPU;
             return std::make_pair(static_cast<int>(gpu ? kDLCUDA : kDLCPU), gpu ? p.GetDeviceId() : 0);
           })
      .def("data_ptr",
           [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.dense().raw_data()); },
           "The address of the first element, as an int");
  m.def("_from_dlpack_capsule", &FromCapsule, py::arg("capsule"), py::arg("copy") = py::none());
  // The stream a GPU producer is asked to order its work before (our stream of that device);
  // None for the CPU.
  m.def("_dlpack_consumer_stream", [](int64_t device_type, int64_t device_id) -> py::object {
    if (device_type != kDLCUDA) return py::none();
    const phi::Place p = PlaceOfDevice(device_type, device_id, "from_dlpack");
#ifdef PADDLE_OPS_WITH_GPU
    return py::int_(phi::gpu::StreamHandle(p.GetDeviceId()));
#else
    (void)p;
    return py::none();
#endif
  });
}

}  // namespace pybind
}  // namespace paddle_ops
