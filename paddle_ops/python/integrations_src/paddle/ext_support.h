// The Paddle side of the Paddle integration: helpers for the generated paddle_ext.cc, which registers
// every op with PD_BUILD_OP / PD_BUILD_GRAD_OP. Includes only Paddle's extension header and
// paddle_ops/runtime/runtime.h (never a paddle_ops header: both define phi::).
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime.h"
#include "paddle/extension.h"

namespace po_ext {

inline int32_t ToPo(paddle::DataType dt) {
  switch (dt) {
    case paddle::DataType::BOOL: return PO_BOOL;
    case paddle::DataType::INT8: return PO_INT8;
    case paddle::DataType::UINT8: return PO_UINT8;
    case paddle::DataType::INT16: return PO_INT16;
    case paddle::DataType::INT32: return PO_INT32;
    case paddle::DataType::INT64: return PO_INT64;
    case paddle::DataType::FLOAT16: return PO_FLOAT16;
    case paddle::DataType::BFLOAT16: return PO_BFLOAT16;
    case paddle::DataType::FLOAT32: return PO_FLOAT32;
    case paddle::DataType::FLOAT64: return PO_FLOAT64;
    default: return PO_UNDEFINED;
  }
}

inline paddle::DataType FromPo(int32_t dt) {
  switch (dt) {
    case PO_BOOL: return paddle::DataType::BOOL;
    case PO_INT8: return paddle::DataType::INT8;
    case PO_UINT8: return paddle::DataType::UINT8;
    case PO_INT16: return paddle::DataType::INT16;
    case PO_INT32: return paddle::DataType::INT32;
    case PO_INT64: return paddle::DataType::INT64;
    case PO_FLOAT16: return paddle::DataType::FLOAT16;
    case PO_BFLOAT16: return paddle::DataType::BFLOAT16;
    case PO_FLOAT64: return paddle::DataType::FLOAT64;
    default: return paddle::DataType::FLOAT32;
  }
}

// Python re-raises "[paddle_ops:<Kind>] message" as that exception type.
[[noreturn]] inline void Throw(int32_t kind, const std::string& message) {
  static const char* kNames[] = {"", "ValueError", "TypeError", "IndexError", "MemoryError", "RuntimeError"};
  const char* name = kind > 0 && kind <= PO_RUNTIME_ERROR ? kNames[kind] : "RuntimeError";
  PD_THROW("[paddle_ops:" + std::string(name) + "] " + message);
}

// The kernel of every double-grad op: a second derivative through paddle_ops' ops is not
// supported yet (create_graph=True, then a gradient of a gradient).
[[noreturn]] inline void NoDoubleGrad(const char* op) {
  PD_THROW("[paddle_ops:NotImplementedError] " + std::string(op) +
           "(): a second derivative (double backward: a gradient of a gradient made with create_graph=True) "
           "through a paddle_ops op is not supported");
}

// The extension refuses a runtime built from other YAML (ops numbered differently).
inline void CheckBridge(const char* yaml_hash) {
  static const bool ok = std::strcmp(po_runtime_yaml_hash(), yaml_hash) == 0;
  if (!ok) Throw(PO_RUNTIME_ERROR, "the Paddle extension was generated from other api_yaml/ than the runtime library "
                                   "(delete the extension cache and import again)");
}

// The storage the PoTensor views of one call point into.
struct Args {
  std::vector<PoTensor> ins;
  std::vector<std::vector<int64_t>> dims, strides;
  std::vector<paddle::Tensor> keep;  // contiguous copies of strided inputs, kept for the call
  explicit Args(size_t n) : ins(n), dims(n), strides(n) {}
};

// Input i over the tensor's own memory (a strided tensor is made contiguous first).
inline void View(Args& a, size_t i, const paddle::Tensor& t, const char* op, const char* name) {
  PoTensor& v = a.ins[i];
  std::memset(&v, 0, sizeof(v));
  if (!t.defined()) return;  // absent (e.g. the grad of an unused optional output)
  if (!t.is_dense_tensor()) Throw(PO_TYPE_ERROR, std::string(op) + "(): input '" + name + "' must be a dense tensor");
  const bool empty = t.numel() == 0;  // an empty tensor has no memory: no data pointer to pass
  if (!empty && !t.initialized()) return;  // absent: a shape without memory
  const paddle::Tensor& c = empty || t.is_contiguous() ? t : (a.keep.push_back(t.contiguous()), a.keep.back());
  a.dims[i] = c.shape();
  if ((int)a.dims[i].size() > PO_MAX_RANK)
    Throw(PO_VALUE_ERROR, std::string(op) + "(): input '" + name + "' has rank " + std::to_string(a.dims[i].size()) +
                              ", more than paddle_ops' " + std::to_string(PO_MAX_RANK));
  v.data = empty ? nullptr : const_cast<void*>(c.data());
  v.dims = a.dims[i].data();
  v.ndim = static_cast<int32_t>(a.dims[i].size());
  v.strides = nullptr;
  v.dtype = ToPo(c.dtype());
  if (v.dtype == PO_UNDEFINED)
    Throw(PO_TYPE_ERROR, std::string(op) + "(): input '" + name + "' has a dtype paddle_ops does not take");
  // The runtime runs our kernels on our own streams; until it runs them on Paddle's, GPU
  // tensors are refused rather than raced (PyPI's Paddle 3 is CPU-only anyway).
  if (!empty && !c.is_cpu())
    Throw(PO_VALUE_ERROR, std::string(op) + "(): input '" + name +
                              "' is not on the CPU: the Paddle integration runs on CPU tensors");
  v.device = PO_CPU;
  v.device_id = 0;
  v.present = 1;
}

struct Sink {
  paddle::Place place;
  std::vector<paddle::Tensor> outs;
};

inline void* AllocOut(void* ctx, int32_t index, const int64_t* dims, int32_t ndim, int32_t dtype) {
  auto* s = static_cast<Sink*>(ctx);
  s->outs[index] = paddle::empty(std::vector<int64_t>(dims, dims + ndim), FromPo(dtype), s->place);
  return s->outs[index].numel() == 0 ? nullptr : s->outs[index].data();
}

inline void AdoptOut(void* ctx, int32_t index, void* data, const int64_t* dims, int32_t ndim, int32_t dtype,
                     void* owner) {
  auto* s = static_cast<Sink*>(ctx);
  s->outs[index] = paddle::from_blob(data, std::vector<int64_t>(dims, dims + ndim), FromPo(dtype),
                                     phi::DataLayout::NCHW, s->place, [owner](void*) { po_runtime_release(owner); });
}

inline std::vector<paddle::Tensor> Run(int32_t op, const char* name, Args& a, const PoAttr* attrs, int32_t n_attrs,
                                       int32_t n_outs) {
  Sink sink;
  sink.place = paddle::CPUPlace();
  for (auto& v : a.ins)
    if (v.present) {
      sink.place = v.device == PO_CPU ? paddle::Place(paddle::CPUPlace()) : paddle::Place(paddle::GPUPlace(v.device_id));
      break;
    }
  sink.outs.resize(n_outs);
  PoOutputs outs{&sink, &AllocOut, &AdoptOut, nullptr};
  const int32_t rc =
      po_runtime_run(op, a.ins.data(), static_cast<int32_t>(a.ins.size()), attrs, n_attrs, &outs, n_outs, PO_OUTPUTS_SETTING);
  if (rc != PO_OK) Throw(rc, po_runtime_last_error());
  return sink.outs;
}

// Shape inference (static graph): Paddle gives shapes and attributes, not dtypes.
// The input shapes are kept per op and thread for the dtype inference that follows.
inline std::unordered_map<int32_t, std::vector<std::vector<int64_t>>>& ShapeCache() {
  thread_local std::unordered_map<int32_t, std::vector<std::vector<int64_t>>> cache;
  return cache;
}

inline std::vector<std::vector<int64_t>> InferShapes(int32_t op, std::vector<std::vector<int64_t>> shapes,
                                                     const std::vector<int32_t>& dtypes, const PoAttr* attrs,
                                                     int32_t n_attrs, int32_t n_outs) {
  std::vector<PoTensor> ins(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::memset(&ins[i], 0, sizeof(PoTensor));
    ins[i].dims = shapes[i].data();
    ins[i].ndim = static_cast<int32_t>(shapes[i].size());
    ins[i].dtype = dtypes.empty() ? PO_UNDEFINED : dtypes[i];
    ins[i].present = 1;
  }
  std::vector<PoMeta> metas(n_outs);
  const int32_t rc = po_runtime_infer(op, ins.data(), static_cast<int32_t>(ins.size()), attrs, n_attrs, metas.data(), n_outs);
  if (rc != PO_OK) Throw(rc, po_runtime_last_error());
  std::vector<std::vector<int64_t>> out;
  for (auto& m : metas) out.emplace_back(m.dims, m.dims + m.ndim);
  if (dtypes.empty()) ShapeCache()[op] = std::move(shapes);
  return out;
}

// Dtype inference: InferMeta on the real dtypes and the shapes of the shape inference of the
// same op just before; without those, every output takes the dtype of input `fallback`.
inline std::vector<paddle::DataType> InferDtypes(int32_t op, const std::vector<paddle::DataType>& in_dtypes,
                                                 const PoAttr* attrs, int32_t n_attrs, int32_t n_outs,
                                                 int32_t fallback) {
  std::vector<int32_t> dts;
  for (auto d : in_dtypes) dts.push_back(ToPo(d));
  auto it = ShapeCache().find(op);
  std::vector<paddle::DataType> out;
  if (it != ShapeCache().end() && it->second.size() == in_dtypes.size()) {
    std::vector<PoTensor> ins(dts.size());
    for (size_t i = 0; i < dts.size(); ++i) {
      std::memset(&ins[i], 0, sizeof(PoTensor));
      ins[i].dims = it->second[i].data();
      ins[i].ndim = static_cast<int32_t>(it->second[i].size());
      ins[i].dtype = dts[i];
      ins[i].present = 1;
    }
    std::vector<PoMeta> metas(n_outs);
    if (po_runtime_infer(op, ins.data(), static_cast<int32_t>(ins.size()), attrs, n_attrs, metas.data(), n_outs) ==
        PO_OK) {
      for (auto& m : metas) out.push_back(FromPo(m.dtype));
      return out;
    }
  }
  out.assign(n_outs, in_dtypes[fallback]);
  return out;
}

}  // namespace po_ext
