// repeat_interleave and its gradients (both count forms), written once for both devices. The
// tensor form: the exclusive cumsum of the counts (starts, O(input)); the forward gathers each
// output slice from the slice its position falls in (found from the starts: no per-output
// scratch, so its peak memory is the output plus O(input)); the gradient sums each slice's
// outputs from the starts on both devices (no per-output scratch: x_grad plus O(input)).
// Where the devices differ the body calls a step of namespace phi::repeat, declared below for
// both and defined in kernels/cpu/repeat_interleave_steps.h and kernels/gpu/repeat_interleave_steps.cuh:
// the plain copies and sums of the int-count form (loops / a thread per 16 bytes of output, a
// thread per element), the starts (on the CPU checked on the host; on the GPU the total copied
// to the host unless output_size gives it), the gather (runs walked per tile / each slice
// written to its run, tile by tile), and the sums (a loop per slice / a warp per slice for rows
// under 32 elements, else a thread per element).
#pragma once

#include <cstdint>

#include "kernels/funcs/scan.h"
#include "kernels/impl/cum_scan_ops.h"
#include "kernels/impl/flood_ops.h"
#include "kernels/repeat_interleave_kernel.h"
#include "kernels/util/fill.h"

namespace phi {

class CPUContext;
class GPUContext;

namespace repeat {

// The starts of the tensor form, in the device's own buffer.
template <typename Context>
struct Pieces;

// out[o, i, k] = x[o, i / repeats, k].
template <typename T>
void CopyRepeated(const CPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* x, T* out);
template <typename T>
void CopyRepeated(const GPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* x, T* out);

// x_grad[o, j, k] = sum over c < repeats of out_grad[o, j * repeats + c, k], in that order.
template <typename T>
void SumRepeated(const CPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* out_grad, T* x_grad);
template <typename T>
void SumRepeated(const GPUContext& ctx, const funcs::ScanLayout& l, int repeats, const T* out_grad, T* x_grad);

// p->starts = the exclusive cumsum of the n counts; returns the length M of the output axis.
inline int64_t Starts(const CPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t output_size,
                      Pieces<CPUContext>* p);
inline int64_t Starts(const GPUContext& ctx, const DenseTensor& repeats, int64_t n, int64_t output_size,
                      Pieces<GPUContext>* p);

// x_grad[o, j, k] = the sum of out_grad[o, i, k] over slice j's outputs i (x_grad zeroed first),
// each slice's run [starts[j], starts[j + 1]) read from the starts (no per-output scratch), in
// a fixed order (deterministic, no atomics).
template <typename T>
void SegmentSum(const CPUContext& ctx, const DenseTensor& repeats, const funcs::ScanLayout& l, int64_t M,
                const T* out_grad, T* x_grad, Pieces<CPUContext>* p);
template <typename T>
void SegmentSum(const GPUContext& ctx, const DenseTensor& repeats, const funcs::ScanLayout& l, int64_t M,
                const T* out_grad, T* x_grad, Pieces<GPUContext>* p);

// The gather of the forward over the [outer, M, inner] output, from p->starts (op.marker unused).
template <typename T>
void Gather(const CPUContext& ctx, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<CPUContext>* p);
template <typename T>
void Gather(const GPUContext& ctx, const funcs::ScanLayout& l, int64_t M, funcs::RepeatGatherOp<T> op,
            Pieces<GPUContext>* p);

// The frame of both int-count kernels: x's [outer, length, inner] view, dst allocated, and
// step(layout, dst data) run only when dst has elements (so an empty source is never read).
template <typename T, typename Context, typename Step>
void IntCountBody(const Context& dev_ctx, const DenseTensor& x, int axis, DenseTensor* dst, Step step) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  T* pd = dev_ctx.template Alloc<T>(dst);
  if (dst->numel() > 0) step(l, pd);
}

}  // namespace repeat

template <typename T, typename Context>
void RepeatInterleaveKernel(const Context& dev_ctx, const DenseTensor& x, int repeats, int axis, DenseTensor* out) {
  repeat::IntCountBody<T>(dev_ctx, x, axis, out, [&](const funcs::ScanLayout& l, T* po) {
    repeat::CopyRepeated(dev_ctx, l, repeats, x.data<T>(), po);
  });
}

template <typename T, typename Context>
void RepeatInterleaveGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                                int repeats, int axis, DenseTensor* x_grad) {
  repeat::IntCountBody<T>(dev_ctx, x, axis, x_grad, [&](const funcs::ScanLayout& l, T* pd) {
    repeat::SumRepeated(dev_ctx, l, repeats, out_grad.data<T>(), pd);
  });
}

template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& repeats,
                                           int axis, int64_t output_size, DenseTensor* out) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  repeat::Pieces<Context> p;
  const int64_t M = repeat::Starts(dev_ctx, repeats, l.length, output_size, &p);
  out->Resize(RepeatOutputDims(out->dims(), axis, M));
  funcs::RepeatGatherOp<T> op;
  op.out = dev_ctx.template Alloc<T>(out);
  if (out->numel() == 0) return;
  op.x = x.data<T>();
  repeat::Gather(dev_ctx, l, M, op, &p);
}

// The segment sums of out_grad over each slice's outputs (SegmentSum of each device).
template <typename T, typename Context>
void RepeatInterleaveWithTensorIndexGradKernel(const Context& dev_ctx, const DenseTensor& x,
                                               const DenseTensor& repeats, const DenseTensor& out_grad, int axis,
                                               DenseTensor* x_grad) {
  const funcs::ScanLayout l = CumScanLayout(x.dims(), axis, false);
  const DDim& gd = out_grad.dims();  // x's dims (1-D for a 0-D x) with M along the axis
  const int64_t M = gd[axis < 0 ? axis + gd.size() : axis];
  repeat::Pieces<Context> p;
  repeat::Starts(dev_ctx, repeats, l.length, M, &p);  // (the CPU checks the counts against M)
  T* pg = dev_ctx.template Alloc<T>(x_grad);
  if (x_grad->numel() == 0) return;
  funcs::FillZero(dev_ctx, pg, x_grad->numel());  // slices repeated 0 times
  if (out_grad.numel() == 0) return;
  repeat::SegmentSum(dev_ctx, repeats, l, M, out_grad.data<T>(), pg, &p);
}

}  // namespace phi
