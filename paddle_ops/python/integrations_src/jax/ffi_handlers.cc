// The XLA FFI handlers of paddle_ops.integrations.jax: one handler for every op on the CPU
// (PoJaxCpu) and one on CUDA (PoJaxCuda). Which op runs, and its attributes, are the call's
// attributes (the Python side builds them from the op table generated from api_yaml/), so a new
// op needs no handler code. Each handler turns XLA's buffers into the runtime's plain-C tensors
// and calls po_jax_run (jax_entry.h), which binds the outputs to XLA's buffers (no copies).
//
// Compiled at first import against the installed jaxlib's headers (jax.ffi.include_dir()) and
// linked to libpaddle_ops_runtime.so; includes nothing of paddle_ops but jax_entry.h (and runtime.h).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jax_entry.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

constexpr char kSep = '\x1f';  // between the string attributes in `strs`

int32_t ToPo(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED: return PO_BOOL;
    case ffi::DataType::S8: return PO_INT8;
    case ffi::DataType::U8: return PO_UINT8;
    case ffi::DataType::S16: return PO_INT16;
    case ffi::DataType::S32: return PO_INT32;
    case ffi::DataType::S64: return PO_INT64;
    case ffi::DataType::F16: return PO_FLOAT16;
    case ffi::DataType::BF16: return PO_BFLOAT16;
    case ffi::DataType::F32: return PO_FLOAT32;
    case ffi::DataType::F64: return PO_FLOAT64;
    default: return PO_UNDEFINED;
  }
}

ffi::ErrorCode CodeOf(int32_t kind) {
  switch (kind) {
    case PO_VALUE_ERROR:
    case PO_TYPE_ERROR: return ffi::ErrorCode::kInvalidArgument;
    case PO_INDEX_ERROR: return ffi::ErrorCode::kOutOfRange;
    case PO_MEMORY_ERROR: return ffi::ErrorCode::kResourceExhausted;
    default: return ffi::ErrorCode::kInternal;
  }
}

const char* KindName(int32_t kind) {
  switch (kind) {
    case PO_VALUE_ERROR: return "ValueError";
    case PO_TYPE_ERROR: return "TypeError";
    case PO_INDEX_ERROR: return "IndexError";
    case PO_MEMORY_ERROR: return "MemoryError";
    default: return "RuntimeError";
  }
}

// XLA's buffer as a PoTensor; its dims live in `dims`.
PoTensor View(const ffi::AnyBuffer& b, std::vector<int64_t>* dims, int32_t device, int32_t ordinal) {
  const auto d = b.dimensions();
  dims->assign(d.begin(), d.end());
  PoTensor t{};
  t.data = b.untyped_data();
  t.dims = dims->data();
  t.strides = nullptr;  // XLA's buffers are dense, row-major
  t.ndim = static_cast<int32_t>(dims->size());
  t.dtype = ToPo(b.element_type());
  t.device = device;
  t.device_id = ordinal;
  t.present = 1;
  return t;
}

ffi::Error Run(void* stream, int32_t device, int32_t ordinal, ffi::RemainingArgs args, ffi::RemainingRets rets,
               std::string_view op, ffi::Span<const int64_t> present, ffi::Span<const int64_t> ints,
               ffi::Span<const double> floats, std::string_view strs) {
  const std::string name(op);
  const int32_t id = po_jax_op_id(name.c_str());
  if (id < 0) return ffi::Error::InvalidArgument("[paddle_ops:RuntimeError] the runtime has no op '" + name + "'");
  const size_t n_ins = args.size(), n_outs = rets.size(), n_attrs = ints.size();
  if (present.size() != n_ins || floats.size() != n_attrs)
    return ffi::Error::InvalidArgument("[paddle_ops:RuntimeError] " + name + ": malformed call attributes");
  std::vector<std::vector<int64_t>> dims(n_ins + n_outs);
  std::vector<PoTensor> ins(n_ins), outs(n_outs);
  for (size_t i = 0; i < n_ins; ++i) {
    auto b = args.get<ffi::AnyBuffer>(i);
    if (b.has_error()) return b.error();
    ins[i] = View(*b, &dims[i], device, ordinal);
    ins[i].present = present[i] != 0;
  }
  for (size_t i = 0; i < n_outs; ++i) {
    auto r = rets.get<ffi::AnyBuffer>(i);
    if (r.has_error()) return r.error();
    outs[i] = View(**r, &dims[n_ins + i], device, ordinal);
  }
  // One text per attribute, separated by kSep: a str attribute's value, empty for the others.
  std::vector<std::string> texts;
  for (size_t start = 0;;) {
    const size_t end = strs.find(kSep, start);
    texts.emplace_back(strs.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (texts.size() != n_attrs && n_attrs != 0)
    return ffi::Error::InvalidArgument("[paddle_ops:RuntimeError] " + name + ": malformed string attributes");
  std::vector<PoAttr> attrs(n_attrs);
  for (size_t k = 0; k < n_attrs; ++k) attrs[k] = PoAttr{ints[k], floats[k], texts[k].c_str()};
  const int32_t rc = po_jax_run(id, ins.data(), static_cast<int32_t>(n_ins), attrs.data(),
                                static_cast<int32_t>(n_attrs), outs.data(), static_cast<int32_t>(n_outs), stream);
  if (rc != PO_OK)
    return ffi::Error(CodeOf(rc), std::string("[paddle_ops:") + KindName(rc) + "] " + po_jax_last_error());
  return ffi::Error::Success();
}

ffi::Error RunCpu(ffi::RemainingArgs args, ffi::RemainingRets rets, std::string_view op,
                  ffi::Span<const int64_t> present, ffi::Span<const int64_t> ints, ffi::Span<const double> floats,
                  std::string_view strs) {
  return Run(nullptr, PO_CPU, 0, args, rets, op, present, ints, floats, strs);
}

ffi::Error RunCuda(void* stream, int32_t ordinal, ffi::RemainingArgs args, ffi::RemainingRets rets,
                   std::string_view op, ffi::Span<const int64_t> present, ffi::Span<const int64_t> ints,
                   ffi::Span<const double> floats, std::string_view strs) {
  return Run(stream, PO_GPU, ordinal, args, rets, op, present, ints, floats, strs);
}

}  // namespace

#define PO_JAX_ATTRS                                   \
  .Attr<std::string_view>("op")                        \
      .Attr<ffi::Span<const int64_t>>("present")       \
      .Attr<ffi::Span<const int64_t>>("ints")          \
      .Attr<ffi::Span<const double>>("floats")         \
      .Attr<std::string_view>("strs")

// Exported (the library is compiled with hidden visibility; its version script keeps only these).
extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* PoJaxCpu(XLA_FFI_CallFrame* call_frame);
extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* PoJaxCuda(XLA_FFI_CallFrame* call_frame);

XLA_FFI_DEFINE_HANDLER_SYMBOL(PoJaxCpu, RunCpu,
                              ffi::Ffi::Bind().RemainingArgs().RemainingRets() PO_JAX_ATTRS);

XLA_FFI_DEFINE_HANDLER_SYMBOL(PoJaxCuda, RunCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<void*>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .RemainingArgs()
                                  .RemainingRets() PO_JAX_ATTRS);
