// sum and mean and their grads on the CPU: threaded segment sums in a fixed order
// (util/broadcast.h, ReduceSumCpu), grads broadcast back over the reduced axes.
#include "kernels/reduce_kernel.h"

#include <array>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cast_kernel.h"
#include "kernels/impl/reduce_kernel_impl.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/eigen.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {
namespace {

// sum of x (T) into out (OutT). Float into float accumulates in double; anything else in
// 64-bit integers (unsigned, so an overflowing sum wraps instead of being UB), a float x
// being cast to OutT element by element first (NumPy's sum(dtype=int)).
template <typename T, typename OutT>
void SumInto(const DenseTensor& x, const std::vector<bool>& mask, OutT* out) {
  constexpr bool kFloatAcc = funcs::IsFloatLike<T>::value && funcs::IsFloatLike<OutT>::value;
  using Acc = typename std::conditional<kFloatAcc, double, uint64_t>::type;
  const T* px = x.data<T>();
  auto load = [&](int64_t i) -> Acc {
    if constexpr (kFloatAcc) {
      return static_cast<double>(static_cast<typename funcs::ComputeType<T>::type>(px[i]));
    } else if constexpr (funcs::IsFloatLike<T>::value) {
      return static_cast<uint64_t>(static_cast<int64_t>(CastValue<OutT>(px[i])));
    } else {
      return static_cast<uint64_t>(static_cast<int64_t>(px[i]));
    }
  };
  auto segment = [&](int64_t b, int64_t n) -> Acc {
    if constexpr (kFloatAcc && funcs::UseEigen<T>::value) {
      return funcs::EigenSumAsDouble(px + b, n);
    } else {
      Acc acc = Acc(0);
      for (int64_t i = 0; i < n; ++i) acc += load(b + i);
      return acc;
    }
  };
  auto store = [&](int64_t j, Acc v) {
    if constexpr (kFloatAcc) {
      out[j] = CastValue<OutT>(v);
    } else {
      out[j] = CastValue<OutT>(static_cast<int64_t>(v));
    }
  };
  funcs::ReduceSumCpu<Acc>(x.dims(), mask, load, segment, store);
}

}  // namespace

template <typename T, typename Context>
void SumKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& axis,
               DataType out_dtype, bool keepdim, DenseTensor* out) {
  const DataType dtype = SumOutDtype(x, out_dtype, *out);
  const std::vector<bool> mask = funcs::ReduceAxesMask(x.dims(), axis.GetData());
  PD_VISIT_ALL_TYPES(dtype, "sum", [&] {
    data_t* o = dev_ctx.template Alloc<data_t>(out);
    SumInto<T, data_t>(x, mask, o);
  });
}

template <typename T, typename Context>
void MeanKernel(const Context& dev_ctx, const DenseTensor& x, const IntArray& axis, bool keepdim,
                DenseTensor* out) {
  T* o = dev_ctx.template Alloc<T>(out);
  const std::vector<bool> mask = funcs::ReduceAxesMask(x.dims(), axis.GetData());
  int64_t count = 1;
  for (int i = 0; i < x.dims().size(); ++i)
    if (mask[i]) count *= x.dims()[i];
  const T* px = x.data<T>();
  // count == 0 gives 0/0 = NaN, the mean of nothing.
  const double count_d = static_cast<double>(count);
  auto load = [&](int64_t i) {
    return static_cast<double>(static_cast<typename funcs::ComputeType<T>::type>(px[i]));
  };
  auto segment = [&](int64_t b, int64_t n) { return funcs::SumAsDouble(px + b, n); };
  auto store = [&](int64_t j, double v) { o[j] = static_cast<T>(v / count_d); };
  funcs::ReduceSumCpu<double>(x.dims(), mask, load, segment, store);
}

}  // namespace phi

PD_REGISTER_KERNEL(sum, CPU, ALL_LAYOUT, phi::SumKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t, bool) {}
PD_REGISTER_KERNEL(mean, CPU, ALL_LAYOUT, phi::MeanKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16) {}

// ---- gradients ----------------------------------------------------------------------------------

namespace phi {
namespace {

// x_grad[i] = out_grad[the output element x[i] was reduced into] (divided by `count` for
// mean), rounded once into Out. `layout` broadcasts out_grad's keepdim view to x's dims.
template <typename T, typename Out>
void WriteReducedGrad(const funcs::BroadcastLayout<1>& layout, const T* g, bool is_mean,
                      int64_t count, Out* out) {
  using C = typename funcs::ComputeType<T>::type;
  // Divide in double (count may exceed float's exact integers).
  const double c = static_cast<double>(count);
  funcs::ForEachBroadcastRow(layout, [&](int64_t o, int64_t n, const int64_t* off,
                                         const int64_t* step) {
    const T* pg = g + off[0];
    const int64_t s = step[0];
    Out* pz = out + o;
    if (is_mean) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i)
        pz[i] = CastValue<Out>(static_cast<double>(static_cast<C>(pg[i * s])) / c);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) pz[i] = CastValue<Out>(pg[i * s]);
    }
  });
}

// Shared by sum_grad and mean_grad. out_grad is viewed with keepdim dims (the reduced axes
// of x set to 1), which is its own layout whether or not keepdim was set; x_grad is written
// in its own dtype.
template <typename T, typename Context>
void BroadcastReducedGrad(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                          const IntArray& axis, bool is_mean, DenseTensor* x_grad) {
  const funcs::ReducedGradView view = funcs::MakeReducedGradView(x.dims(), axis.GetData(), out_grad.dims());
  const auto& layout = view.layout;
  const int64_t count = view.count;
  const T* g = out_grad.data<T>();
  const DataType dtype = x_grad->dtype() != DataType::UNDEFINED ? x_grad->dtype() : x.dtype();
  PD_VISIT_ALL_TYPES(dtype, "sum_grad", [&] {
    WriteReducedGrad<T, data_t>(layout, g, is_mean, count, dev_ctx.template Alloc<data_t>(x_grad));
  });
}

}  // namespace

template <typename T, typename Context>
void SumGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                   const IntArray& axis, bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGrad<T>(dev_ctx, x, out_grad, axis, false, x_grad);
}

template <typename T, typename Context>
void MeanGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                    const IntArray& axis, bool keepdim, DenseTensor* x_grad) {
  BroadcastReducedGrad<T>(dev_ctx, x, out_grad, axis, true, x_grad);
}

}  // namespace phi

PD_REGISTER_KERNEL(sum_grad, CPU, ALL_LAYOUT, phi::SumGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(mean_grad, CPU, ALL_LAYOUT, phi::MeanGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
