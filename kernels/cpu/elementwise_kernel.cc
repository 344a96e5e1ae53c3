// add / subtract / multiply and their grads on the CPU, with NumPy broadcasting (util/broadcast.h);
// each grad is summed back to its input's shape in a fixed order (ReduceSumCpu).
#include "kernels/elementwise_kernel.h"

#include <algorithm>
#include <array>
#include <memory>
#include <type_traits>
#include <vector>

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

// ---- gradients ----------------------------------------------------------------------------------

namespace phi {
namespace {

// dst (of dst->dims()) = sign * src summed over the dims that were broadcast from dst's shape
// to src_dims. src is contiguous in src_dims; S is T, or the compute type of a product.
// Accumulates in double and rounds once into T.
template <typename T, typename S>
void ReduceGradToShape(const S* src, const DDim& src_dims, double sign, DenseTensor* dst, T* out) {
  const std::vector<bool> mask = funcs::BroadcastReduceMask(src_dims, dst->dims());
  auto load = [&](int64_t i) { return static_cast<double>(static_cast<typename funcs::ComputeType<S>::type>(src[i])); };
  auto segment = [&](int64_t b, int64_t n) { return funcs::SumAsDouble(src + b, n); };
  auto store = [&](int64_t j, double v) { out[j] = static_cast<T>(sign * v); };
  funcs::ReduceSumCpu<double>(src_dims, mask, load, segment, store);
}

// Gradient of a plain pass-through (add's x and y, subtract's x, with sign -1 its y).
template <typename T, typename Context>
void PassThroughGrad(const Context& dev_ctx, const DenseTensor& out_grad, double sign,
                     DenseTensor* grad) {
  T* out = dev_ctx.template Alloc<T>(grad);
  const T* src = out_grad.data<T>();
  if (grad->numel() == out_grad.numel() && sign == 1.0) {
    // Same elements, same order: a copy (covers dims that differ only by size-1 entries).
    funcs::ParallelForChunks(grad->numel(), [&](int64_t b, int64_t e) {
      std::copy(src + b, src + e, out + b);
    });
    return;
  }
  ReduceGradToShape<T>(src, out_grad.dims(), sign, grad, out);
}

// grad = sum over broadcast dims of (out_grad * other) to grad's shape. The product is
// formed in the compute type (float for 16-bit types) and then either rounded straight into
// grad (no dim of grad was broadcast), fed to the reduction as it is loaded (other has out's
// shape), or, when both inputs were broadcast, materialized in out's shape and reduced.
template <typename T, typename Context>
void ProductGrad(const Context& dev_ctx, const DenseTensor& out_grad, const DenseTensor& other,
                 DenseTensor* grad) {
  using C = typename funcs::ComputeType<T>::type;
  T* out = dev_ctx.template Alloc<T>(grad);
  const DDim& out_dims = out_grad.dims();
  const int64_t n = out_grad.numel();
  const T* g = out_grad.data<T>();
  const T* o = other.data<T>();
  if (grad->numel() != n && other.numel() == n) {
    const std::vector<bool> mask = funcs::BroadcastReduceMask(out_dims, grad->dims());
    auto load = [&](int64_t i) {
      return static_cast<double>(static_cast<C>(g[i]) * static_cast<C>(o[i]));
    };
    auto segment = [&](int64_t b, int64_t len) {
      double acc = 0;
      for (int64_t i = b; i < b + len; ++i) acc += load(i);
      return acc;
    };
    auto store = [&](int64_t j, double v) { out[j] = static_cast<T>(v); };
    funcs::ReduceSumCpu<double>(out_dims, mask, load, segment, store);
    return;
  }
  const bool direct = grad->numel() == n;
  std::unique_ptr<C[]> tmp(direct ? nullptr : new C[n]);  // no zero-fill: every slot is written
  C* prod = tmp.get();
  const auto layout = funcs::MakeBroadcastLayout<2>(out_dims, {out_dims, other.dims()});
  funcs::ForEachBroadcastRow(layout, [&](int64_t z, int64_t len, const int64_t* off,
                                         const int64_t* step) {
    const T* pg = g + off[0];  // out_grad is never broadcast: step[0] == 1 unless len == 1
    const T* po = o + off[1];
    const int64_t so = step[1];
    if (direct) {
      T* pz = out + z;
#pragma omp simd
      for (int64_t i = 0; i < len; ++i)
        pz[i] = static_cast<T>(static_cast<C>(pg[i]) * static_cast<C>(po[i * so]));
    } else {
      C* pz = prod + z;
#pragma omp simd
      for (int64_t i = 0; i < len; ++i) pz[i] = static_cast<C>(pg[i]) * static_cast<C>(po[i * so]);
    }
  });
  if (!direct) ReduceGradToShape<T>(prod, out_dims, 1.0, grad, out);
}

}  // namespace

template <typename T, typename Context>
void AddGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                   const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad) {
  if (x_grad) PassThroughGrad<T>(dev_ctx, out_grad, 1.0, x_grad);
  if (y_grad) PassThroughGrad<T>(dev_ctx, out_grad, 1.0, y_grad);
}

template <typename T, typename Context>
void SubtractGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                        const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad) {
  if (x_grad) PassThroughGrad<T>(dev_ctx, out_grad, 1.0, x_grad);
  if (y_grad) PassThroughGrad<T>(dev_ctx, out_grad, -1.0, y_grad);
}

template <typename T, typename Context>
void MultiplyGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& y,
                        const DenseTensor& out_grad, DenseTensor* x_grad, DenseTensor* y_grad) {
  if (x_grad) ProductGrad<T>(dev_ctx, out_grad, y, x_grad);
  if (y_grad) ProductGrad<T>(dev_ctx, out_grad, x, y_grad);
}

}  // namespace phi

PD_REGISTER_KERNEL(add_grad, CPU, ALL_LAYOUT, phi::AddGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(subtract_grad, CPU, ALL_LAYOUT, phi::SubtractGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
PD_REGISTER_KERNEL(multiply_grad, CPU, ALL_LAYOUT, phi::MultiplyGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
