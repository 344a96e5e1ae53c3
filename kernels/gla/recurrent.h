// gla (docs/spec.md §5): the layout of one head and the recurrent form, the reference kernel.
// Host/device code: the CPU kernels run the recurrent form per head (the float64 path and the
// reference the chunked kernels are tested against), the GPU runs it for float64 and for
// shapes its chunked kernels do not take.
//
//   h_t = h_{t-1} * exp(gk_t)[:, None] + k_t ⊗ v_t,   o_t = (q_t * scale) @ h_t
//
// Backward, with dS_t the gradient of h_t (dS_{T-1} starts from final_state_grad):
//   dS_t = scale q_t ⊗ do_t + exp(gk_{t+1})[:, None] * dS_{t+1}
//   dq_t = scale h_t do_t,  dk_t = dS_t v_t,  dv_t = dS_t^T k_t,  dh0 = exp(gk_0)[:, None] * dS_0
//   dgk_t = sum_{s >= t} (q_s * dq_s - k_s * dk_s) + sum_j (final_state_grad * h_{T-1})[:, j]
//   dgk_0 = sum_j (dh0 * h0)[:, j]  (the same value, without the cancellation)
//   dgk_t = 0 where exp(gk_t) = 0, and the reverse sum restarts there (again without the
//   cancellation: docs/spec.md §5)
// (gk enters through its cumulative sum G: o_s depends on exp(G_s - G_r) for r <= s, so the
// gradient of G_s is q_s dq_s - k_s dk_s, plus the final state's term at the last step, and
// that of gk_t is the sum over s >= t). No state is stored: dq comes from a forward pass, the
// rest from one reverse pass.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/util/acc_type.h"
#include "paddle_ops/common/ddim.h"
#include "paddle_ops/common/macros.h"
#include "paddle_ops/common/optional.h"
#include "paddle_ops/core/dense_tensor.h"

namespace phi {

// Accumulation type of gla: float for the 16-bit types and float32, double for float64 (as
// pscan's, kernels/util/acc_type.h).
template <typename T>
struct GlaAccType : funcs::FloatAccType<T> {};

// Where the rows of one head (b, h) are: head_first [B, H, T, D], otherwise [B, T, H, D].
// A sequence of a varlen call (cu_seqlens) is a GlaShape with B = 1, T its length and
// head_rows the T of the whole tensor (the rows between two heads in the head_first layout).
struct GlaShape {
  int64_t B = 0, H = 0, T = 0, Dk = 0, Dv = 0;
  bool head_first = true;
  int64_t head_rows = 0;  // 0: T

  HOSTDEVICE int64_t heads() const { return B * H; }
  HOSTDEVICE int64_t HeadRows() const { return head_rows > 0 ? head_rows : T; }
  // Offset of element (bh, t, 0) in a tensor whose last dim is D.
  HOSTDEVICE int64_t Row(int64_t bh, int64_t t, int64_t D) const {
    if (head_first) return (bh * HeadRows() + t) * D;
    const int64_t b = bh / H, h = bh - b * H;
    return ((b * T + t) * H + h) * D;
  }
  HOSTDEVICE int64_t QkRow(int64_t bh, int64_t t) const { return Row(bh, t, Dk); }
  HOSTDEVICE int64_t VRow(int64_t bh, int64_t t) const { return Row(bh, t, Dv); }
  HOSTDEVICE int64_t StateSize() const { return Dk * Dv; }
  // Workspace (in Acc elements) of one head's forward and backward recurrent form.
  HOSTDEVICE int64_t ForwardWork() const { return Dk * Dv + 2 * Dv; }
  HOSTDEVICE int64_t BackwardWork() const { return 2 * Dk * Dv + Dk + 3 * Dv + T * Dk; }
};

// The shape of a gla call from q's and v's dims (InferMeta has checked them).
inline GlaShape MakeGlaShape(const DDim& q, const DDim& v, bool head_first) {
  GlaShape s;
  s.B = q[0];
  s.H = head_first ? q[1] : q[2];
  s.T = head_first ? q[2] : q[1];
  s.Dk = q[3];
  s.Dv = v[3];
  s.head_first = head_first;
  return s;
}

// The data of a gla call, outputs allocated (final_state only when asked for).
template <typename T>
struct GlaData {
  GlaShape s;
  const T *q, *k, *v, *g;
  const float* h0;  // null without initial_state
  T* o;
  float* final_state;  // null unless output_final_state
};

// Where sequence n of a varlen call lies in the whole call's arrays (rows [bos, bos + len) of every
// head, its states at n): its shape and the offsets of its q/k/g rows, v/o rows and states.
struct GlaSequenceAt {
  GlaShape s;
  int64_t qk, v, st;
  GlaSequenceAt(const GlaShape& whole, int64_t bos, int64_t len, int64_t n)
      : s(whole), qk(whole.Row(0, bos, whole.Dk)), v(whole.Row(0, bos, whole.Dv)),
        st(n * whole.H * whole.StateSize()) {
    s.head_rows = whole.HeadRows();
    s.T = len;
  }
};

template <typename P>
P* Moved(P* p, int64_t by) { return p ? p + by : nullptr; }

// Sequence `at` of a varlen call.
template <typename T>
GlaData<T> GlaSequence(GlaData<T> r, const GlaSequenceAt& at) {
  r.s = at.s;
  r.q += at.qk, r.k += at.qk, r.g += at.qk, r.v += at.v, r.o += at.v;
  r.h0 = Moved(r.h0, at.st), r.final_state = Moved(r.final_state, at.st);
  return r;
}

template <typename T, typename Context>
GlaData<T> MakeGlaData(const Context& ctx, const DenseTensor& q, const DenseTensor& k, const DenseTensor& v,
                       const DenseTensor& gk, const paddle::optional<DenseTensor>& initial_state,
                       bool output_final_state, bool head_first, DenseTensor* o, DenseTensor* final_state) {
  GlaData<T> d;
  d.s = MakeGlaShape(q.dims(), v.dims(), head_first);
  d.q = q.data<T>(), d.k = k.data<T>(), d.v = v.data<T>(), d.g = gk.data<T>();
  d.h0 = initial_state ? initial_state->data<float>() : nullptr;
  d.o = ctx.template Alloc<T>(o);
  d.final_state = output_final_state ? ctx.template Alloc<float>(final_state) : nullptr;
  return d;
}

// The data of a gla_grad call, outputs allocated (initial_state_grad only with an initial_state).
template <typename T>
struct GlaGradData {
  GlaShape s;
  const T *q, *k, *v, *g, *dout;
  const float *h0, *dfinal;  // either may be null
  T *dq, *dk, *dv, *dg;
  float* dh0;
};

// Sequence `at` of a varlen gradient call (GlaSequence).
template <typename T>
GlaGradData<T> GlaGradSequence(GlaGradData<T> r, const GlaSequenceAt& at) {
  r.s = at.s;
  r.q += at.qk, r.k += at.qk, r.g += at.qk, r.dq += at.qk, r.dk += at.qk, r.dg += at.qk;
  r.v += at.v, r.dout += at.v, r.dv += at.v;
  r.h0 = Moved(r.h0, at.st), r.dfinal = Moved(r.dfinal, at.st), r.dh0 = Moved(r.dh0, at.st);
  return r;
}

template <typename T, typename Context>
GlaGradData<T> MakeGlaGradData(const Context& ctx, const DenseTensor& q, const DenseTensor& k,
                               const DenseTensor& v, const DenseTensor& gk,
                               const paddle::optional<DenseTensor>& initial_state, const DenseTensor& o_grad,
                               const paddle::optional<DenseTensor>& final_state_grad, bool head_first,
                               DenseTensor* q_grad, DenseTensor* k_grad, DenseTensor* v_grad,
                               DenseTensor* gk_grad, DenseTensor* initial_state_grad) {
  GlaGradData<T> d;
  d.s = MakeGlaShape(q.dims(), v.dims(), head_first);
  d.q = q.data<T>(), d.k = k.data<T>(), d.v = v.data<T>(), d.g = gk.data<T>(), d.dout = o_grad.data<T>();
  d.h0 = initial_state ? initial_state->data<float>() : nullptr;
  d.dfinal = final_state_grad ? final_state_grad->data<float>() : nullptr;
  d.dq = ctx.template Alloc<T>(q_grad);
  d.dk = ctx.template Alloc<T>(k_grad);
  d.dv = ctx.template Alloc<T>(v_grad);
  d.dg = ctx.template Alloc<T>(gk_grad);
  d.dh0 = initial_state ? ctx.template Alloc<float>(initial_state_grad) : nullptr;
  return d;
}

// offsets[k] as int64 from an int32 or int64 array on the host.
inline std::vector<int64_t> OffsetsFromHost(const DenseTensor& cu_seqlens, const void* host) {
  const int64_t n = cu_seqlens.numel();
  std::vector<int64_t> off(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    off[i] = cu_seqlens.dtype() == DataType::INT32 ? static_cast<const int32_t*>(host)[i]
                                                   : static_cast<const int64_t*>(host)[i];
  }
  return off;
}

template <typename Acc, typename T>
HOSTDEVICE Acc Dot(const T* a, const T* b, int64_t n) {
  Acc sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += static_cast<Acc>(a[j]) * static_cast<Acc>(b[j]);
  return sum;
}

// A sum over j that the host compiler may vectorize (a fixed order per length: the result
// does not depend on the thread count or the run).
#if defined(_OPENMP) && !defined(__CUDACC__)
#define GLA_PRAGMA(x) _Pragma(#x)
#define GLA_SIMD_SUM(var) GLA_PRAGMA(omp simd reduction(+ : var))
#else
#define GLA_SIMD_SUM(var)
#endif

// dst[j] = src[j] as Acc (one conversion per step instead of one per state element).
template <typename Acc, typename T>
HOSTDEVICE void ToAccRow(const T* src, int64_t n, Acc* dst) {
  for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<Acc>(src[j]);
}

HOSTDEVICE inline float GlaExp(float x) { return expf(x); }
HOSTDEVICE inline double GlaExp(double x) { return exp(x); }

// The recurrent forward of head bh. h0 and final_state (either may be null) point at this
// head's [Dk, Dv] float32 block; work holds ForwardWork() Acc elements.
template <typename T, typename Acc>
HOSTDEVICE void GlaRecurrentForwardHead(const GlaShape& s, int64_t bh, const T* q, const T* k,
                                        const T* v, const T* g, const float* h0, Acc scale, T* o,
                                        float* final_state, Acc* work) {
  const int64_t Dk = s.Dk, Dv = s.Dv;
  Acc* S = work;
  Acc* orow = work + Dk * Dv;
  Acc* vr = orow + Dv;
  for (int64_t e = 0; e < Dk * Dv; ++e) S[e] = h0 ? static_cast<Acc>(h0[e]) : Acc(0);
  for (int64_t t = 0; t < s.T; ++t) {
    const int64_t rk = s.QkRow(bh, t), rv = s.VRow(bh, t);
    ToAccRow(v + rv, Dv, vr);
    for (int64_t j = 0; j < Dv; ++j) orow[j] = Acc(0);
    for (int64_t i = 0; i < Dk; ++i) {
      const Acc a = GlaExp(static_cast<Acc>(g[rk + i]));
      const Acc ki = static_cast<Acc>(k[rk + i]);
      const Acc qi = static_cast<Acc>(q[rk + i]) * scale;
      Acc* Si = S + i * Dv;
      for (int64_t j = 0; j < Dv; ++j) {
        Si[j] = Si[j] * a + ki * vr[j];
        orow[j] += qi * Si[j];
      }
    }
    for (int64_t j = 0; j < Dv; ++j) o[rv + j] = static_cast<T>(orow[j]);
  }
  if (final_state) {
    for (int64_t e = 0; e < Dk * Dv; ++e) final_state[e] = static_cast<float>(S[e]);
  }
}

// Where the recurrent backward of one head keeps its rows and sums (GlaRecurrentBackwardHeadWide).
// S (the state), dS, row, vr, dr in Acc; qdq (the products q dq of the first pass, without step
// t's own term, kept unrounded) and acc (the reverse sums of gk's gradient) in Wide; with Sw and
// strong (both or neither null), the state rows of the channels marked strong in Wide instead.
template <typename Acc, typename Wide>
struct GlaBackwardRows {
  Acc *S, *dS, *row, *vr, *dr;
  Wide *qdq, *acc;
  Wide* Sw;
  const unsigned char* strong;
};

// The rows of one channel i in the recurrent backward (GlaRecurrentBackwardHeadWide), its sums in W:
// Acc, or Wide for a channel marked strong. One source for both, so that the two differ only in
// that type.
//
// First pass, step t: the state row Si becomes h_t = exp(gk_t) h_{t-1} + k_t v_t (in W); dq_t, and
// q_t dq_t without step t's own term (kept unrounded in Wide) from (exp(gk_t) h_{t-1}) do_t.
template <typename W, typename T, typename Acc, typename Wide>
HOSTDEVICE void GlaForwardChannel(W* Si, Acc a, Acc ki, T q, Acc vdo, Acc scale, const Acc* vr, const Acc* dr,
                                  int64_t Dv, T* dq, Wide* qdq) {
  const W aw = static_cast<W>(a), kw = static_cast<W>(ki), ws = static_cast<W>(scale);
  W before = 0;  // (exp(gk_t) h_{t-1}) do_t: dq without step t's own term
  GLA_SIMD_SUM(before)
  for (int64_t j = 0; j < Dv; ++j) {
    const W decayed = Si[j] * aw;
    before += decayed * static_cast<W>(dr[j]);
    Si[j] = decayed + kw * static_cast<W>(vr[j]);
  }
  *dq = static_cast<T>((before + kw * static_cast<W>(vdo)) * ws);
  *qdq = static_cast<Wide>(static_cast<W>(static_cast<Acc>(q)) * before * ws);
}

// Reverse pass, step t: dS_t = dSi + qs do_t (in Acc) goes into dv's row and leaves exp(gk_t) dS_t
// in dSi for step t - 1; dk_t from exp(gk_{t+1}) dS_{t+1} v_t summed in W; returns k_t dk_t without
// step t's own term.
template <typename W, typename Wide, typename T, typename Acc>
HOSTDEVICE Wide GlaReverseChannel(Acc* dSi, Acc a, Acc ki, Acc qs, Acc vdo, const Acc* vr, const Acc* dr, Acc* row,
                                  int64_t Dv, T* dk) {
  W later = 0;  // exp(gk_{t+1}) dS_{t+1} v_t: dk without step t's own term
  GLA_SIMD_SUM(later)
  for (int64_t j = 0; j < Dv; ++j) {
    later += static_cast<W>(dSi[j]) * static_cast<W>(vr[j]);
    const Acc d = dSi[j] + qs * dr[j];  // dS_t
    row[j] += d * ki;
    dSi[j] = d * a;  // exp(gk_t) dS_t, for step t - 1
  }
  *dk = static_cast<T>(later + static_cast<W>(qs * vdo));
  return static_cast<Wide>(static_cast<W>(ki) * later);
}

// The recurrent backward of head bh (see the top of the file). h0, dfinal and dh0 (each may be
// null) point at this head's [Dk, Dv] block.
//
// The reverse sum of q dq - k dk telescopes to the state-gradient identity
// dgk_t = exp(gk_t) sum_j dS_t h_{t-1} only as far as the state h satisfies its recurrence: each
// rounding of h (and of the sum dS v in dk) stays in every earlier step's sum at the size of the
// terms, which in a strongly decayed channel are far larger than the result. A channel marked
// strong runs its state, dq's sum and dS v in Wide (double for float32 on the CPU:
// docs/spec.md §5), which takes that rounding far below the result's; the others run in Acc.
template <typename T, typename Acc, typename Wide>
HOSTDEVICE void GlaRecurrentBackwardHeadWide(const GlaShape& s, int64_t bh, const T* q, const T* k,
                                             const T* v, const T* g, const float* h0, const T* dout,
                                             const float* dfinal, Acc scale, T* dq, T* dk, T* dv,
                                             T* dg, float* dh0, const GlaBackwardRows<Acc, Wide>& w) {
  const int64_t Dk = s.Dk, Dv = s.Dv;
  Acc *S = w.S, *dS = w.dS, *row = w.row, *vr = w.vr, *dr = w.dr;
  Wide *qdq = w.qdq, *acc = w.acc, *Sw = w.Sw;
  auto strong = [&](int64_t i) { return w.strong != nullptr && w.strong[i]; };
  // Forward: h_t and dq_t = scale h_t do_t.
  for (int64_t i = 0; i < Dk; ++i) {
    for (int64_t j = 0; j < Dv; ++j) {
      const int64_t e = i * Dv + j;
      if (strong(i)) {
        Sw[e] = h0 ? static_cast<Wide>(h0[e]) : Wide(0);
      } else {
        S[e] = h0 ? static_cast<Acc>(h0[e]) : Acc(0);
      }
    }
  }
  for (int64_t t = 0; t < s.T; ++t) {
    const int64_t rk = s.QkRow(bh, t), rv = s.VRow(bh, t);
    ToAccRow(v + rv, Dv, vr);
    ToAccRow(dout + rv, Dv, dr);
    const Acc vdo = Dot<Acc>(vr, dr, Dv);
    for (int64_t i = 0; i < Dk; ++i) {
      const Acc a = GlaExp(static_cast<Acc>(g[rk + i]));
      const Acc ki = static_cast<Acc>(k[rk + i]);
      if (strong(i)) {
        GlaForwardChannel<Wide>(Sw + i * Dv, a, ki, q[rk + i], vdo, scale, vr, dr, Dv, dq + rk + i, qdq + t * Dk + i);
      } else {
        GlaForwardChannel<Acc>(S + i * Dv, a, ki, q[rk + i], vdo, scale, vr, dr, Dv, dq + rk + i, qdq + t * Dk + i);
      }
    }
  }
  // The final state's share of every gk gradient.
  for (int64_t i = 0; i < Dk; ++i) {
    Wide sum = 0;
    if (dfinal) {
      for (int64_t j = 0; j < Dv; ++j) {
        const int64_t e = i * Dv + j;
        sum += static_cast<Wide>(dfinal[e]) * (strong(i) ? Sw[e] : static_cast<Wide>(S[e]));
      }
    }
    acc[i] = sum;
  }
  // Reverse: dS_t, dk_t, dv_t and the reverse cumulative sum of q dq - k dk.
  for (int64_t e = 0; e < Dk * Dv; ++e) dS[e] = dfinal ? static_cast<Acc>(dfinal[e]) : Acc(0);
  for (int64_t t = s.T - 1; t >= 0; --t) {
    const int64_t rk = s.QkRow(bh, t), rv = s.VRow(bh, t);
    ToAccRow(v + rv, Dv, vr);
    ToAccRow(dout + rv, Dv, dr);
    const Acc vdo = Dot<Acc>(vr, dr, Dv);
    for (int64_t j = 0; j < Dv; ++j) row[j] = Acc(0);
    for (int64_t i = 0; i < Dk; ++i) {
      const Acc qi = static_cast<Acc>(q[rk + i]);
      const Acc ki = static_cast<Acc>(k[rk + i]);
      const Acc qs = qi * scale;
      Acc* dSi = dS + i * Dv;
      const Acc a = GlaExp(static_cast<Acc>(g[rk + i]));
      const Wide kdk =
          strong(i) ? GlaReverseChannel<Wide, Wide>(dSi, a, ki, qs, vdo, vr, dr, row, Dv, dk + rk + i)
                    : GlaReverseChannel<Acc, Wide>(dSi, a, ki, qs, vdo, vr, dr, row, Dv, dk + rk + i);
      // Step t's own terms of q dq and k dk (scale q k (v do)) cancel exactly: leave them out,
      // which keeps strongly decayed channels free of that cancellation.
      acc[i] += qdq[t * Dk + i] - kdk;
      // A gate whose factor is 0 (gk_t = -inf, or so negative that exp underflows): dgk_t =
      // exp(gk_t) sum_j dS_t h_{t-1} = 0 exactly, and the reverse sum starts again from it. The
      // sum of the later terms would reach 0 only through cancellation, leaving its rounding in
      // every earlier step's gradient.
      if (a == Acc(0)) acc[i] = Wide(0);
      dg[rk + i] = static_cast<T>(acc[i]);
    }
    for (int64_t j = 0; j < Dv; ++j) dv[rv + j] = static_cast<T>(row[j]);
  }
  if (dh0) {
    for (int64_t e = 0; e < Dk * Dv; ++e) dh0[e] = static_cast<float>(dS[e]);
  }
  // gk_0 acts only on the initial state: its gradient is sum_j dh0 * h0, exactly 0 without
  // one (the reverse sum reaches the same value through cancellation).
  if (s.T > 0) {
    const int64_t rk = s.QkRow(bh, 0);
    for (int64_t i = 0; i < Dk; ++i) {
      Acc sum = 0;
      if (h0) {
        for (int64_t j = 0; j < Dv; ++j) sum += dS[i * Dv + j] * static_cast<Acc>(h0[i * Dv + j]);
      }
      dg[rk + i] = static_cast<T>(sum);
    }
  }
}

// The recurrent backward of head bh all in Acc; work holds BackwardWork() Acc elements.
template <typename T, typename Acc>
HOSTDEVICE void GlaRecurrentBackwardHead(const GlaShape& s, int64_t bh, const T* q, const T* k,
                                         const T* v, const T* g, const float* h0, const T* dout,
                                         const float* dfinal, Acc scale, T* dq, T* dk, T* dv,
                                         T* dg, float* dh0, Acc* work) {
  const int64_t Dk = s.Dk, Dv = s.Dv;
  GlaBackwardRows<Acc, Acc> w;
  w.S = work;
  w.dS = w.S + Dk * Dv;
  w.acc = w.dS + Dk * Dv;
  w.row = w.acc + Dk;
  w.vr = w.row + Dv;
  w.dr = w.vr + Dv;
  w.qdq = w.dr + Dv;
  w.Sw = nullptr;
  w.strong = nullptr;
  GlaRecurrentBackwardHeadWide<T, Acc, Acc>(s, bh, q, k, v, g, h0, dout, dfinal, scale, dq, dk, dv, dg, dh0, w);
}

}  // namespace phi
