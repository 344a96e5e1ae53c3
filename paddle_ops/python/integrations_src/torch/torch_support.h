// The torch side of the C++ torch integration: helpers for the generated torch_ext.cc, whose
// kernels (one per torch op of the table tools/codegen/gen_torch.py makes from api_yaml/) are
// registered with TORCH_LIBRARY_IMPL(paddle_ops, CPU / CUDA). Includes only torch's headers and
// paddle_ops/runtime/runtime.h (never a paddle_ops header: both would bring their own namespaces of the same names);
// the kernels run in libpaddle_ops_runtime.so through po_runtime_run.
//
// Built at first import by torch.utils.cpp_extension against the torch that runs it
// (paddle_ops/integrations/torch/_build.py), with PO_TORCH_CUDA defined when that torch has
// CUDA and its headers are there; without it the same source builds against a CPU-only torch.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#ifdef PO_TORCH_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

#include "runtime.h"

namespace po_torch {

// Tensors per call: more than any op of api_yaml/ has (the runtime checks the real counts).
constexpr int kMaxTensors = 12;

inline int32_t ToPo(at::ScalarType t) {
  switch (t) {
    case at::kBool: return PO_BOOL;
    case at::kChar: return PO_INT8;
    case at::kByte: return PO_UINT8;
    case at::kShort: return PO_INT16;
    case at::kInt: return PO_INT32;
    case at::kLong: return PO_INT64;
    case at::kHalf: return PO_FLOAT16;
    case at::kBFloat16: return PO_BFLOAT16;
    case at::kFloat: return PO_FLOAT32;
    case at::kDouble: return PO_FLOAT64;
    default: return PO_UNDEFINED;
  }
}

inline at::ScalarType FromPo(int32_t t) {
  static const at::ScalarType kTypes[] = {at::kBool, at::kChar,     at::kByte,     at::kShort, at::kInt,
                                          at::kLong, at::kHalf,     at::kBFloat16, at::kFloat, at::kDouble};
  return t >= 0 && t <= PO_FLOAT64 ? kTypes[t] : at::kFloat;
}

// A PoError of the runtime as torch's exception of that kind: ValueError, TypeError and
// IndexError in Python; PO_MEMORY_ERROR as torch.OutOfMemoryError (torch's own out-of-memory
// error, a RuntimeError; torch has no way to raise Python's MemoryError from a kernel).
[[noreturn]] inline void Throw(int32_t kind, const std::string& message) {
  switch (kind) {
    case PO_VALUE_ERROR: TORCH_CHECK_VALUE(false, message);
    case PO_TYPE_ERROR: TORCH_CHECK_TYPE(false, message);
    case PO_INDEX_ERROR: TORCH_CHECK_INDEX(false, message);
    case PO_MEMORY_ERROR: TORCH_CHECK_WITH(OutOfMemoryError, false, message);
    default: TORCH_CHECK(false, message);
  }
  TORCH_CHECK(false, message);  // not reached
}

// The index of op `name` in the runtime's table (looked up once per kernel).
inline int32_t OpId(const char* name) {
  const int32_t n = po_runtime_num_ops();
  for (int32_t i = 0; i < n; ++i)
    if (std::strcmp(po_runtime_op_name(i), name) == 0) return i;
  Throw(PO_RUNTIME_ERROR, std::string("paddle_ops: the runtime library has no op '") + name +
                              "' (the torch extension was generated from other api_yaml/: delete its cache and "
                              "import again)");
}

// A YAML `int` attribute (a torch int is 64-bit): refused when it does not fit, never truncated.
inline int64_t Int32(int64_t v, const char* op, const char* name) {
  if (v < INT32_MIN || v > INT32_MAX)
    Throw(PO_VALUE_ERROR, std::string(op) + "(): argument '" + name + "' = " + std::to_string(v) +
                              " does not fit in a 32-bit int");
  return v;
}

// A Scalar attribute the runtime takes as an integer (cumsum's axis).
inline int64_t IntScalar(const at::Scalar& s, const char* op, const char* name) {
  if (!s.isIntegral(/*includeBool=*/false))
    Throw(PO_TYPE_ERROR, std::string(op) + "(): '" + name + "' must be an integer, got a " +
                             std::string(c10::toString(s.type())));
  return s.toLong();
}

// One call of an op: the inputs as PoTensor views of the torch tensors' memory (a strided one
// made contiguous first and kept for the call), outputs from torch's allocator (`alloc`,
// at::empty on the inputs' device) or adopted from ours without a copy (`adopt`: always where
// the shape is known only when the kernel runs), as the flag PADDLE_OPS_TORCH_OUTPUTS says
// (runtime.h, PO_OUTPUTS_TORCH_FLAG: by default torch's on CUDA, ours on the CPU, whose cache keeps
// large outputs in memory already touched; docs/usage.md, "PyTorch"); on CUDA the call runs on torch's
// current stream of the inputs' device, with that device current.
class Call {
 public:
  Call(int32_t op, const char* name, int n_ins, int n_outs) : op_(op), name_(name), n_ins_(n_ins), n_outs_(n_outs) {
    std::memset(ins_, 0, sizeof(ins_));
  }

  void In(int i, const at::Tensor& t, const char* arg) {
    if (!t.defined()) return;  // absent (an undefined gradient)
    const at::Tensor& c = t.is_contiguous() ? t : (keep_[i] = t.contiguous());
    PoTensor& v = ins_[i];
    v.dtype = ToPo(c.scalar_type());
    if (v.dtype == PO_UNDEFINED)
      Throw(PO_TYPE_ERROR, std::string(name_) + "(): input '" + arg + "' has dtype " +
                               std::string(c10::toString(c.scalar_type())) + ", which paddle_ops does not take");
    if (c.dim() > PO_MAX_RANK)
      Throw(PO_VALUE_ERROR, std::string(name_) + "(): input '" + arg + "' has rank " + std::to_string(c.dim()) +
                                ", more than paddle_ops' " + std::to_string(PO_MAX_RANK));
    v.data = c.numel() == 0 ? nullptr : c.data_ptr();
    v.dims = c.sizes().data();
    v.ndim = static_cast<int32_t>(c.dim());
    v.device = c.is_cuda() ? PO_GPU : PO_CPU;
    if (!c.is_cpu() && !c.is_cuda())
      Throw(PO_VALUE_ERROR, std::string(name_) + "(): input '" + arg + "' is on " + c.device().str() +
                                ": paddle_ops takes CPU and CUDA tensors");
    v.device_id = c.is_cuda() ? c.get_device() : 0;
    v.present = 1;
    if (!have_device_) device_ = c.device(), have_device_ = true;
  }

  void In(int i, const std::optional<at::Tensor>& t, const char* arg) {
    if (t.has_value()) In(i, *t, arg);
  }

  void Run(const PoAttr* attrs, int32_t n_attrs) {
    const c10::OptionalDeviceGuard guard(device_.is_cuda() ? std::optional<c10::Device>(device_) : std::nullopt);
    PoOutputs outs{this, &Alloc, &Adopt, nullptr};
#ifdef PO_TORCH_CUDA
    if (device_.is_cuda()) outs.stream = c10::cuda::getCurrentCUDAStream(device_.index()).stream();
#endif
    const int32_t rc = po_runtime_run(op_, ins_, n_ins_, attrs, n_attrs, &outs, n_outs_, PO_OUTPUTS_TORCH_FLAG);
    if (rc != PO_OK) Throw(rc, po_runtime_last_error());
  }

  const at::Tensor& Out(int i) const { return outs_[i]; }

 private:
  at::TensorOptions Options(int32_t dtype) const {
    return at::TensorOptions().dtype(FromPo(dtype)).device(have_device_ ? device_ : c10::Device(c10::kCPU));
  }

  static void* Alloc(void* ctx, int32_t index, const int64_t* dims, int32_t ndim, int32_t dtype) {
    auto* c = static_cast<Call*>(ctx);
    if (index < 0 || index >= c->n_outs_) return nullptr;
    at::Tensor& t = c->outs_[index] = at::empty(at::IntArrayRef(dims, ndim), c->Options(dtype));
    return t.numel() == 0 ? nullptr : t.data_ptr();
  }

  static void Adopt(void* ctx, int32_t index, void* data, const int64_t* dims, int32_t ndim, int32_t dtype,
                    void* owner) {
    auto* c = static_cast<Call*>(ctx);
    if (index < 0 || index >= c->n_outs_) {
      po_runtime_release(owner);
      return;
    }
    // The device is given (target_device), not read from the pointer: inside a CUDA graph
    // capture the pool's block is a graph allocation that the driver does not map before the
    // graph is launched, and torch's lookup would take it for host memory.
    const at::TensorOptions options = c->Options(dtype);
    c->outs_[index] = at::from_blob(data, at::IntArrayRef(dims, ndim), [owner](void*) { po_runtime_release(owner); },
                                    options, options.device());
  }

  int32_t op_;
  const char* name_;
  int32_t n_ins_, n_outs_;
  bool have_device_ = false;
  c10::Device device_{c10::kCPU};
  PoTensor ins_[kMaxTensors];
  at::Tensor keep_[kMaxTensors];
  at::Tensor outs_[kMaxTensors];
};

}  // namespace po_torch
