// The bodies of scan_carry.h's ScanWithCarry / ScanLineTotals, written once for both devices: the
// device file defines CarryDevice<Context> (ToStates: wire numbers to states; ToWire: back, both
// in the context's memory) and includes this header after the op's tiles.
#pragma once

#include <type_traits>

#include "kernels/funcs/scan.h"
#include "kernels/funcs/scan_carry.h"
#include "kernels/impl/cum_scan_ops.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {
namespace funcs {

template <typename Context>
struct CarryDevice;

// Scratch of n states in the context's memory, held by `t`.
template <typename State, typename Context>
State* CarryStates(const Context& ctx, DenseTensor* t, int64_t n) {
  *t = DenseTensor(DataType::UINT8, DDim({n * static_cast<int64_t>(sizeof(State))}));
  return reinterpret_cast<State*>(ctx.Alloc(t, DataType::UINT8));
}

template <typename Context, typename Op>
void CarryScanRun(const Context& ctx, const CarryScanCall& c, const Op& op, bool totals) {
  using State = typename Op::State;
  using Wire = typename CarryWire<State>::type;
  const int64_t lines = c.layout.outer * c.layout.inner;
  DenseTensor held;
  if (totals) {
    if (lines == 0) return;
    State* st = CarryStates<State>(ctx, &held, lines);
    ScanTotals(ctx, c.layout, c.reverse, op, st);
    CarryDevice<Context>::ToWire(ctx, st, static_cast<Wire*>(c.out), lines);
    return;
  }
  if (c.layout.numel() == 0) return;
  State* init = nullptr;
  if (c.carry != nullptr) {
    init = CarryStates<State>(ctx, &held, lines);
    CarryDevice<Context>::ToStates(ctx, static_cast<const Wire*>(c.carry), init, lines);
  }
  ScanFrom(ctx, c.layout, c.exclusive, c.reverse, op, init);
}

template <typename T, typename Context>
void CarryScanTyped(const Context& ctx, const CarryScanCall& c, bool totals) {
  if (c.op == CarryScanOp::kLogcumsumexp) {
    if constexpr (!std::is_integral<T>::value) {
      LogcumsumexpOp<T, typename CumAccType<T, Context>::type> op;
      op.x = static_cast<const T*>(c.x);
      op.out = static_cast<T*>(c.out);
      return CarryScanRun(ctx, c, op, totals);
    }
  } else if constexpr (std::is_integral<T>::value) {
    CumsumIntOp<T> op;
    op.x = static_cast<const T*>(c.x);
    op.out = static_cast<T*>(c.out);
    return CarryScanRun(ctx, c, op, totals);
  } else {
    CumsumFloatOp<T, typename CumAccType<T, Context>::type> op;
    op.x = static_cast<const T*>(c.x);
    op.out = static_cast<T*>(c.out);
    return CarryScanRun(ctx, c, op, totals);
  }
  PADDLE_THROW(errors::InvalidArgument("logcumsumexp with a carry takes floating types only"));
}

template <typename Context>
void CarryScanDispatch(const Context& ctx, const CarryScanCall& c, bool totals) {
  switch (c.dtype) {
    case DataType::FLOAT32: return CarryScanTyped<float>(ctx, c, totals);
    case DataType::FLOAT64: return CarryScanTyped<double>(ctx, c, totals);
    case DataType::FLOAT16: return CarryScanTyped<dtype::float16>(ctx, c, totals);
    case DataType::BFLOAT16: return CarryScanTyped<dtype::bfloat16>(ctx, c, totals);
    case DataType::INT32: return CarryScanTyped<int32_t>(ctx, c, totals);
    case DataType::INT64: return CarryScanTyped<int64_t>(ctx, c, totals);
    default: PADDLE_THROW(errors::InvalidArgument("the scans with a carry take float16, bfloat16, float32, float64, "
                                                  "int32 and int64"));
  }
}

}  // namespace funcs
}  // namespace phi
