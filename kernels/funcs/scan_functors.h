// The scan operators: associative combine functions over small states, written once for
// host and device. A scan op is a struct with
//   using State = ...;
//   State Identity() const;
//   State Load(const ScanPos&) const;             // the element at a position
//   State Combine(const State& earlier, const State& later) const;
//   void Store(const ScanPos&, const State&) const;  // write the (inclusive or exclusive) prefix
// The engines (funcs/cpu/scan_cpu.h and funcs/gpu/scan_dispatch.cuh) only decide the order of Combine calls.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "paddle_ops/common/macros.h"

namespace phi {
namespace funcs {

// An exactly-rounded-ish sum: hi + lo carries the rounding error of every addition
// (Knuth's TwoSum), so float64 cumsum and logcumsumexp lose nothing to accumulation.
template <typename Acc>
struct CompensatedSum {
  Acc hi;
  Acc lo;
  HOSTDEVICE static CompensatedSum Zero() { return {Acc(0), Acc(0)}; }
  HOSTDEVICE static CompensatedSum Of(Acc v) { return {v, Acc(0)}; }
  HOSTDEVICE Acc value() const { return hi + lo; }
};

template <typename Acc>
HOSTDEVICE inline CompensatedSum<Acc> Add(const CompensatedSum<Acc>& a, const CompensatedSum<Acc>& b) {
  const Acc s = a.hi + b.hi;
  const Acc bb = s - a.hi;
  const Acc err = (a.hi - (s - bb)) + (b.hi - bb);
  // Non-finite sums (inf, nan) make err NaN; the sum itself is then the answer.
  if (!(err == err) || !(s - s == s - s)) return {s, Acc(0)};
  return {s, err + a.lo + b.lo};
}

// hi + x with the rounding error added into lo (Knuth's TwoSum), no inf/NaN handling: the
// step of the float-float and double-double running sums of the fast GPU tiles.
template <typename F>
HOSTDEVICE inline void TwoSumInto(F* hi, F* lo, F x) {
  const F s = *hi + x;
  const F bb = s - *hi;
  const F err = (*hi - (s - bb)) + (x - bb);
  *hi = s;
  *lo += err;
}
// (hi, lo) + (bhi, blo) the same way.
template <typename F>
HOSTDEVICE inline void TwoSumPairInto(F* hi, F* lo, F bhi, F blo) {
  TwoSumInto(hi, lo, bhi);
  *lo += blo;
}

// Rounding a compensated double sum hi + lo once to the output type (docs/spec.md §2). The
// double nearest hi + lo, rounded again to float or a 16-bit type, can land on the wrong side
// of a tie (double rounding); rounding to odd first cannot: RoundToOdd gives hi + lo itself
// when it is a double, else the one of its two neighbouring doubles whose last bit is 1, and a
// value rounded to odd with at least two more bits than the target rounds to the target
// exactly as the unrounded value would. float16 and bfloat16 round from float, so they go
// through an odd float too (RoundToOddFloat).
HOSTDEVICE inline double RoundToOdd(double hi, double lo) {
  const double s = hi + lo;
  const double bb = s - hi;
  const double err = (hi - (s - bb)) + (lo - bb);  // hi + lo - s, exactly (TwoSum)
  if (!(err != 0.0) || !(s - s == 0.0)) return s;  // exact, or inf / NaN
  uint64_t bits;
  memcpy(&bits, &s, sizeof(bits));
  if (bits & 1u) return s;
  // s is not 0 (a zero sum is exact): one step away from zero when err has s's sign, else toward.
  bits = (err > 0.0) == (s > 0.0) ? bits + 1u : bits - 1u;
  double r;
  memcpy(&r, &bits, sizeof(r));
  return r;
}
HOSTDEVICE inline float RoundToOddFloat(double d) {
  const float f = static_cast<float>(d);
  const double back = static_cast<double>(f);
  if (back == d || !(d - d == 0.0)) return f;  // exact, or inf / NaN
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  if (bits & 1u) return f;
  // f is +-0, +-inf (d beyond the float range) or a float: away from zero when |d| > |f|.
  bits = (d > back) == (d > 0.0) ? bits + 1u : bits - 1u;
  float r;
  memcpy(&r, &bits, sizeof(r));
  return r;
}
// hi + lo rounded once to T (float, double, float16, bfloat16).
template <typename T>
HOSTDEVICE inline T RoundCompensated(double hi, double lo) {
  if constexpr (std::is_same<T, double>::value) {
    return hi + lo;
  } else if constexpr (std::is_same<T, float>::value) {
    return static_cast<float>(RoundToOdd(hi, lo));
  } else {
    return static_cast<T>(RoundToOddFloat(RoundToOdd(hi, lo)));
  }
}

template <typename Acc>
HOSTDEVICE inline CompensatedSum<Acc> Scale(const CompensatedSum<Acc>& a, Acc f) {
  const Acc p = a.hi * f;
  const Acc e = std::fma(a.hi, f, -p);  // exact rounding error of the product
  if (!(e == e)) return {p, Acc(0)};
  return {p, e + a.lo * f};
}

// Sum operator (cumsum). Acc is double for floating types (one rounding when stored) and
// the type itself for integers (exact; overflow wraps as two's complement).
template <typename Acc>
struct SumCombine {
  using State = CompensatedSum<Acc>;
  HOSTDEVICE static State Identity() { return State::Zero(); }
  HOSTDEVICE static State Combine(const State& a, const State& b) { return Add(a, b); }
};

// Integer sums need no compensation and must not overflow as signed (UB): add as unsigned.
template <typename T>
struct IntSumCombine {
  using State = T;
  HOSTDEVICE static State Identity() { return T(0); }
  HOSTDEVICE static State Combine(State a, State b) {
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  }
};

// log-sum-exp state: value = m + log(s), with m the running max and s = sum exp(x - m)
// (compensated). Combining rescales the smaller side by exp(m_small - m_big) <= 1, so
// nothing overflows and no block-wide max makes small terms underflow early.
template <typename Acc>
struct LogSumExpState {
  Acc m;
  CompensatedSum<Acc> s;
};

template <typename Acc>
struct LogAddExpCombine {
  using State = LogSumExpState<Acc>;
  HOSTDEVICE static State Identity() {
    return {-std::numeric_limits<Acc>::infinity(), CompensatedSum<Acc>::Zero()};
  }
  HOSTDEVICE static State Of(Acc x) {
    if (x == -std::numeric_limits<Acc>::infinity()) return Identity();
    return {x, CompensatedSum<Acc>::Of(Acc(1))};
  }
  HOSTDEVICE static State Combine(const State& a, const State& b) {
    if (a.m != a.m || b.m != b.m) {  // NaN poisons the rest of the row
      return {std::numeric_limits<Acc>::quiet_NaN(), CompensatedSum<Acc>::Of(Acc(1))};
    }
    if (b.m == -std::numeric_limits<Acc>::infinity()) return a;
    if (a.m == -std::numeric_limits<Acc>::infinity()) return b;
    if (a.m == b.m) return {a.m, Add(a.s, b.s)};  // also +inf with +inf
    if (a.m > b.m) return {a.m, Add(a.s, Scale(b.s, std::exp(b.m - a.m)))};
    return {b.m, Add(Scale(a.s, std::exp(a.m - b.m)), b.s)};
  }
  HOSTDEVICE static Acc Value(const State& st) {
    if (st.m == -std::numeric_limits<Acc>::infinity()) return st.m;
    if (st.m == std::numeric_limits<Acc>::infinity() || st.m != st.m) return st.m;
    return st.m + std::log(st.s.value());
  }
};

// First-order linear recurrence y = a * y_prev + b, as pairs (a, b):
// (a1, b1) then (a2, b2) = (a1*a2, a2*b1 + b2). Identity (1, 0).
template <typename Acc>
struct GatedState {
  Acc a;
  Acc b;
};
template <typename Acc>
struct LinearRecurrenceCombine {
  using State = GatedState<Acc>;
  HOSTDEVICE static State Identity() { return {Acc(1), Acc(0)}; }
  HOSTDEVICE static State Combine(const State& e, const State& l) {
    return {e.a * l.a, l.a * e.b + l.b};
  }
};

// Fill-forward on source indices (right_flood, repeat_interleave's index flood): the later
// element wins unless it is a hole (-1), so a prefix is the last non-hole source before it.
// Associative and idempotent (docs/spec.md §4: x (+) y = y if y is not a hole else x); identity -1.
// Sources increase along a forward scan and decrease along a reverse one; the rule needs
// neither order.
struct FloodCombine {
  using State = int64_t;
  HOSTDEVICE static State Identity() { return -1; }
  HOSTDEVICE static State Combine(State earlier, State later) { return later < 0 ? earlier : later; }
};

// Segmented sum: `reset` marks an element that starts a new segment in scan order (nothing
// scanned before it flows past it). (s1, r1) then (s2, r2) = (r2 ? s2 : s1 + s2, r1 | r2).
// The sums of right_flood's and repeat_interleave's gradients: exact 0/1 gating (a reset
// drops what came before instead of multiplying it by 0, so an inf or NaN in one segment
// never reaches another).
template <typename Acc>
struct SegmentedSum {
  Acc sum;
  bool reset;
};
template <typename Acc>
struct SegmentedSumCombine {
  using State = SegmentedSum<Acc>;
  HOSTDEVICE static State Identity() { return {Acc(0), false}; }
  HOSTDEVICE static State Combine(const State& e, const State& l) {
    return {l.reset ? l.sum : e.sum + l.sum, e.reset || l.reset};
  }
};

// The accumulation type of a floating element type (double on the CPU: float32 results
// round once from double, which is what keeps 2^26-long rows within 2 ulp).
template <typename T>
struct CpuAccType {
  using type = double;
};

}  // namespace funcs
}  // namespace phi
