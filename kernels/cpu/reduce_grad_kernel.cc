#include "kernels/reduce_kernel.h"

#include <array>
#include <vector>

#include "kernels/cast_kernel.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/eigen.h"
#include "paddle_ops/core/kernel_registry.h"

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
