// The scan ops of right_flood and repeat_interleave (docs/spec.md §4, seed 003): element loads and
// stores around the fill-forward and segmented-sum operators of funcs/scan_functors.h.
// Host/device code, shared by the CPU and GPU kernels.
//
// right_flood: y[i] = x[t(i)], t(i) = the last j <= i (in scan order) where x[j] is not a
// hole. The scan state is the flat offset of that source (-1: none yet), so a scan moves 8
// bytes per element whatever T is, and the value is read back at the source when stored
// (for a run of holes that is the same, cached, element again and again).
// Its gradient: x_grad[j] = the sum of y_grad over the run of outputs filled from j, i.e. a
// segmented sum scanned against the forward direction, a segment starting after every
// non-hole (no atomics, so the result does not depend on the run).
//
// repeat_interleave with a tensor of counts (the seed's stream decompaction): the kernels
// (cpu/repeat_interleave_steps.h, gpu/repeat_interleave_steps.cuh) take
//   starts = exclusive cumsum of the counts                        (RepeatStartsOp)
// and each output slice finds its source by a search over the starts; the gradient sums
// out_grad over each [starts[j], starts[j] + r_j) in a fixed order. No per-output scratch
// (peak = output + O(input), issue 17 item 10). The marker formulation below
// (RepeatGatherOp / MarkerFloodOp / RepeatSegmentSumOp: scatter a marker at each start, flood
// it, gather in the store) is what the kernels used before; it stays as an engine op that
// test_flood_engine.cc checks and flood_tiles.cuh can run, not on the op's path.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "kernels/funcs/scan_functors.h"
#include "kernels/funcs/scan_layout.h"
#include "kernels/util/fast_divmod.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/data_type.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/float16.h"

namespace phi {

// What right_flood fills: zeros (the seed) or NaN (pandas' ffill). InferMeta has checked the
// string; an integer x only takes "zero".
enum class FloodHole { kZero, kNan };

inline FloodHole ParseFloodHole(const std::string& hole) {
  if (hole == "zero") return FloodHole::kZero;
  if (hole == "nan") return FloodHole::kNan;
  PADDLE_THROW(errors::InvalidArgument("right_flood: hole must be 'zero' or 'nan', but got '%s'", hole));
}

// repeat_interleave's counts are int32 or int64 (RepeatInterleaveWithTensorIndexInferMeta
// checks): f(R{}) with R their C++ type.
template <typename F>
void VisitRepeatsType(DataType dtype, F&& f) {
  if (dtype == DataType::INT32) {
    f(int32_t{});
  } else if (dtype == DataType::INT64) {
    f(int64_t{});
  } else {
    PADDLE_THROW(errors::InvalidType("repeat_interleave: repeats must be int32 or int64, but got %s",
                                     DataTypeToString(dtype)));
  }
}

inline void CheckRepeatCount(int64_t j, int64_t r) {
  PADDLE_ENFORCE(r >= 0, errors::InvalidArgument(
                             "repeat_interleave: repeats must be non-negative, but repeats[%d] is %d", j, r));
}

// The sum of the counts (the output length along the axis) must fit int64.
[[noreturn]] inline void ThrowRepeatTotalOverflow() {
  PADDLE_THROW(errors::InvalidArgument(
      "repeat_interleave: the sum of repeats is more than 2**63 - 1 (the output length along the axis "
      "overflows int64)"));
}

// output_size (>= 0) must be the sum of the counts where that sum is known.
inline void CheckRepeatOutputSize(int64_t output_size, int64_t total) {
  PADDLE_ENFORCE(output_size < 0 || output_size == total,
                 errors::InvalidArgument("repeat_interleave: output_size must be the sum of repeats (%d), but got %d",
                                         total, output_size));
}

// The output dims of repeat_interleave with M elements along `axis`, given the dims its InferMeta
// set (x's, 1-D for a 0-D x, with the axis length possibly unknown).
inline DDim RepeatOutputDims(DDim dims, int axis, int64_t M) {
  dims[axis < 0 ? axis + dims.size() : axis] = M;
  return dims;
}

namespace funcs {

// Hole tests on the element's own value: +0 and -0 are zero holes; any NaN is a NaN hole.
// Integers have no NaN.
HOSTDEVICE inline bool IsFloodHole(float v, FloodHole h) { return h == FloodHole::kNan ? v != v : v == 0.f; }
HOSTDEVICE inline bool IsFloodHole(double v, FloodHole h) { return h == FloodHole::kNan ? v != v : v == 0.0; }
HOSTDEVICE inline bool IsFloodHole(int32_t v, FloodHole) { return v == 0; }
HOSTDEVICE inline bool IsFloodHole(int64_t v, FloodHole) { return v == 0; }
HOSTDEVICE inline bool IsFloodHole(dtype::float16 v, FloodHole h) {
  const unsigned b = v.x & 0x7fffu;
  return h == FloodHole::kNan ? b > 0x7c00u : b == 0;
}
HOSTDEVICE inline bool IsFloodHole(dtype::bfloat16 v, FloodHole h) {
  const unsigned b = v.x & 0x7fffu;
  return h == FloodHole::kNan ? b > 0x7f80u : b == 0;
}

// The axis index (offset / inner) % length of a flat offset in a [outer, length, inner] view.
struct AxisIndexOf {
  FastDivMod inner;
  FastDivMod length;
  AxisIndexOf() = default;
  explicit AxisIndexOf(const ScanLayout& l) : inner(l.inner > 0 ? l.inner : 1), length(l.length > 0 ? l.length : 1) {}
  HOSTDEVICE int64_t operator()(int64_t offset) const { return length.Mod(inner.Div(offset)); }
};

// ---- right_flood ---------------------------------------------------------------------------

template <typename T>
struct RightFloodOp : FloodCombine {
  const T* x;
  T* out;
  int64_t* index;  // null unless return_index
  FloodHole hole;
  AxisIndexOf axis;

  HOSTDEVICE State Load(const ScanPos& p) const { return IsFloodHole(x[p.offset], hole) ? -1 : p.offset; }
  // A leading hole keeps its own value (bit for bit: -0.0 and NaN payloads too), index -1.
  HOSTDEVICE void Store(const ScanPos& p, State src) const {
    out[p.offset] = x[src < 0 ? p.offset : src];
    if (index != nullptr) index[p.offset] = src < 0 ? -1 : axis(src);
  }
};

// The gradient's accumulation type: float64 (a run can be as long as the row).
template <typename T>
struct FloodGradAcc {
  using type = double;
};

// The gradient of a flood (right_flood's, and repeat_interleave's, whose gather is a flood of
// slice indices): a segmented sum of out_grad scanned against the forward direction. A step's
// run continues into the step before it in this order (the one after it in the forward order,
// p.prev) unless Derived::StartsRun(p.prev), an element the forward copied from, which has its
// own run. At such an element the scan holds the sum of its run; Derived::Store takes it there.
template <typename Derived, typename T, typename Acc>
struct FloodGradSumOp : SegmentedSumCombine<Acc> {
  using State = SegmentedSum<Acc>;
  const T* out_grad;
  T* x_grad;

  HOSTDEVICE State Load(const ScanPos& p) const {
    return {static_cast<Acc>(out_grad[p.offset]), p.first || static_cast<const Derived*>(this)->StartsRun(p.prev)};
  }
};

// Every non-hole starts a run.
template <typename T, typename Acc>
struct RightFloodGradOp : FloodGradSumOp<RightFloodGradOp<T, Acc>, T, Acc> {
  using State = SegmentedSum<Acc>;
  const T* x;
  FloodHole hole;

  HOSTDEVICE bool StartsRun(int64_t offset) const { return !IsFloodHole(x[offset], hole); }
  // Holes feed no output (a leading hole's output is its own value, a constant hole).
  HOSTDEVICE void Store(const ScanPos& p, const State& s) const {
    this->x_grad[p.offset] = IsFloodHole(x[p.offset], hole) ? static_cast<T>(0.0f) : static_cast<T>(s.sum);
  }
};

// ---- repeat_interleave with a tensor of counts -------------------------------------------------

// starts[j] = r_0 + ... + r_{j-1} (an exclusive scan), in int64 whatever the counts' type. A
// single count is broadcast to every j. On the GPU the last element also writes the total, and
// a negative count or an overflowing sum raises a flag (summary[0], summary[2]; every writer of
// a flag writes the same value), so one small copy tells the host all three.
template <typename R>
struct RepeatStartsOp : IntSumCombine<int64_t> {
  const R* repeats;
  bool broadcast;
  int64_t n;
  int64_t* starts;
  // null: not wanted (the CPU checks the counts and their sum on the host first). Else 3 int64:
  // a negative count seen, the total, and an overflow seen. The sums wrap (mod 2**64); with
  // counts >= 0 the first start or total past 2**63 - 1 is below 2**64, so it reads negative.
  int64_t* summary;

  HOSTDEVICE int64_t Count(int64_t j) const { return static_cast<int64_t>(repeats[broadcast ? 0 : j]); }
  HOSTDEVICE int64_t Load(const ScanPos& p) const { return Count(p.offset); }
  HOSTDEVICE void Store(const ScanPos& p, int64_t s) const {
    starts[p.offset] = s;
    if (summary == nullptr) return;
    const int64_t r = Count(p.offset);
    const int64_t end = static_cast<int64_t>(static_cast<uint64_t>(s) + static_cast<uint64_t>(r));
    if (r < 0) summary[0] = 1;
    if (s < 0 || end < 0) summary[2] = 1;
    if (p.offset == n - 1) summary[1] = end;
  }
};

// Where output element `offset` of a [outer, M, inner] view reads x [outer, n, inner], given
// the source index j along the axis.
struct RepeatIndex {
  FastDivMod inner;    // inner
  FastDivMod length;   // M
  FastDivMod slab;     // M * inner: offset -> outer index
  int64_t n = 0;

  RepeatIndex() = default;
  RepeatIndex(int64_t inner_, int64_t M, int64_t n_)
      : inner(inner_ > 0 ? inner_ : 1), length(M > 0 ? M : 1), slab(M * inner_ > 0 ? M * inner_ : 1), n(n_) {}
  HOSTDEVICE int64_t Axis(int64_t offset) const { return length.Mod(inner.Div(offset)); }
  HOSTDEVICE int64_t Source(int64_t offset, int64_t j) const {
    const int64_t o = slab.Div(offset);
    const int64_t in = offset - inner.Div(offset) * static_cast<int64_t>(inner.divisor);
    return (o * n + j) * static_cast<int64_t>(inner.divisor) + in;
  }
};

// The index flood over the output positions, storing the gathered element: marker[i] = j at
// the first output of x's j-th slice along the axis, -1 elsewhere.
template <typename T>
struct RepeatGatherOp : FloodCombine {
  const int64_t* marker;
  const T* x;
  T* out;
  RepeatIndex index;

  HOSTDEVICE State Load(const ScanPos& p) const { return marker[index.Axis(p.offset)]; }
  // j < 0 only for outputs before the first marker, which valid counts never leave: the
  // sizes are checked, except an unchecked output_size on the GPU (documented); write 0.
  HOSTDEVICE void Store(const ScanPos& p, State j) const {
    out[p.offset] = j < 0 ? static_cast<T>(0.0f) : x[index.Source(p.offset, j)];
  }
};

// The index flood alone, in place: marker[i] becomes the slice output i copies (each element
// is read before it is written, by the same step of the scan). The GPU kernel then gathers
// whole rows of `inner` elements with coalesced loads.
struct MarkerFloodOp : FloodCombine {
  int64_t* marker;
  HOSTDEVICE State Load(const ScanPos& p) const { return marker[p.offset]; }
  HOSTDEVICE void Store(const ScanPos& p, State j) const { marker[p.offset] = j; }
};

// The gradient, scanned from the end of the axis: every marker starts a run (in that order a
// segment starts after it); at a marker j the scan holds the sum over j's outputs, stored to
// x_grad at j. x_grad of a zero count stays as the kernel zeroed it.
template <typename T, typename Acc>
struct RepeatSegmentSumOp : FloodGradSumOp<RepeatSegmentSumOp<T, Acc>, T, Acc> {
  using State = SegmentedSum<Acc>;
  const int64_t* marker;
  RepeatIndex index;

  HOSTDEVICE bool StartsRun(int64_t offset) const { return marker[index.Axis(offset)] >= 0; }
  HOSTDEVICE void Store(const ScanPos& p, const State& s) const {
    const int64_t j = marker[index.Axis(p.offset)];
    if (j >= 0) this->x_grad[index.Source(p.offset, j)] = static_cast<T>(s.sum);
  }
};

}  // namespace funcs
}  // namespace phi
