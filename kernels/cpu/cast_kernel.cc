#include "kernels/cast_kernel.h"

#include <algorithm>
#include <type_traits>

#include "kernels/funcs/simd/convert.h"
#include "kernels/util/broadcast.h"
#include "kernels/util/cast_value.h"
#include "paddle_ops/core/kernel_registry.h"

namespace phi {
namespace {

// A 16-bit floating type on one side: through float32, the 16-bit side by the run-time
// dispatched vector conversions (kernels/funcs/simd/convert.h, bitwise the scalar ones), the
// other by CastValue. CastValue's own rule for these pairs goes through float32 the same way
// (kernels/util/cast_value.h), so the bits are the same.
template <typename In, typename Out>
void CastThroughFloat(const In* x, Out* out, int64_t n) {
  if constexpr (std::is_same<In, float>::value || std::is_same<Out, float>::value) {
    funcs::simd::Convert(x, out, n);
  } else {
    constexpr int64_t kBlock = 1024;
    float buf[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      if constexpr (IsHalfFloat<In>::value) {
        funcs::simd::Convert(x + i, buf, m);
      } else {
        for (int64_t j = 0; j < m; ++j) buf[j] = CastValue<float>(x[i + j]);
      }
      if constexpr (IsHalfFloat<Out>::value) {
        funcs::simd::Convert(buf, out + i, m);
      } else {
        for (int64_t j = 0; j < m; ++j) out[i + j] = CastValue<Out>(buf[j]);
      }
    }
  }
}

// out = CastValue<Out>(x) elementwise; a plain copy when the types agree.
template <typename In, typename Out>
void CastData(const In* x, Out* out, int64_t n) {
  funcs::ParallelForChunks(n, [&](int64_t b, int64_t e) {
    if constexpr (std::is_same<In, Out>::value) {
      std::copy(x + b, x + e, out + b);
    } else if constexpr (IsHalfFloat<In>::value || IsHalfFloat<Out>::value) {
      CastThroughFloat(x + b, out + b, e - b);
    } else {
#pragma omp simd
      for (int64_t i = b; i < e; ++i) out[i] = CastValue<Out>(x[i]);
    }
  });
}

}  // namespace

template <typename T, typename Context>
void CastKernel(const Context& dev_ctx, const DenseTensor& x, DataType dtype, DenseTensor* out) {
  const T* in = x.data<T>();
  PD_VISIT_ALL_TYPES(dtype, "cast", [&] {
    data_t* o = dev_ctx.template Alloc<data_t>(out);
    CastData<T, data_t>(in, o, x.numel());
  });
}

template <typename T, typename Context>
void CastGradKernel(const Context& dev_ctx, const DenseTensor& x, const DenseTensor& out_grad,
                    DenseTensor* x_grad) {
  const T* in = out_grad.data<T>();
  const DataType dtype = x_grad->dtype() != DataType::UNDEFINED ? x_grad->dtype() : x.dtype();
  PD_VISIT_ALL_TYPES(dtype, "cast_grad", [&] {
    data_t* o = dev_ctx.template Alloc<data_t>(x_grad);
    CastData<T, data_t>(in, o, out_grad.numel());
  });
}

}  // namespace phi

PD_REGISTER_KERNEL(cast, CPU, ALL_LAYOUT, phi::CastKernel, bool, uint8_t, int8_t, int16_t,
                   int32_t, int64_t, phi::dtype::float16, phi::dtype::bfloat16, float, double) {}
PD_REGISTER_KERNEL(cast_grad, CPU, ALL_LAYOUT, phi::CastGradKernel, float, double,
                   phi::dtype::float16, phi::dtype::bfloat16) {}
