// sum and mean and their grads on the GPU (deterministic block reductions, util/reduce_gpu.cuh).
#include "kernels/reduce_kernel.h"

#include "kernels/impl/reduce_kernel_impl.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/gpu_launch.cuh"
#include "kernels/util/reduce_gpu.cuh"

namespace phi {
namespace {

// Integer sums (and float x summed into an integer dtype, element by element cast first, as
// NumPy) accumulate in unsigned 64-bit so overflow wraps instead of being UB.
template <typename OutT>
struct IntegerLoad {
  template <typename T>
  HOSTDEVICE unsigned long long operator()(T v) const {  // NOLINT
    return static_cast<unsigned long long>(static_cast<int64_t>(CastValue<OutT>(v)));  // NOLINT
  }
};

}  // namespace

template <typename T, typename Context>
void SumKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& axis, DataType out_dtype, bool keepdim,
               DenseTensor* out) {
  const DataType dtype = SumOutDtype(x, out_dtype, *out);
  const std::vector<bool> mask = funcs::ReduceAxesMask(x.dims(), axis.GetData());
  PD_VISIT_ALL_TYPES(dtype, "sum", [&] {
    data_t* o = dev_ctx.template Alloc<data_t>(out);
    constexpr bool kFloat = (std::is_floating_point<T>::value || IsHalfFloat<T>::value) &&
                            (std::is_floating_point<data_t>::value || IsHalfFloat<data_t>::value);
    if constexpr (kFloat) {
      funcs::ReduceSumGpu<T, double, data_t>(dev_ctx, x.data<T>(), x.dims(), mask, o);
    } else {
      funcs::ReduceSumGpu<T, unsigned long long, data_t>(dev_ctx, x.data<T>(), x.dims(), mask, o, 1.0,  // NOLINT
                                                         IntegerLoad<data_t>());
    }
  });
}

template <typename T, typename Context>
void MeanKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& axis, bool keepdim, DenseTensor* out) {
  const std::vector<bool> mask = funcs::ReduceAxesMask(x.dims(), axis.GetData());
  int64_t count = 1;
  for (int i = 0; i < x.dims().size(); ++i)
    if (mask[i]) count *= x.dims()[i];
  // count == 0: 0 * inf = NaN, the mean of nothing.
  funcs::ReduceSumGpu<T, double, T>(dev_ctx, x.data<T>(), x.dims(), mask, dev_ctx.template Alloc<T>(out),
                                     1.0 / static_cast<double>(count));
}

}  // namespace phi

PD_REGISTER_KERNEL(sum, GPU, ALL_LAYOUT, phi::SumKernel, float, double, phi::dtype::float16, phi::dtype::bfloat16,
                   int32_t, int64_t, bool) {}
PD_REGISTER_KERNEL(mean, GPU, ALL_LAYOUT, phi::MeanKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}

// ---- gradients ----------------------------------------------------------------------------------
// sum_grad / mean_grad on the GPU: out_grad broadcast back over the reduced axes.

namespace phi {
namespace {

template <typename T, typename Context>
void BroadcastReducedGradGpu(const Context& ctx, const DenseTensor& x, const DenseTensor& out_grad,
                             const IntArray& axis, bool is_mean, DenseTensor* x_grad) {
  const funcs::ReducedGradView view = funcs::MakeReducedGradView(x.dims(), axis.GetData(), out_grad.dims());
  const auto l = view.layout;
  const int64_t count = view.count;
  const T* g = out_grad.data<T>();
  const double inv = is_mean ? 1.0 / static_cast<double>(count) : 1.0;
  const DataType dtype = x_grad->dtype() != DataType::UNDEFINED ? x_grad->dtype() : x.dtype();
  PD_VISIT_ALL_TYPES(dtype, "sum_grad", [&] {
    data_t* o = ctx.template Alloc<data_t>(x_grad);
    funcs::ForEachIndex(ctx, l.numel, [=] __device__(int64_t k) {
      const double v = CastValue<double>(g[funcs::BroadcastOffset(l, 0, k)]);
      o[k] = CastValue<data_t>(is_mean ? v * inv : v);
    });
  });
}

}  // namespace

template <typename T, typename Context>
void SumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, const IntArray& axis,
                   bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGradGpu<T>(dev_ctx, x, out_grad, axis, false, x_grad);
}

template <typename T, typename Context>
void MeanGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad, const IntArray& axis,
                    bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGradGpu<T>(dev_ctx, x, out_grad, axis, true, x_grad);
}

}  // namespace phi

PD_REGISTER_KERNEL(sum_grad, GPU, ALL_LAYOUT, phi::SumGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(mean_grad, GPU, ALL_LAYOUT, phi::MeanGradKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}
