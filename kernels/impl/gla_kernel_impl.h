// gla and its gradient, written once for both devices: the tensors' layout and outputs
// (kernels/gla/recurrent.h), then the device's own step, gla::Forward / gla::Backward: on the
// CPU one head per OpenMP task in the chunked or recurrent form (kernels/gla/chunk_cpu.h), on
// the GPU the chunked kernels' launches or the recurrent form (kernels/gla/launch_gpu.cuh).
//
// Two call forms are reduced to the plain one here, for both devices:
// - varlen (cu_seqlens): one call of the device step per sequence, on the rows of that sequence
//   (GlaSequence) and its states (on the GPU several sequences at once, on side streams), except
//   a forward the device runs whole (ForwardPacked: the sm_90a forward's one launch); the
//   offsets are read on the host (a copy and a wait on the GPU) and checked first;
// - a float32 gk beside 16-bit q, k, v (as fla takes it): q, k, v (and o_grad) are widened to
//   float32, the float32 kernels run, and o, q_grad, k_grad, v_grad round once into the 16-bit
//   type (gk_grad stays float32, gk's dtype).
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/gla/recurrent.h"
#include "kernels/gla_kernel.h"
#include "paddle_ops/common/enforce.h"

namespace phi {

class CPUContext;
class GPUContext;

namespace gla {

// The device step, declared for both devices (the registration file includes the definition).
template <typename T>
void Forward(const CPUContext& ctx, const GlaData<T>& d, double scale);
template <typename T>
void Forward(const GPUContext& ctx, const GlaData<T>& d, double scale);
template <typename T>
void Backward(const CPUContext& ctx, const GlaGradData<T>& d, double scale);
template <typename T>
void Backward(const GPUContext& ctx, const GlaGradData<T>& d, double scale);

// dst[i] = src[i] converted (round to nearest even into the 16-bit types), on the device.
template <typename From, typename To>
void Convert(const CPUContext& ctx, const From* src, To* dst, int64_t n);
template <typename From, typename To>
void Convert(const GPUContext& ctx, const From* src, To* dst, int64_t n);

// step(n) for each n in [0, count), the sequences of a varlen call: on the CPU in order; on the
// GPU on a few side streams at once, forked from the context's stream and joined back to it (the
// sequences write disjoint rows and states, so the results do not depend on the overlap).
void ForEachSequence(const CPUContext& ctx, int64_t count, const std::function<void(int64_t)>& step);
void ForEachSequence(const GPUContext& ctx, int64_t count, const std::function<void(int64_t)>& step);

// The forward of a whole varlen call in one launch, where the device has a kernel for that (the
// GPU's sm_90a forward of 16-bit inputs, kernels/gla/launch_gpu.cuh; never on the CPU): true if
// it ran. `count`: the number of sequences (their offsets already read and checked).
template <typename T>
bool ForwardPacked(const CPUContext& ctx, const GlaData<T>& d, const DenseTensor& cu_seqlens, int64_t count,
                   double scale);
template <typename T>
bool ForwardPacked(const GPUContext& ctx, const GlaData<T>& d, const DenseTensor& cu_seqlens, int64_t count,
                   double scale);

// The offsets of a cu_seqlens tensor (int32 or int64, on the host or the context's device) on the
// host: a copy and a wait on the GPU.
std::vector<int64_t> ReadOffsets(const CPUContext& ctx, const DenseTensor& cu_seqlens);
std::vector<int64_t> ReadOffsets(const GPUContext& ctx, const DenseTensor& cu_seqlens);

// cu_seqlens must start at 0, end at T and never decrease (InvalidArgument: ValueError).
inline void CheckOffsets(const std::vector<int64_t>& off, int64_t T, const char* op) {
  PADDLE_ENFORCE(!off.empty() && off.front() == 0,
                 errors::InvalidArgument("%s: cu_seqlens must start at 0, but cu_seqlens[0] is %d", op,
                                         off.empty() ? -1 : off.front()));
  for (size_t i = 1; i < off.size(); ++i) {
    PADDLE_ENFORCE(off[i] >= off[i - 1],
                   errors::InvalidArgument("%s: cu_seqlens must not decrease, but cu_seqlens[%d] = %d is less than "
                                           "cu_seqlens[%d] = %d",
                                           op, static_cast<int64_t>(i), off[i], static_cast<int64_t>(i - 1),
                                           off[i - 1]));
  }
  PADDLE_ENFORCE(off.back() == T,
                 errors::InvalidArgument("%s: cu_seqlens must end at the number of tokens T = %d, but its last "
                                         "entry is %d",
                                         op, T, off.back()));
}

// Runs run(nullptr) on the whole call, or, for a varlen call, its offsets read and checked
// first, packed(count) (true: it ran the whole call at once) or else run(&at) on each sequence;
// nothing on a call without heads.
template <typename Context, typename Run, typename Packed>
void EachSequence(const Context& ctx, const GlaShape& s, const paddle::optional<DenseTensor>& cu_seqlens,
                  const char* op, Run run, Packed packed) {
  if (s.heads() == 0) return;
  if (!cu_seqlens) {
    run(nullptr);
    return;
  }
  const std::vector<int64_t> off = ReadOffsets(ctx, *cu_seqlens);
  CheckOffsets(off, s.T, op);
  if (packed(static_cast<int64_t>(off.size()) - 1)) return;
  ForEachSequence(ctx, static_cast<int64_t>(off.size()) - 1, [&](int64_t n) {
    const GlaSequenceAt at(s, off[n], off[n + 1] - off[n], n);
    run(&at);
  });
}

// x widened to float32 on the device.
template <typename T, typename Context>
DenseTensor Widen(const Context& ctx, const DenseTensor& x) {
  DenseTensor out(DataType::FLOAT32, x.dims());
  Convert(ctx, x.data<T>(), ctx.template Alloc<float>(&out), x.numel());
  return out;
}

// A float32 result rounded into `out` (whose meta InferMeta has set to T).
template <typename T, typename Context>
void Narrow(const Context& ctx, const DenseTensor& x, DenseTensor* out) {
  Convert(ctx, x.data<float>(), ctx.template Alloc<T>(out), x.numel());
}

template <typename T>
constexpr bool kGla16Bit = std::is_same<T, dtype::float16>::value || std::is_same<T, dtype::bfloat16>::value;

}  // namespace gla

template <typename T, typename Context>
void GlaKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k, const DenseTensor& v,
               const DenseTensor& gk, const paddle::optional<DenseTensor>& initial_state,
               const paddle::optional<DenseTensor>& cu_seqlens, double scale, bool output_final_state,
               bool head_first, DenseTensor* o, DenseTensor* final_state) {
  if constexpr (gla::kGla16Bit<T>) {
    if (gk.dtype() == DataType::FLOAT32) {  // float32 gk: the float32 kernels (top of the file)
      const DenseTensor q32 = gla::Widen<T>(dev_ctx, q), k32 = gla::Widen<T>(dev_ctx, k),
                        v32 = gla::Widen<T>(dev_ctx, v);
      DenseTensor o32(DataType::FLOAT32, o->dims());
      GlaKernel<float, Context>(dev_ctx, q32, k32, v32, gk, initial_state, cu_seqlens, scale, output_final_state,
                                head_first, &o32, final_state);
      gla::Narrow<T>(dev_ctx, o32, o);
      return;
    }
  }
  const GlaData<T> d = MakeGlaData<T>(dev_ctx, q, k, v, gk, initial_state, output_final_state, head_first, o,
                                      final_state);
  gla::EachSequence(
      dev_ctx, d.s, cu_seqlens, "gla",
      [&](const GlaSequenceAt* at) { gla::Forward(dev_ctx, at ? GlaSequence(d, *at) : d, scale); },
      [&](int64_t count) { return gla::ForwardPacked(dev_ctx, d, *cu_seqlens, count, scale); });
}

template <typename T, typename Context>
void GlaGradKernel(const Context& dev_ctx, const DenseTensor& q, const DenseTensor& k,
                   const DenseTensor& v, const DenseTensor& gk,
                   const paddle::optional<DenseTensor>& initial_state,
                   const paddle::optional<DenseTensor>& cu_seqlens, const DenseTensor& o_grad,
                   const paddle::optional<DenseTensor>& final_state_grad, double scale, bool head_first,
                   DenseTensor* q_grad, DenseTensor* k_grad, DenseTensor* v_grad, DenseTensor* gk_grad,
                   DenseTensor* initial_state_grad) {
  if constexpr (gla::kGla16Bit<T>) {
    if (gk.dtype() == DataType::FLOAT32) {  // float32 gk: the float32 kernels (top of the file)
      const DenseTensor q32 = gla::Widen<T>(dev_ctx, q), k32 = gla::Widen<T>(dev_ctx, k),
                        v32 = gla::Widen<T>(dev_ctx, v), do32 = gla::Widen<T>(dev_ctx, o_grad);
      DenseTensor dq32(DataType::FLOAT32, q.dims()), dk32(DataType::FLOAT32, k.dims()),
          dv32(DataType::FLOAT32, v.dims());
      GlaGradKernel<float, Context>(dev_ctx, q32, k32, v32, gk, initial_state, cu_seqlens, do32, final_state_grad,
                                    scale, head_first, &dq32, &dk32, &dv32, gk_grad, initial_state_grad);
      gla::Narrow<T>(dev_ctx, dq32, q_grad);
      gla::Narrow<T>(dev_ctx, dk32, k_grad);
      gla::Narrow<T>(dev_ctx, dv32, v_grad);
      return;
    }
  }
  const GlaGradData<T> d = MakeGlaGradData<T>(dev_ctx, q, k, v, gk, initial_state, o_grad, final_state_grad,
                                              head_first, q_grad, k_grad, v_grad, gk_grad, initial_state_grad);
  gla::EachSequence(
      dev_ctx, d.s, cu_seqlens, "gla_grad",
      [&](const GlaSequenceAt* at) { gla::Backward(dev_ctx, at ? GlaGradSequence(d, *at) : d, scale); },
      [](int64_t) { return false; });  // the backward runs per sequence
}

}  // namespace phi
