// sum and mean on the GPU (deterministic block reductions, util/reduce_gpu.cuh).
#include "kernels/impl/reduce_kernel_impl.h"
#include "kernels/reduce_kernel.h"
#include "kernels/util/broadcast.h"
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
