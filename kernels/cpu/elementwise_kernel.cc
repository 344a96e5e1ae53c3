#include "kernels/elementwise_kernel.h"

#include <algorithm>
#include <array>
#include <type_traits>

#include "kernels/util/broadcast.h"
#include "kernels/util/eigen.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {
namespace {

// The operators work on scalars and on Eigen array expressions alike.
struct AddOp {
  template <typename A, typename B>
  auto operator()(const A& a, const B& b) const { return a + b; }
};
struct SubtractOp {
  template <typename A, typename B>
  auto operator()(const A& a, const B& b) const { return a - b; }
};
struct MultiplyOp {
  template <typename A, typename B>
  auto operator()(const A& a, const B& b) const { return a * b; }
};

// One element: 16-bit floats in float (rounded once), integers in the unsigned type of the
// same width so overflow wraps without UB.
template <typename T, typename Op>
inline T ApplyScalar(const Op& op, T a, T b) {
  if constexpr (funcs::IsLowPrecisionFloat<T>::value) {
    return T(op(static_cast<float>(a), static_cast<float>(b)));
  } else if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(op(static_cast<U>(a), static_cast<U>(b))));
  } else {
    return op(a, b);
  }
}

template <typename T, typename Op>
void BinaryBroadcast(const DenseTensor& x, const DenseTensor& y, DenseTensor* out, T* z,
                     const Op& op) {
  const DDim& out_dims = out->dims();
  if (product(out_dims) == 0) return;
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  const auto layout = funcs::MakeBroadcastLayout<2>(out_dims, {x.dims(), y.dims()});
  funcs::ForEachBroadcastRow(layout, [&](int64_t o, int64_t n, const int64_t* off,
                                         const int64_t* step) {
    const T* pa = a + off[0];
    const T* pb = b + off[1];
    T* pz = z + o;
    if (step[0] && step[1]) {
      if constexpr (funcs::UseEigen<T>::value) {
        funcs::EigenVec<T>(pz, n) = op(funcs::ConstEigenVec<T>(pa, n), funcs::ConstEigenVec<T>(pb, n));
      } else {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) pz[i] = ApplyScalar(op, pa[i], pb[i]);
      }
    } else if (step[0]) {
      const T vb = *pb;
      if constexpr (funcs::UseEigen<T>::value) {
        funcs::EigenVec<T>(pz, n) = op(funcs::ConstEigenVec<T>(pa, n), vb);
      } else {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) pz[i] = ApplyScalar(op, pa[i], vb);
      }
    } else if (step[1]) {
      const T va = *pa;
      if constexpr (funcs::UseEigen<T>::value) {
        funcs::EigenVec<T>(pz, n) = op(va, funcs::ConstEigenVec<T>(pb, n));
      } else {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) pz[i] = ApplyScalar(op, va, pb[i]);
      }
    } else {
      std::fill(pz, pz + n, ApplyScalar(op, *pa, *pb));
    }
  });
}

}  // namespace

template <typename T, typename Context>
void AddKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y, DenseTensor* out) {
  T* z = dev_ctx.template Alloc<T>(out);
  BinaryBroadcast<T>(x, y, out, z, AddOp());
}

template <typename T, typename Context>
void SubtractKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out) {
  T* z = dev_ctx.template Alloc<T>(out);
  BinaryBroadcast<T>(x, y, out, z, SubtractOp());
}

template <typename T, typename Context>
void MultiplyKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                    DenseTensor* out) {
  T* z = dev_ctx.template Alloc<T>(out);
  BinaryBroadcast<T>(x, y, out, z, MultiplyOp());
}

}  // namespace phi

PD_REGISTER_KERNEL(add, CPU, ALL_LAYOUT, phi::AddKernel, float, double, phi::dtype::float16,
                   phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(subtract, CPU, ALL_LAYOUT, phi::SubtractKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
PD_REGISTER_KERNEL(multiply, CPU, ALL_LAYOUT, phi::MultiplyKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16, int32_t, int64_t) {}
