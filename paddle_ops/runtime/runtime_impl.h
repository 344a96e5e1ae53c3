// The paddle_ops side of the runtime library: helpers the generated runtime_ops.cc calls to turn
// the plain-C arguments of runtime.h into DenseTensors over the caller's memory and back.
// Included only by runtime.cc, runtime_ops.cc and jax_entry.cc (never by a translation unit that
// sees a framework's headers).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "paddle_ops/common/data_type.h"
#include "paddle_ops/common/optional.h"
#include "paddle_ops/common/place.h"
#include "paddle_ops/core/dense_tensor.h"
#include "paddle_ops/core/device_context.h"
#include "paddle_ops/runtime/runtime.h"

namespace paddle_ops_runtime {

phi::DataType ToPhi(int32_t po_dtype);
int32_t ToPo(phi::DataType dtype);

// A required input over the caller's memory (no copy). Throws InvalidArgument when it is
// absent or strided.
phi::DenseTensor Input(const PoTensor& t, const char* op, const char* name);
// An optional input: none when absent (present == 0, no data, or no elements).
paddle::optional<phi::DenseTensor> OptionalInput(const PoTensor& t, const char* op, const char* name);
// Shape and dtype only (po_runtime_infer), no memory.
phi::DenseTensor MetaInput(const PoTensor& t, phi::DataType dtype);
paddle::optional<phi::DenseTensor> OptionalMetaInput(const PoTensor& t, phi::DataType dtype);

// The place all present inputs share (InvalidArgument naming the op otherwise).
phi::Place CommonPlace(const char* op, const PoTensor* ins, int32_t n);
const phi::DeviceContext& Context(const phi::Place& place);

// After InferMeta: when the output's shape and dtype are known, asks the caller for its memory
// and gives it to `out`, so the kernel writes into the caller's tensor. Returns whether it did
// (false: the kernel allocates); *bound is the caller's data pointer (null when empty).
bool BindOutput(phi::DenseTensor* out, const PoOutputs& sink, int32_t index, const phi::Place& place,
                void** bound);
// After the kernel: hands an output the kernel allocated itself to the caller (adopt), and
// reports an optional output the op did not produce as an empty float32 tensor [0].
void FinishOutput(const std::shared_ptr<phi::DenseTensor>& out, const PoOutputs& sink, int32_t index,
                  bool given, void* bound, const phi::Place& place);
void MetaOutput(const phi::DenseTensor& out, PoMeta* meta);
// Records the data pointers of this run (po_runtime_last_pointers).
void RecordInput(int32_t index, const void* data);
void RecordOutput(int32_t index, const void* data);

// One op of the generated table (runtime_ops.cc): `run` calls InferMeta and the kernel, `infer`
// InferMeta alone, on the input dtypes given (the caller's, or a guess where unknown).
struct OpEntry {
  const char* name;
  int32_t n_ins, n_attrs, n_outs;
  void (*run)(const PoTensor* ins, const PoAttr* attrs, const PoOutputs& sink);
  void (*infer)(const PoTensor* ins, const phi::DataType* dtypes, const PoAttr* attrs, PoMeta* outs);
};
extern const OpEntry kOps[];
extern const int32_t kNumOps;
extern const char kYamlHash[];

// Runs op `op` of kOps as po_runtime_run does (argument counts checked, the host's thread count
// and flags taken first, errors as a kind and a message), with outputs bound to the caller's
// memory as `caller_allocates` says (0, 1, PO_OUTPUTS_SETTING or PO_OUTPUTS_TORCH_FLAG;
// po_jax_run: always 1).
int32_t Run(int32_t op, const PoTensor* ins, int32_t n_ins, const PoAttr* attrs, int32_t n_attrs,
            const PoOutputs* outs, int32_t n_outs, int32_t caller_allocates);

}  // namespace paddle_ops_runtime
