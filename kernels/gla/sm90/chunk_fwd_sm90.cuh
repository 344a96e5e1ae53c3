// The gla forward (docs/spec.md §5) on sm_90a: one fused kernel per (head, Dv tile) that walks
// the chunks of T in order with the state on chip. Self-contained (CUDA, CuTe/CUTLASS headers
// of the nvidia-cutlass wheel): the library's GPU path and the kernel harness
// (tools/dev/harness/gla/) both include it.
//
// Per chunk of C = 64 steps, with P the in-chunk inclusive cumulative sum of gk (float32, per
// key channel i), m = 31 the reference row and a = P - P_m:
//   Qd = scale * q * exp(a),  Kd = k * exp(-a)                     (16-bit operands, in place)
//   A  = mask_{s<=t}(Qd Kd^T)                                      (= scale sum_i q k exp(P_t - P_s))
//   o  = Qd (exp(P_m) * S) + A V                                   (exp(P_m) * S = the operand sS)
//   S <- exp(P_63 - P_m) * (exp(P_m) * S + Kd^T V)                 (= exp(P_63) S + sum k exp(P_63 - P_t) v)
// every product a wgmma with 16-bit operands from shared memory and float32 accumulators; the
// state S [Dk, BV] stays in the accumulators of the two consumer warpgroups for the whole of T.
// The factors exp(+-a) stay within exp(+-r) where every |a| <= r = SafeRange ("safe" chunk);
// a chunk with a larger decay range (strong or -inf gates, gk > 0) takes the other mode instead: A
// element by element from float32 cumulative sums of the gates clamped at -kClampGate (no
// difference of infinities), Qd = scale q exp(P) and Kd = k exp(P_63 - P) from running sums
// (exponents <= 0, no differences), and exp(P_63) S + Kd^T V.
//
// Roles: warpgroup 0 is the producer (one thread issues the TMA loads into three rings on
// transaction barriers: q and k [C, Dk] kStages + 1 deep, gk [C, Dk] and v [C, BV] kStages deep),
// warpgroups 1 and 2 consume. The element-wise part of a chunk (gate sums, the mode, Qd and Kd in
// place, the state's row scalings) does not depend on the state, so the consumers do chunk n + 1's
// while the tensor cores run chunk n's products: per chunk n, issue A = Qd Kd^T and S += Kd^T V;
// chunk n - 1's o to shared memory; issue o = Qd sS; store the masked A; barrier; a TMA store of
// chunk n - 1's o; issue o += A V; the element-wise part of chunk n + 1 (its q, k in the next
// stage of their ring); wait; rescale S and write chunk n + 1's sS. Four named barriers per chunk
// in the factored mode. (A chunk n + 1 in the other mode waits for chunk n's products first: its
// element-wise A overwrites sA, and its cumulative sums take sS's bytes.)
// Rows past T and columns past Dk or Dv are zero-filled by the TMA loads and dropped by the store.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/arch/reg_reconfig.h>
#include <cutlass/numeric_types.h>

namespace gla_sm90 {

using namespace cute;

constexpr int kC = 64;                  // steps per chunk
// |P_t - P_m| bound of the factored mode: exp(32) ~ 8e13 stays far inside bfloat16's range;
// float16 (largest 65504) takes exp(6) ~ 403, so that q exp(a) with |q| up to ~160 fits.
template <class E>
constexpr float SafeRange() {
  return std::is_same<E, cutlass::half_t>::value ? 6.f : 32.f;
}
constexpr float kClampGate = 100.f;     // gates below -kClampGate count as -kClampGate in the other mode
constexpr int kConsumers = 256;         // two consumer warpgroups
constexpr int kThreads = 384;

// The call, in elements; strides of the row (t) and head (h) and batch (b) dims of q/k/gk and
// of v/o (the last dim is contiguous).
struct FwdArgs {
  int B = 0, H = 0, T = 0, Dk = 0, Dv = 0;
  int64_t qk_st = 0, qk_sh = 0, qk_sb = 0;
  int64_t v_st = 0, v_sh = 0, v_sb = 0;
  const void *q = nullptr, *k = nullptr, *v = nullptr, *g = nullptr;
  const float* h0 = nullptr;  // [B, H, Dk, Dv] float32 or null
  void* o = nullptr;
  float* ht = nullptr;        // [B, H, Dk, Dv] float32 or null
  float scale = 1.f;
  int force_other_mode = 0;   // testing: every chunk takes the element-wise mode
};

// Strides of a [B, H, T, D] (head_first) or [B, T, H, D] tensor.
inline void RowStrides(bool head_first, int T, int H, int D, int64_t* st, int64_t* sh, int64_t* sb) {
  if (head_first) {
    *st = D, *sh = int64_t(T) * D, *sb = int64_t(H) * T * D;
  } else {
    *st = int64_t(H) * D, *sh = D, *sb = int64_t(T) * H * D;
  }
}

template <class E, int DK, int BV, int kStages>
struct FwdKernel {
  static_assert(DK == 128, "the state MMA splits Dk = 128 over the two consumer warpgroups");
  static_assert(BV == 64 || BV == 128, "BV is 64 or 128");
  using Element = E;
  static constexpr int kDK = DK, kBV = BV, kNumStages = kStages, kQkStages = kStages + 1;
  // The sequence split (FwdSegKernel below): 0 here, the whole of T per CTA.
  static constexpr int kSegMode = 0;
  // Packed sequences (FwdVarlenKernel below): false here, a CTA per (batch, head, Dv tile).
  static constexpr bool kVarlen = false;
  using TiC = Int<kC>;
  using TiDK = Int<DK>;
  using TiBV = Int<BV>;

  // ---- shared-memory layouts (GMMA canonical) ------------------------------------------------
  // q, k (kQkStages deep), gk (kStages deep): (t, i) with i contiguous (K-major for the products
  // over i).
  using LayoutQ = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<E>{}, Shape<TiC, TiDK, Int<kQkStages>>{}));
  using LayoutG = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<E>{}, Shape<TiC, TiDK, Int<kStages>>{}));
  // v: (j, s) with j contiguous; o's B operand splits BV over the warpgroups, so its swizzle
  // atom must fit BV / 2 columns.
  using AtomMN = std::conditional_t<BV / 2 >= 64, GMMA::Layout_MN_SW128_Atom<E>, GMMA::Layout_MN_SW64_Atom<E>>;
  using LayoutV = decltype(tile_to_shape(AtomMN{}, Shape<TiBV, TiC, Int<kStages>>{}));
  // sS = exp(P_m) S as o's B operand (j, i), j contiguous.
  using LayoutS = decltype(tile_to_shape(AtomMN{}, Shape<TiBV, TiDK>{}));
  // A (t, s) as o's A operand; o (t, j) for the TMA store.
  using LayoutA = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<E>{}, Shape<TiC, TiC>{}));
  using LayoutO = decltype(tile_to_shape(GMMA::Layout_K_SW128_Atom<E>{}, Shape<TiC, TiBV>{}));

  // The (i, s, stage) view of k's (s, i, stage) buffer (the state MMA's A operand, M = i
  // contiguous) and the (i, j) view of sS (the state MMA's C coordinates): the same swizzled
  // bytes with the first two modes swapped.
  template <class L>
  static constexpr auto Transposed3(L const& l) {
    return composition(l.layout_a(), l.offset(), select<1, 0, 2>(l.layout_b()));
  }
  template <class L>
  static constexpr auto Transposed2(L const& l) {
    return composition(l.layout_a(), l.offset(), select<1, 0>(l.layout_b()));
  }
  using LayoutKt = decltype(Transposed3(LayoutQ{}));
  using LayoutSt = decltype(Transposed2(LayoutS{}));

  // ---- MMAs ------------------------------------------------------------------------------------
  // A = Qd Kd^T: (t, s) over i; s split over the two warpgroups.
  using MmaA = decltype(make_tiled_mma(
      GMMA::ss_op_selector<E, E, float, Shape<_64, _32, TiDK>, GMMA::Major::K, GMMA::Major::K>(),
      Layout<Shape<_1, _2, _1>>{}));
  // S += Kd^T V: (i, j) over s; i split over the warpgroups.
  using MmaS = decltype(make_tiled_mma(
      GMMA::ss_op_selector<E, E, float, Shape<_64, TiBV, TiC>, GMMA::Major::MN, GMMA::Major::MN>(),
      Layout<Shape<_2, _1, _1>>{}));
  // o = Qd sS + A V: (t, j) over i, then over s; j split over the warpgroups.
  using MmaO = decltype(make_tiled_mma(
      GMMA::ss_op_selector<E, E, float, Shape<_64, Int<BV / 2>, TiDK>, GMMA::Major::K, GMMA::Major::MN>(),
      Layout<Shape<_1, _2, _1>>{}));

  // ---- TMA ---------------------------------------------------------------------------------------
  using GShape = Shape<int, int, int, int>;
  using GStrideRow = Stride<int64_t, _1, int64_t, int64_t>;  // (T, D, H, B), D contiguous
  using GStrideCol = Stride<_1, int64_t, int64_t, int64_t>;  // (D, T, H, B)

  static auto MakeTmaQ(E const* p, int T, int D, int H, int B, int64_t st, int64_t sh, int64_t sb) {
    auto g = make_tensor(make_gmem_ptr(p), make_layout(make_shape(T, D, H, B), make_stride(st, _1{}, sh, sb)));
    return make_tma_atom(SM90_TMA_LOAD{}, g, LayoutG{}(_, _, 0), Shape<TiC, TiDK>{});
  }
  static auto MakeTmaV(E const* p, int T, int D, int H, int B, int64_t st, int64_t sh, int64_t sb) {
    auto g = make_tensor(make_gmem_ptr(p), make_layout(make_shape(D, T, H, B), make_stride(_1{}, st, sh, sb)));
    return make_tma_atom(SM90_TMA_LOAD{}, g, LayoutV{}(_, _, 0), Shape<TiBV, TiC>{});
  }
  static auto MakeTmaO(E* p, int T, int D, int H, int B, int64_t st, int64_t sh, int64_t sb) {
    auto g = make_tensor(make_gmem_ptr(p), make_layout(make_shape(T, D, H, B), make_stride(st, _1{}, sh, sb)));
    return make_tma_atom(SM90_TMA_STORE{}, g, LayoutO{}, Shape<TiC, TiBV>{});
  }
  using TmaQ = decltype(MakeTmaQ(nullptr, 1, 1, 1, 1, 0, 0, 0));
  using TmaV = decltype(MakeTmaV(nullptr, 1, 1, 1, 1, 0, 0, 0));
  using TmaO = decltype(MakeTmaO(nullptr, 1, 1, 1, 1, 0, 0, 0));

  struct Params {
    TmaQ tma_q, tma_k, tma_g;
    TmaV tma_v;
    TmaO tma_o;
    int B, H, T, Dk, Dv;
    float scale;
    const float* h0;
    float* ht;
    int force_other_mode;
  };

  // ---- shared storage ------------------------------------------------------------------------
  static constexpr int kPairs = DK / 2;                 // column pairs of the element-wise passes
  static constexpr int kGroups = kConsumers / kPairs;   // row groups
  static constexpr int kRows = kC / kGroups;            // rows per thread
  static constexpr int kRefGroups = 32 / kRows;         // groups at or above the reference row 31
  // The other mode's clamped cumulative gates, float [C, DK] with the column pairs of row t
  // moved by 2 (t mod 16) (XOR), in sS's bytes (free while that mode runs).
  static constexpr int kPcBytes = kC * DK * 4;
  static constexpr int kSBytes = cosize_v<LayoutS> * int(sizeof(E)) > kPcBytes ? cosize_v<LayoutS> * int(sizeof(E)) : kPcBytes;

  struct alignas(1024) Smem {
    alignas(1024) ArrayEngine<E, cosize_v<LayoutQ>> q;
    alignas(1024) ArrayEngine<E, cosize_v<LayoutQ>> k;
    alignas(1024) ArrayEngine<E, cosize_v<LayoutG>> g;
    alignas(1024) ArrayEngine<E, cosize_v<LayoutV>> v;
    alignas(1024) unsigned char s[kSBytes];  // sS; the other mode's cumulative gates
    alignas(1024) ArrayEngine<E, cosize_v<LayoutA>> a;
    alignas(1024) ArrayEngine<E, cosize_v<LayoutO>> o;
    alignas(8) float tot[kGroups][DK];   // per row group: sums of the gates
    alignas(8) float totc[kGroups][DK];  // and of the clamped gates (other mode)
    uint64_t full_qk[kQkStages], empty_qk[kQkStages];
    uint64_t full_g[kStages], empty_g[kStages];
    uint64_t full_v[kStages], empty_v[kStages];
    // Packed sequences (in the padding; unused otherwise): the partial last chunk's v load and
    // its rows inside the sequence (kC: no partial chunk), for the producer.
    uint64_t tail_v;
    int tail_rows;
  };
  static constexpr int kSmemBytes = int(sizeof(Smem)) + 1024;
  static_assert(kSmemBytes <= 232448, "sm_90's shared memory per block (227 KB)");

  static constexpr uint32_t kTxQk = uint32_t(2 * kC * DK * sizeof(E));
  static constexpr uint32_t kTxG = uint32_t(kC * DK * sizeof(E));
  static constexpr uint32_t kTxV = uint32_t(BV * kC * sizeof(E));

  static Params MakeParams(const FwdArgs& a) {
    Params p{MakeTmaQ(static_cast<E const*>(a.q), a.T, a.Dk, a.H, a.B, a.qk_st, a.qk_sh, a.qk_sb),
             MakeTmaQ(static_cast<E const*>(a.k), a.T, a.Dk, a.H, a.B, a.qk_st, a.qk_sh, a.qk_sb),
             MakeTmaQ(static_cast<E const*>(a.g), a.T, a.Dk, a.H, a.B, a.qk_st, a.qk_sh, a.qk_sb),
             MakeTmaV(static_cast<E const*>(a.v), a.T, a.Dv, a.H, a.B, a.v_st, a.v_sh, a.v_sb),
             MakeTmaO(static_cast<E*>(a.o), a.T, a.Dv, a.H, a.B, a.v_st, a.v_sh, a.v_sb),
             a.B, a.H, a.T, a.Dk, a.Dv, a.scale, a.h0, a.ht, a.force_other_mode};
    return p;
  }
};

// The sequence split of T for shapes with few (head, Dv tile) CTAs (LaunchFwdSplit below): the
// same kernel, a CTA per (Dv tile, head, segment of seg_chunks whole chunks) in blockIdx.z.
//   kSegMode 2 (pass 1, state only): the segment's state from zero and its total decay per key
//     channel, exp2 of the float sum of the same per-chunk gate sums (log2 units) that scale the
//     state in the chunk loop; no q (its TMA load is dropped), no A, no o. Segments 0 .. S - 2.
//   kSegMode 1 (pass 3, outputs): the forward over the segment, starting from h0 (segment 0) or
//     from seg_state (segment z > 0: the combined state at its start, slot z - 1); the last
//     segment writes ht.
// seg_state [S - 1, B * H, Dk, Dv] and seg_decay [S - 1, B * H, Dk], float32: pass 1 writes a
// segment's local state and decay in slot z; the combine (FwdSegCombine) turns slot z into the
// state at the start of segment z + 1, in place.
template <class E, int DK, int BV, int kStages, int kMode>
struct FwdSegKernel : FwdKernel<E, DK, BV, kStages> {
  static_assert(kMode == 1 || kMode == 2, "1: outputs from a stored start state; 2: state only");
  using Base = FwdKernel<E, DK, BV, kStages>;
  static constexpr int kSegMode = kMode;
  // The state-only pass loads k alone into the q/k ring.
  static constexpr uint32_t kTxQk = uint32_t((kMode == 2 ? 1 : 2) * kC * DK * sizeof(E));
  struct Params : Base::Params {
    int seg_chunks;      // chunks per segment (the last one may be shorter)
    int num_segs;        // S
    float* seg_state;    // see above
    float* seg_decay;
  };
  static Params MakeParams(const FwdArgs& a, int seg_chunks, int num_segs, float* seg_state, float* seg_decay) {
    Params p{Base::MakeParams(a), seg_chunks, num_segs, seg_state, seg_decay};
    return p;
  }
};

// Packed variable-length sequences (fla's cu_seqlens, issue 30): q, k, gk, v, o hold N sequences
// back to back along T (B = 1; [1, T, H, D] or head-first [1, H, T, D]), sequence n the rows
// cu_seqlens[n] .. cu_seqlens[n + 1] - 1, h0 and ht [N, H, Dk, Dv]. One launch, a CTA per (Dv tile,
// sequence slot * H + head): each CTA reads its sequence's two offsets (int32 or int64) from device
// memory, so the host never reads them. The same kernel as FwdKernel (kVarlen): the TMA
// coordinates shifted by the sequence's first row; the last chunk, when partial, loads the next
// sequence's rows (or zeros past T), which the consumers neutralize: gates and Kd of rows past the
// sequence zero (so P_63 is the sum of the sequence's own gates and S takes none of them; A is
// masked to s <= t), and its o stored from registers for the rows inside the sequence only (a TMA
// store would write the next sequence's rows). Their v rows (a non-finite one would reach S as
// 0 * inf) are zeroed in shared memory by the producer warp: that chunk's v load completes on a
// barrier of its own (tail_v), warp 0 zeroes the rows, fences them for the async proxy and only
// then arrives on the stage's full_v, so the consumers' code is that of the other chunks (zeroing
// there put 5 more spill loads a chunk in the main loop at BV 128). An
// empty sequence writes ht = h0 (or zeros). Offsets are clamped to [0, T] and made non-decreasing
// per CTA (no access outside the tensors; invalid offsets give unspecified outputs, not faults).
//   order 0: slot n is sequence n (the CTAs of one sequence, every head and Dv tile, adjacent).
//   order 1: slot r is the sequence of rank r by descending length (ties by index), computed in
//     each CTA from the offsets (N <= kVarlenRankMax; above, order 0): CTAs start in block order,
//     so the longest sequences start first and the short ones fill the tail (greedy longest-first).
constexpr int kVarlenRankMax = 512;
template <class E, int DK, int BV, int kStages>
struct FwdVarlenKernel : FwdKernel<E, DK, BV, kStages> {
  using Base = FwdKernel<E, DK, BV, kStages>;
  static constexpr bool kVarlen = true;
  static_assert(kVarlenRankMax <= Base::kGroups * DK, "the ranks' lengths live in Smem::tot");
  struct Params : Base::Params {
    const int32_t* cu32;   // N + 1 offsets, one of the two non-null
    const int64_t* cu64;
    int num_seqs;          // N
    int order;             // 0 or 1 (above)
    void* o;               // o's base and its row and head strides (the partial chunk's stores)
    int64_t v_st, v_sh;
  };
  // `a`: B = 1, T the packed length, the strides of the packed tensors, h0 / ht [N, H, Dk, Dv].
  static Params MakeParams(const FwdArgs& a, const void* cu_seqlens, bool offsets64, int num_seqs, int order) {
    Params p{Base::MakeParams(a),
             offsets64 ? nullptr : static_cast<const int32_t*>(cu_seqlens),
             offsets64 ? static_cast<const int64_t*>(cu_seqlens) : nullptr,
             num_seqs, order, a.o, a.v_st, a.v_sh};
    return p;
  }
};

// Sequence n's first row and length, clamped into [0, T].
template <class P>
__device__ __forceinline__ void VarlenSeq(const P& p, int n, int* bos, int* len) {
  const int64_t lo = p.cu64 != nullptr ? p.cu64[n] : int64_t(p.cu32[n]);
  const int64_t hi = p.cu64 != nullptr ? p.cu64[n + 1] : int64_t(p.cu32[n + 1]);
  const int64_t b = lo < 0 ? 0 : lo > p.T ? p.T : lo;
  const int64_t e = hi < b ? b : hi > p.T ? p.T : hi;
  *bos = int(b), *len = int(e - b);
}

// The rank of sequence i among n by descending length, ties by index (order 1's slots).
CUTE_HOST_DEVICE int VarlenRank(const int* lens, int n, int i) {
  const int li = lens[i];
  int rank = 0;
  for (int j = 0; j < n; ++j) {
    const int lj = lens[j];
    rank += (lj > li || (lj == li && j < i)) ? 1 : 0;
  }
  return rank;
}

// A tensor's rows (mode kRowMode) shifted to start at row0 (packed sequences), else the tensor.
template <bool kShift, int kRowMode, class T>
CUTE_HOST_DEVICE auto SeqRows(T&& t, int row0) {
  if constexpr (kShift) {
    if constexpr (kRowMode == 0) {
      return domain_offset(make_coord(row0, _0{}), t);
    } else {
      return domain_offset(make_coord(_0{}, row0), t);
    }
  } else {
    return t;
  }
}

// Two adjacent 16-bit elements <-> float2, as one 32-bit shared-memory access and one packed
// conversion (round to nearest even, as E(x)). The pairs are always 4-byte aligned: an even
// column of a row whose 16-byte chunks the swizzle moves whole, or columns n, n + 1 of a GMMA
// accumulator fragment (its elements 2k, 2k + 1) stored to a tile with that mode contiguous.
template <class E>
__device__ __forceinline__ float2 Load2(const E* p) {
  const uint32_t u = *reinterpret_cast<const uint32_t*>(p);
  if constexpr (std::is_same<E, cutlass::half_t>::value) {
    __half2 h;
    static_assert(sizeof(h) == sizeof(u), "half2 is 32 bits");
    memcpy(&h, &u, sizeof(u));
    return __half22float2(h);
  } else {
    return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u));
  }
}
template <class E>
__device__ __forceinline__ void Store2(E* p, float x, float y) {
  uint32_t u;
  if constexpr (std::is_same<E, cutlass::half_t>::value) {
    const __half2 h = __floats2half2_rn(x, y);
    memcpy(&u, &h, sizeof(u));
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
    memcpy(&u, &h, sizeof(u));
  }
  *reinterpret_cast<uint32_t*>(p) = u;
}

// 2^x on the special-function unit, denormal results flushed: for the factored mode's factors,
// whose exponents are bounded by SafeRange (e^32 = 2^46.2, far from float's denormals).
__device__ __forceinline__ float Exp2Ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// Where a thread's accumulator element e lands in a swizzled shared-memory tile (element
// offsets, 32-bit arithmetic on a shared-memory base; the swizzled tensors' own pointers are
// generic 64-bit ones): (base ^ lo(e)) + hi(e), base = the swizzled offset of the thread's first
// element, lo / hi = the swizzle's target bits / the other bits of the unswizzled offset of
// thread 0's element e (compile-time constants once inlined). This holds where the thread's
// coordinates and the element's deltas give disjoint bits and the swizzle's source bits come from
// the thread's part alone, as for the GMMA accumulators on these tiles; AccOffsetsHold checks
// every thread and element on the host.
template <class OffL>
struct SwizzledTile {
  using Sw = std::decay_t<decltype(OffL{}.layout_a())>;
  static constexpr int kLo = Sw::zzz_msk::value;
  int base;
  template <class C0>
  CUTE_HOST_DEVICE explicit SwizzledTile(C0 const& c0) : base(OffL{}(c0)) {}
  template <class D>
  CUTE_HOST_DEVICE int operator()(D const& d) const {
    const int x = OffL{}.layout_b()(d);
    return (base ^ (x & kLo)) + (x & ~kLo);
  }
};
template <class L>
using OffsetLayout = decltype(as_position_independent_swizzle_layout(L{}));

// The check of SwizzledTile for one product's accumulators on a tile (host).
template <class Mma, class Shp, class L>
bool AccOffsetsHold() {
  Mma mma;
  const auto id = make_identity_tensor(Shp{});
  const auto d = mma.get_thread_slice(0).partition_C(id);
  for (int t = 0; t < kConsumers; ++t) {
    const auto c = mma.get_thread_slice(t).partition_C(id);
    const SwizzledTile<OffsetLayout<L>> tile(c(0));
    for (int e = 0; e < size(c); ++e) {
      if (OffsetLayout<L>{}(c(e)) != tile(d(e))) return false;
    }
  }
  return true;
}
template <class K>
bool FwdOffsetsHold() {
  return AccOffsetsHold<typename K::MmaS, Shape<Int<K::kDK>, Int<K::kBV>>, typename K::LayoutSt>() &&
         AccOffsetsHold<typename K::MmaA, Shape<Int<kC>, Int<kC>>, typename K::LayoutA>() &&
         AccOffsetsHold<typename K::MmaO, Shape<Int<kC>, Int<K::kBV>>, typename K::LayoutO>();
}

// The check of the varlen tail's zeroing (host): in v's tile, the 8 elements j .. j + 7 (j a
// multiple of 8) of every row s are contiguous and 16-byte aligned.
template <class K>
bool VarlenZeroPiecesHold() {
  const typename K::LayoutV l{};
  for (int st = 0; st < K::kNumStages; ++st) {
    for (int s = 0; s < kC; ++s) {
      for (int j = 0; j < K::kBV; j += 8) {
        const int base = int(l(j, s, st));
        if (base % 8 != 0) return false;
        for (int e = 1; e < 8; ++e) {
          if (int(l(j + e, s, st)) != base + e) return false;
        }
      }
    }
  }
  return true;
}

// Named barriers of the two consumer warpgroups (ids 1..7; 0 is __syncthreads'), the plain one
// and one that also returns whether any thread's `pred` was set.
__device__ __forceinline__ void ConsumerSync(int id) {
  asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(kConsumers) : "memory");
}
__device__ __forceinline__ bool ConsumerSyncOr(int id, bool pred) {
  uint32_t r;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, %3, p;\n selp.u32 %0, 1, 0, q;\n}\n"
      : "=r"(r)
      : "r"(uint32_t(pred)), "r"(id), "r"(kConsumers)
      : "memory");
  return r != 0;
}

template <class K>
__global__ void __launch_bounds__(kThreads, 1) GlaFwdSm90Kernel(CUTE_GRID_CONSTANT typename K::Params const p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using E = typename K::Element;
  constexpr int DK = K::kDK, BV = K::kBV, kStages = K::kNumStages, kQkStages = K::kQkStages;
  using Smem = typename K::Smem;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // The swizzled buffers assume 1024-byte alignment; kSmemBytes has room for the shift.
  // (An offset from smem_raw rather than an integer round trip: the compiler then knows every
  // pointer below is shared memory and addresses it with 32-bit shared loads and stores.)
  const uint32_t pad = (1024u - (static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)) & 1023u)) & 1023u;
  Smem& sm = *reinterpret_cast<Smem*>(smem_raw + pad);

  const int vt = blockIdx.x;          // Dv tile
  int bh = blockIdx.y;                // head (packed sequences: sequence slot * H + head)
  int b = bh / p.H, h = bh - b * p.H;
  // Chunks chunk0 .. chunk0 + NT - 1 of T: all of them, or one segment's (kSegMode != 0).
  constexpr int kMode = K::kSegMode;
  constexpr bool kVarlen = K::kVarlen;
  int NT = (p.T + kC - 1) / kC;
  int chunk0 = 0;
  if constexpr (kMode != 0) {
    chunk0 = int(blockIdx.z) * p.seg_chunks;
    NT = min(NT - chunk0, p.seg_chunks);
  }
  // Packed sequences: the CTA's sequence (slot b, or the sequence of rank b by length), its rows
  // row0 .. row0 + len - 1 of T (tensor batch 0); chunk m has len - m kC rows inside it (64 or
  // more: the whole chunk). (row0 is read again at the end, rather than kept through the loop.)
  int row0 = 0, len = 0;
  if constexpr (kVarlen) {
    int n = b;
    if (p.order == 1 && p.num_seqs <= kVarlenRankMax) {
      int* lens = reinterpret_cast<int*>(&sm.tot[0][0]);
      int* pick = reinterpret_cast<int*>(&sm.totc[0][0]);
      for (int i = threadIdx.x; i < p.num_seqs; i += kThreads) {
        int bos_i, len_i;
        VarlenSeq(p, i, &bos_i, &len_i);
        lens[i] = len_i;
      }
      __syncthreads();
      for (int i = threadIdx.x; i < p.num_seqs; i += kThreads) {
        if (VarlenRank(lens, p.num_seqs, i) == b) *pick = i;
      }
      __syncthreads();
      n = *pick;
    }
    VarlenSeq(p, n, &row0, &len);
    bh = n * p.H + h, b = 0;
    NT = (len + kC - 1) / kC;
  }
  const int warp = threadIdx.x / 32;

  E* const s_elems = reinterpret_cast<E*>(sm.s);
  Tensor sQ = make_tensor(make_smem_ptr(sm.q.begin()), typename K::LayoutQ{});    // (t, i, stage)
  Tensor sK = make_tensor(make_smem_ptr(sm.k.begin()), typename K::LayoutQ{});    // (s, i, stage)
  Tensor sKt = make_tensor(make_smem_ptr(sm.k.begin()), typename K::LayoutKt{});  // (i, s, stage)
  Tensor sG = make_tensor(make_smem_ptr(sm.g.begin()), typename K::LayoutG{});    // (t, i, stage)
  Tensor sV = make_tensor(make_smem_ptr(sm.v.begin()), typename K::LayoutV{});    // (j, s, stage)
  Tensor sS = make_tensor(make_smem_ptr(s_elems), typename K::LayoutS{});         // (j, i)
  Tensor sSt = make_tensor(make_smem_ptr(s_elems), typename K::LayoutSt{});       // (i, j)
  Tensor sA = make_tensor(make_smem_ptr(sm.a.begin()), typename K::LayoutA{});    // (t, s)
  Tensor sO = make_tensor(make_smem_ptr(sm.o.begin()), typename K::LayoutO{});    // (t, j)

  if (threadIdx.x == 0) {
    for (int st = 0; st < kQkStages; ++st) {
      cutlass::arch::ClusterTransactionBarrier::init(&sm.full_qk[st], 1);
      cutlass::arch::ClusterBarrier::init(&sm.empty_qk[st], kConsumers);
    }
    for (int st = 0; st < kStages; ++st) {
      cutlass::arch::ClusterTransactionBarrier::init(&sm.full_g[st], 1);
      cutlass::arch::ClusterBarrier::init(&sm.empty_g[st], kConsumers);
      cutlass::arch::ClusterTransactionBarrier::init(&sm.full_v[st], 1);
      cutlass::arch::ClusterBarrier::init(&sm.empty_v[st], kConsumers);
    }
    if constexpr (kVarlen) {
      cutlass::arch::ClusterTransactionBarrier::init(&sm.tail_v, 1);
      sm.tail_rows = NT > 0 ? len - (NT - 1) * kC : kC;
    }
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();

  if (warp < 4) {
    // ---- producer ----------------------------------------------------------------------------
    // Chunk m's gk (consumed while chunk m - 1's products run), q and k (until chunk m's products
    // are done) and v (the same), each ring waiting for its slot to be freed.
    cutlass::arch::warpgroup_reg_dealloc<40>();
    if (warp == 0 && cute::elect_one_sync()) {
      Tensor mQ = p.tma_q.get_tma_tensor(make_shape(p.T, p.Dk, p.H, p.B));
      Tensor mK = p.tma_k.get_tma_tensor(make_shape(p.T, p.Dk, p.H, p.B));
      Tensor mG = p.tma_g.get_tma_tensor(make_shape(p.T, p.Dk, p.H, p.B));
      Tensor mV = p.tma_v.get_tma_tensor(make_shape(p.Dv, p.T, p.H, p.B));
      Tensor gQ = local_tile(SeqRows<kVarlen, 0>(mQ(_, _, h, b), row0), Shape<Int<kC>, Int<DK>>{}, make_coord(_, 0));  // (C, DK, n)
      Tensor gK = local_tile(SeqRows<kVarlen, 0>(mK(_, _, h, b), row0), Shape<Int<kC>, Int<DK>>{}, make_coord(_, 0));
      Tensor gG = local_tile(SeqRows<kVarlen, 0>(mG(_, _, h, b), row0), Shape<Int<kC>, Int<DK>>{}, make_coord(_, 0));
      Tensor gV = local_tile(SeqRows<kVarlen, 1>(mV(_, _, h, b), row0), Shape<Int<BV>, Int<kC>>{}, make_coord(vt, _));  // (BV, C, n)
      auto [tQg, tQs] = tma_partition(p.tma_q, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sQ), group_modes<0, 2>(gQ));
      auto [tKg, tKs] = tma_partition(p.tma_k, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sK), group_modes<0, 2>(gK));
      auto [tGg, tGs] = tma_partition(p.tma_g, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sG), group_modes<0, 2>(gG));
      auto [tVg, tVs] = tma_partition(p.tma_v, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sV), group_modes<0, 2>(gV));
      int tail_rows = kC;  // packed sequences: the last chunk's rows inside the sequence
      if constexpr (kVarlen) tail_rows = sm.tail_rows;
      for (int m = 0; m < NT; ++m) {
        const int sg = m % kStages, sq = m % kQkStages;
        if (m >= kStages) cutlass::arch::ClusterBarrier::wait(&sm.empty_g[sg], (m / kStages - 1) & 1);
        cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&sm.full_g[sg], K::kTxG);
        copy(p.tma_g.with(sm.full_g[sg]), tGg(_, chunk0 + m), tGs(_, sg));
        if (m >= kQkStages) cutlass::arch::ClusterBarrier::wait(&sm.empty_qk[sq], (m / kQkStages - 1) & 1);
        cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&sm.full_qk[sq], K::kTxQk);
        if constexpr (kMode != 2) copy(p.tma_q.with(sm.full_qk[sq]), tQg(_, chunk0 + m), tQs(_, sq));
        copy(p.tma_k.with(sm.full_qk[sq]), tKg(_, chunk0 + m), tKs(_, sq));
        if (m >= kStages) cutlass::arch::ClusterBarrier::wait(&sm.empty_v[sg], (m / kStages - 1) & 1);
        if constexpr (kVarlen) {
          if (m == NT - 1 && tail_rows < kC) {  // the partial last chunk: on tail_v (below)
            cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&sm.tail_v, K::kTxV);
            copy(p.tma_v.with(sm.tail_v), tVg(_, m), tVs(_, sg));
            continue;
          }
        }
        cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx(&sm.full_v[sg], K::kTxV);
        copy(p.tma_v.with(sm.full_v[sg]), tVg(_, chunk0 + m), tVs(_, sg));
      }
    }
    if constexpr (kVarlen) {
      // Packed sequences, a partial last chunk: its v tile holds the next sequence's rows past
      // `valid` (0 * inf would reach S through Kd^T V and o through A V). Warp 0 waits for the
      // tile, zeroes those rows (16-byte pieces: 8 consecutive j of one row s, contiguous under
      // the GMMA swizzles; VarlenZeroPiecesHold checks it on the host), makes the generic writes
      // visible to the async proxy (the consumers' wgmma), and only then completes full_v's
      // phase for the consumers (one plain arrive, no bytes). The row count comes from shared
      // memory: using the consumers' live `len` here made ptxas spill it (BV 64).
      const int valid = sm.tail_rows;
      if (warp == 0 && valid < kC) {
        const int sg = (NT - 1) % kStages;
        cutlass::arch::ClusterTransactionBarrier::wait(&sm.tail_v, 0);
        const int lane = threadIdx.x % 32;
        const int pieces = (kC - valid) * (BV / 8);
        for (int q = lane; q < pieces; q += 32) {
          const int s = valid + q / (BV / 8), j = (q % (BV / 8)) * 8;
          *reinterpret_cast<uint4*>(&sV(j, s, sg)) = make_uint4(0u, 0u, 0u, 0u);
        }
        cutlass::arch::fence_view_async_shared();
        __syncwarp();
        if (lane == 0) cutlass::arch::ClusterBarrier::arrive(&sm.full_v[sg]);
      }
    }
    return;
  }

  // ---- consumers ---------------------------------------------------------------------------------
  cutlass::arch::warpgroup_reg_alloc<232>();
  const int ct = threadIdx.x - 128;

  typename K::MmaA mma_a;
  typename K::MmaS mma_s;
  typename K::MmaO mma_o;
  auto thr_a = mma_a.get_thread_slice(ct);
  auto thr_s = mma_s.get_thread_slice(ct);
  auto thr_o = mma_o.get_thread_slice(ct);

  Tensor tArQ = thr_a.make_fragment_A(thr_a.partition_A(sQ));   // (MMA, M, K, stage)
  Tensor tArK = thr_a.make_fragment_B(thr_a.partition_B(sK));
  Tensor accA = partition_fragment_C(mma_a, Shape<Int<kC>, Int<kC>>{});
  Tensor tAcA = thr_a.partition_C(make_identity_tensor(Shape<Int<kC>, Int<kC>>{}));

  Tensor tSrK = thr_s.make_fragment_A(thr_s.partition_A(sKt));
  Tensor tSrV = thr_s.make_fragment_B(thr_s.partition_B(sV));
  Tensor accS = partition_fragment_C(mma_s, Shape<Int<DK>, Int<BV>>{});
  Tensor tScS = thr_s.partition_C(make_identity_tensor(Shape<Int<DK>, Int<BV>>{}));

  Tensor tOrQ = thr_o.make_fragment_A(thr_o.partition_A(sQ));
  Tensor tOrS = thr_o.make_fragment_B(thr_o.partition_B(sS));
  Tensor tOrA = thr_o.make_fragment_A(thr_o.partition_A(sA));
  Tensor tOrV = thr_o.make_fragment_B(thr_o.partition_B(sV));
  Tensor accO = partition_fragment_C(mma_o, Shape<Int<kC>, Int<BV>>{});
  // The accumulators' stores (sS, A, o): thread 0's coordinates as the deltas (SwizzledTile).
  const auto dS = mma_s.get_thread_slice(0).partition_C(make_identity_tensor(Shape<Int<DK>, Int<BV>>{}));
  const auto dA = mma_a.get_thread_slice(0).partition_C(make_identity_tensor(Shape<Int<kC>, Int<kC>>{}));
  const auto dO = mma_o.get_thread_slice(0).partition_C(make_identity_tensor(Shape<Int<kC>, Int<BV>>{}));
  const SwizzledTile<OffsetLayout<typename K::LayoutSt>> offS(tScS(0));  // (i, j)
  const SwizzledTile<OffsetLayout<typename K::LayoutA>> offA(tAcA(0));   // (t, s)
  const SwizzledTile<OffsetLayout<typename K::LayoutO>> offO(
      thr_o.partition_C(make_identity_tensor(Shape<Int<kC>, Int<BV>>{}))(0));  // (t, j)
  E* const a_elems = raw_pointer_cast(sm.a.begin());
  E* const o_elems = raw_pointer_cast(sm.o.begin());

  // The initial state (zeros without one); a segment's: zeros (state only), h0 (the first) or
  // the combined state at its start.
  const int64_t state_base = int64_t(bh) * p.Dk * p.Dv;
  if constexpr (kMode == 0) {
    CUTE_UNROLL
    for (int e = 0; e < size(accS); ++e) {
      const int i = get<0>(tScS(e)), j = vt * BV + get<1>(tScS(e));
      accS(e) = (p.h0 != nullptr && i < p.Dk && j < p.Dv) ? p.h0[state_base + int64_t(i) * p.Dv + j] : 0.f;
    }
  } else {
    const float* h0 = nullptr;
    if constexpr (kMode == 1) {
      h0 = blockIdx.z == 0 ? p.h0 : p.seg_state + int64_t(blockIdx.z - 1) * p.B * p.H * p.Dk * p.Dv;
    }
    CUTE_UNROLL
    for (int e = 0; e < size(accS); ++e) {
      const int i = get<0>(tScS(e)), j = vt * BV + get<1>(tScS(e));
      accS(e) = (h0 != nullptr && i < p.Dk && j < p.Dv) ? h0[state_base + int64_t(i) * p.Dv + j] : 0.f;
    }
  }
  if constexpr (kVarlen) {
    if (NT == 0) {  // an empty sequence: ht = h0
      if (p.ht != nullptr) {
        CUTE_UNROLL
        for (int e = 0; e < size(accS); ++e) {
          const int i = get<0>(tScS(e)), j = vt * BV + get<1>(tScS(e));
          if (i < p.Dk && j < p.Dv) p.ht[state_base + int64_t(i) * p.Dv + j] = accS(e);
        }
      }
      return;
    }
  }
  // A thread's state accumulators cover two rows of S, srow and srow + 8 (the GMMA accumulator
  // layout: element e lies in row srow + 8 ((e / 2) mod 2)); their scalings are kept per chunk.
  const int srow = get<0>(tScS(0));

  // o's TMA store (issued by consumer thread 0).
  Tensor mO = p.tma_o.get_tma_tensor(make_shape(p.T, p.Dv, p.H, p.B));
  Tensor gO = local_tile(SeqRows<kVarlen, 0>(mO(_, _, h, b), row0), Shape<Int<kC>, Int<BV>>{}, make_coord(_, vt));  // (C, BV, n)
  auto [tOg, tOs] = tma_partition(p.tma_o, Int<0>{}, Layout<_1>{}, group_modes<0, 2>(sO), group_modes<0, 2>(gO));

  constexpr int kPairs = K::kPairs, kGroups = K::kGroups, kRows = K::kRows, kRefGroups = K::kRefGroups;
  const int cp = ct % kPairs, grp = ct / kPairs;
  const int i0 = 2 * cp, r0 = grp * kRows;

  // The element offsets of this thread's q/k/gk rows r0 .. r0 + kRows - 1 at column i0 (the three
  // share one tile layout), computed once: r0 is a multiple of 8 and the swizzle repeats every 8
  // rows, so rows r and r + 8 lie step8 apart, and the stages (whole multiples of the swizzle's
  // 1024 bytes) stage_step apart.
  static_assert(kRows % 8 == 0, "a thread's rows start on a swizzle period");
  // (The bases straight from the storage, so that they stay shared-memory pointers.)
  E* const q0 = raw_pointer_cast(sm.q.begin());
  E* const k0 = raw_pointer_cast(sm.k.begin());
  const E* const g0p = raw_pointer_cast(sm.g.begin());
  float* const pc = reinterpret_cast<float*>(sm.s);
  const int step8 = int(&sQ(8, 0, 0) - &sQ(0, 0, 0));
  const int stage_step = int(&sQ(0, 0, 1) - &sQ(0, 0, 0));
  int roff[8];
  CUTE_UNROLL
  for (int r = 0; r < 8; ++r) roff[r] = int(&sQ(r0 + r, i0, 0) - &sQ(0, 0, 0));
  auto pc_at = [](int t, int i) { return t * DK + (i ^ (2 * (t & 15))); };

  // The element-wise part of chunk m: Qd, Kd in place (and in the other mode the element-wise A
  // in sA), the scalings of this thread's two state rows (sS, before and after the state MMA);
  // returns whether the chunk is safe. Called while chunk m - 1's products may still run: it
  // waits for all but the last group (o += A V; warpgroup_wait<wait_os>) before its barrier that
  // the rewrite of sS follows, and in the other mode for all of them.
  float vs[2], vp[2], vpost[2];
  float dec[2] = {0.f, 0.f};  // state only: the segment's gate sums of the two state rows (log2 units)
  auto element_wise = [&](int m, auto wait_os) -> bool {
    const int sq = m % kQkStages, sg = m % kStages;
    // Packed sequences: rows valid .. 63 of the last chunk lie past the sequence (their gates and
    // Kd count as zero).
    int valid = kC;
    if constexpr (kVarlen) valid = len - m * kC;
    (void)valid;
    cutlass::arch::ClusterTransactionBarrier::wait(&sm.full_g[sg], (m / kStages) & 1);
    // Pass 1: each thread's sums of its rows of two gate columns, in units of ln 2 (gk log2 e)
    // up to the other mode's part.
    float g0[kRows], g1[kRows];
    float s0 = 0.f, s1 = 0.f;
    auto grow = [&](int r) { return sg * stage_step + roff[r % 8] + (r / 8) * step8; };
    auto qrow = [&](int r) { return sq * stage_step + roff[r % 8] + (r / 8) * step8; };
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) {
      float2 gg = Load2(g0p + grow(r));
      if constexpr (kVarlen) {
        if (r0 + r >= valid) gg = make_float2(0.f, 0.f);
      }
      g0[r] = gg.x * kLog2e, g1[r] = gg.y * kLog2e;
      s0 += g0[r], s1 += g1[r];
    }
    *reinterpret_cast<float2*>(&sm.tot[grp][i0]) = make_float2(s0, s1);
    ConsumerSync(1);

    // Pass 2: per column, sums of the group totals: below / above the own group, rows 0..31
    // (ref = P_m), rows 32..63 (post = P_63 - P_m), between the own group and the reference.
    // Every exponent below is a direct sum of the gates it spans (never a difference of two
    // cumulative sums, which a huge gate would absorb).
    float below0 = 0.f, below1 = 0.f, above0 = 0.f, above1 = 0.f, mid0 = 0.f, mid1 = 0.f;
    CUTE_UNROLL
    for (int gi = 0; gi < kGroups; ++gi) {
      const float t0 = sm.tot[gi][i0], t1 = sm.tot[gi][i0 + 1];
      if (gi < grp) below0 += t0, below1 += t1;
      if (gi > grp) above0 += t0, above1 += t1;
      if ((grp < gi && gi < kRefGroups) || (kRefGroups <= gi && gi < grp)) mid0 += t0, mid1 += t1;
    }
    // The same sums for this thread's two state rows.
    float sref[2] = {0.f, 0.f}, spost[2] = {0.f, 0.f};
    CUTE_UNROLL
    for (int gi = 0; gi < kGroups; ++gi) {
      CUTE_UNROLL
      for (int u = 0; u < 2; ++u) {
        const float t = sm.tot[gi][srow + 8 * u];
        if (gi < kRefGroups) sref[u] += t;
        else spost[u] += t;
      }
    }
    if constexpr (kMode == 2) {
      CUTE_UNROLL
      for (int u = 0; u < 2; ++u) dec[u] += sref[u] + spost[u];
    }
    // a log2 e, a = P_t - P_m: -(gates t+1..31) above the reference row, (gates 32..t) below it;
    // in place of the gates (the other mode reads them again).
    bool ok = true;
    if (grp < kRefGroups) {
      float run0 = mid0, run1 = mid1;
      CUTE_UNROLL
      for (int r = kRows - 1; r >= 0; --r) {
        const float x0 = g0[r], x1 = g1[r];
        g0[r] = -run0, g1[r] = -run1;
        run0 += x0, run1 += x1;
      }
    } else {
      float run0 = mid0, run1 = mid1;
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        run0 += g0[r], run1 += g1[r];
        g0[r] = run0, g1[r] = run1;
      }
    }
    CUTE_UNROLL
    for (int r = 0; r < kRows; ++r) ok = ok && (fabsf(g0[r]) <= SafeRange<E>() * kLog2e) && (fabsf(g1[r]) <= SafeRange<E>() * kLog2e);
    cutlass::arch::ClusterTransactionBarrier::wait(&sm.full_qk[sq], (m / kQkStages) & 1);
    warpgroup_wait<decltype(wait_os)::value>();  // chunk m - 1's o = Qd sS has read sS
    const bool safe = !ConsumerSyncOr(2, !ok || p.force_other_mode);

    if (safe) {
      // Pass 3: Qd and Kd in place.
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        if constexpr (kMode != 2) {
          E* pq = q0 + qrow(r);
          E* pk = k0 + qrow(r);
          float2 qq = Load2(pq), kk = Load2(pk);
          if constexpr (kVarlen) {
            if (r0 + r >= valid) kk = make_float2(0.f, 0.f);
          }
          Store2(pq, qq.x * Exp2Ftz(g0[r]) * p.scale, qq.y * Exp2Ftz(g1[r]) * p.scale);
          Store2(pk, kk.x * Exp2Ftz(-g0[r]), kk.y * Exp2Ftz(-g1[r]));
        } else {
          E* pk = k0 + qrow(r);
          const float2 kk = Load2(pk);
          Store2(pk, kk.x * Exp2Ftz(-g0[r]), kk.y * Exp2Ftz(-g1[r]));
        }
      }
      cutlass::arch::ClusterBarrier::arrive(&sm.empty_g[sg]);
      CUTE_UNROLL
      for (int u = 0; u < 2; ++u) {
        vs[u] = vp[u] = exp2f(sref[u]);
        vpost[u] = exp2f(spost[u]);
      }
    } else {
      // The other mode: chunk m - 1's products done everywhere (sA and sS are rewritten).
      warpgroup_wait<0>();
      float c0 = 0.f, c1 = 0.f;
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        float2 gg = Load2(g0p + grow(r));
        if constexpr (kVarlen) {
          if (r0 + r >= valid) gg = make_float2(0.f, 0.f);
        }
        g0[r] = gg.x, g1[r] = gg.y;
        c0 += fmaxf(gg.x, -kClampGate), c1 += fmaxf(gg.y, -kClampGate);
      }
      cutlass::arch::ClusterBarrier::arrive(&sm.empty_g[sg]);
      if constexpr (kMode != 2) {  // (the state-only pass has no A)
        *reinterpret_cast<float2*>(&sm.totc[grp][i0]) = make_float2(c0, c1);
        ConsumerSync(3);
        // The element-wise A, from the raw q, k (before they are scaled in place below) and the
        // cumulative sums of the clamped gates (bounded, so their differences are finite).
        float cpre0 = 0.f, cpre1 = 0.f;
        for (int gi = 0; gi < grp; ++gi) cpre0 += sm.totc[gi][i0], cpre1 += sm.totc[gi][i0 + 1];
        CUTE_UNROLL
        for (int r = 0; r < kRows; ++r) {
          cpre0 += fmaxf(g0[r], -kClampGate), cpre1 += fmaxf(g1[r], -kClampGate);
          *reinterpret_cast<float2*>(&pc[pc_at(r0 + r, i0)]) = make_float2(cpre0, cpre1);
      }
      ConsumerSync(4);
      for (int e = ct; e < kC * kC; e += kConsumers) {
        const int t = e / kC, s = e % kC;
        float acc = 0.f;
        if (s <= t) {
          for (int i = 0; i < DK; i += 2) {
            const float2 qq = Load2(&sQ(t, i, sq));
            const float2 kk = Load2(&sK(s, i, sq));
            const float2 pt = *reinterpret_cast<const float2*>(&pc[pc_at(t, i)]);
            const float2 ps = *reinterpret_cast<const float2*>(&pc[pc_at(s, i)]);
            acc += qq.x * kk.x * __expf(pt.x - ps.x);
            acc += qq.y * kk.y * __expf(pt.y - ps.y);
          }
        }
        sA(t, s) = E(acc * p.scale);
      }
      ConsumerSync(5);
      }
      // Qd = scale q exp(P_t), Kd = k exp(gates t+1..63): running sums, exponents <= 0 for gk <= 0.
      // (The group sums back in natural units: the gates here are the raw ones.)
      float pre0 = below0 * kLn2, pre1 = below1 * kLn2, suf0 = above0 * kLn2, suf1 = above1 * kLn2;
      float kf0[kRows], kf1[kRows];
      CUTE_UNROLL
      for (int r = kRows - 1; r >= 0; --r) {
        kf0[r] = suf0, kf1[r] = suf1;
        suf0 += g0[r], suf1 += g1[r];
      }
      CUTE_UNROLL
      for (int r = 0; r < kRows; ++r) {
        if constexpr (kMode != 2) {
          pre0 += g0[r], pre1 += g1[r];
          E* pq = q0 + qrow(r);
          E* pk = k0 + qrow(r);
          float2 qq = Load2(pq), kk = Load2(pk);
          if constexpr (kVarlen) {
            if (r0 + r >= valid) kk = make_float2(0.f, 0.f);
          }
          Store2(pq, qq.x * __expf(pre0) * p.scale, qq.y * __expf(pre1) * p.scale);
          Store2(pk, kk.x * __expf(kf0[r]), kk.y * __expf(kf1[r]));
        } else {
          (void)pre0, (void)pre1;
          E* pk = k0 + qrow(r);
          const float2 kk = Load2(pk);
          Store2(pk, kk.x * __expf(kf0[r]), kk.y * __expf(kf1[r]));
        }
      }
      CUTE_UNROLL
      for (int u = 0; u < 2; ++u) {
        vs[u] = vpost[u] = 1.f;
        vp[u] = exp2f(sref[u] + spost[u]);
      }
    }
    return safe;
  };

  // sS = (post vs) S (o's operand), S <- (post vp) S, before chunk m's state MMA, post the
  // previous chunk's; in the factored mode vs = vp, so that sS is the new S rounded.
  auto rescale_state = [&](const float post_prev[2], bool next, bool next_safe) {
    if (next && next_safe) {
      const float f[2] = {post_prev[0] * vp[0], post_prev[1] * vp[1]};
      CUTE_UNROLL
      for (int e = 0; e < size(accS); e += 2) {
        const int u = (e / 2) % 2;
        accS(e) *= f[u], accS(e + 1) *= f[u];
        if constexpr (kMode != 2) Store2(s_elems + offS(dS(e)), accS(e), accS(e + 1));
      }
    } else if (next) {
      const float fs[2] = {post_prev[0] * vs[0], post_prev[1] * vs[1]};
      const float fp[2] = {post_prev[0] * vp[0], post_prev[1] * vp[1]};
      CUTE_UNROLL
      for (int e = 0; e < size(accS); e += 2) {
        const int u = (e / 2) % 2;
        if constexpr (kMode != 2) Store2(s_elems + offS(dS(e)), accS(e) * fs[u], accS(e + 1) * fs[u]);
        accS(e) *= fp[u], accS(e + 1) *= fp[u];
      }
    } else {
      CUTE_UNROLL
      for (int e = 0; e < size(accS); e += 2) {
        const int u = (e / 2) % 2;
        accS(e) *= post_prev[u], accS(e + 1) *= post_prev[u];
      }
    }
  };

  // Chunk 0's element-wise part and sS.
  bool safe = element_wise(0, Int<0>{});
  float post_cur[2] = {vpost[0], vpost[1]};
  {
    const float one[2] = {1.f, 1.f};
    rescale_state(one, true, safe);
  }
  cutlass::arch::fence_view_async_shared();
  ConsumerSync(6);

  // o of chunk n - 1 to sO (its TMA store has read chunk n - 2's: thread 0 waited before the
  // barrier that ended chunk n - 1).
  auto store_o = [&]() {
    CUTE_UNROLL
    for (int e = 0; e < size(accO); e += 2) Store2(o_elems + offO(dO(e)), accO(e), accO(e + 1));
  };
  for (int n = 0; n < NT; ++n) {
    const int sq = n % kQkStages, sv = n % kStages;
    cutlass::arch::ClusterTransactionBarrier::wait(&sm.full_v[sv], (n / kStages) & 1);

    if constexpr (kMode == 2) {
      // State only: S += Kd^T V.
      warpgroup_fence_operand(accS);
      warpgroup_arrive();
      mma_s.accumulate_ = GMMA::ScaleOut::One;
      CUTE_UNROLL
      for (int kb = 0; kb < size<2>(tSrK); ++kb) {
        cute::gemm(mma_s, tSrK(_, _, kb, sq), tSrV(_, _, kb, sv), accS);
      }
      warpgroup_commit_batch();
    } else {
      // A = Qd Kd^T and S += Kd^T V; chunk n - 1's o to sO meanwhile; then o = Qd sS (three groups).
      warpgroup_fence_operand(accS);
      warpgroup_fence_operand(accA);
      warpgroup_fence_operand(accO);
      warpgroup_arrive();
      // (Issued in both modes: a branch around wgmma would serialize them; the other mode drops A.)
      mma_a.accumulate_ = GMMA::ScaleOut::Zero;
      CUTE_UNROLL
      for (int kb = 0; kb < size<2>(tArQ); ++kb) {
        cute::gemm(mma_a, tArQ(_, _, kb, sq), tArK(_, _, kb, sq), accA);
        mma_a.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      mma_s.accumulate_ = GMMA::ScaleOut::One;
      CUTE_UNROLL
      for (int kb = 0; kb < size<2>(tSrK); ++kb) {
        cute::gemm(mma_s, tSrK(_, _, kb, sq), tSrV(_, _, kb, sv), accS);
      }
      warpgroup_commit_batch();
      if (n > 0) store_o();
      warpgroup_fence_operand(accO);
      warpgroup_arrive();
      mma_o.accumulate_ = GMMA::ScaleOut::Zero;
      CUTE_UNROLL
      for (int kb = 0; kb < size<2>(tOrQ); ++kb) {
        cute::gemm(mma_o, tOrQ(_, _, kb, sq), tOrS(_, _, kb), accO);
        mma_o.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_wait<2>();
      warpgroup_fence_operand(accA);

      if (safe) {
        CUTE_UNROLL
        for (int e = 0; e < size(accA); e += 2) {
          const int t = get<0>(tAcA(e)), s = get<1>(tAcA(e));
          Store2(a_elems + offA(dA(e)), s <= t ? accA(e) : 0.f, s + 1 <= t ? accA(e + 1) : 0.f);
        }
      }
      cutlass::arch::fence_view_async_shared();  // A and chunk n - 1's o
      ConsumerSync(7);
      if (ct == 0 && n > 0) {
        copy(p.tma_o, tOs, tOg(_, chunk0 + n - 1));
        tma_store_arrive();
      }

      // o += A V.
      warpgroup_arrive();
      CUTE_UNROLL
      for (int kb = 0; kb < size<2>(tOrA); ++kb) {
        cute::gemm(mma_o, tOrA(_, _, kb), tOrV(_, _, kb, sv), accO);
      }
      warpgroup_commit_batch();
    }

    // Chunk n + 1's element-wise part while the products run (S and o = Qd sS done before its
    // mode barrier).
    const bool next = n + 1 < NT;
    bool safe_next = true;
    if (next) safe_next = element_wise(n + 1, Int<1>{});
    warpgroup_wait<0>();
    warpgroup_fence_operand(accS);
    if constexpr (kMode != 2) warpgroup_fence_operand(accO);
    cutlass::arch::ClusterBarrier::arrive(&sm.empty_qk[sq]);  // chunk n's q, k, v are free
    cutlass::arch::ClusterBarrier::arrive(&sm.empty_v[sv]);

    // S after chunk n, and chunk n + 1's sS.
    rescale_state(post_cur, next, safe_next);
    post_cur[0] = vpost[0], post_cur[1] = vpost[1];
    safe = safe_next;
    cutlass::arch::fence_view_async_shared();
    if constexpr (kMode != 2) {
      if (ct == 0) tma_store_wait<0>();  // chunk n - 1's o has left sO
    }
    ConsumerSync(6);
  }
  if constexpr (kMode == 2) {
    // The segment's local state and (one Dv tile, one thread per row) its decay, slot z.
    const int64_t bhs = int64_t(blockIdx.z) * p.B * p.H + bh;
    CUTE_UNROLL
    for (int e = 0; e < size(accS); ++e) {
      const int i = get<0>(tScS(e)), j = vt * BV + get<1>(tScS(e));
      if (i < p.Dk && j < p.Dv) p.seg_state[bhs * p.Dk * p.Dv + int64_t(i) * p.Dv + j] = accS(e);
    }
    if (vt == 0 && get<1>(tScS(0)) == 0) {
      CUTE_UNROLL
      for (int u = 0; u < 2; ++u) {
        const int i = srow + 8 * u;
        if (i < p.Dk) p.seg_decay[bhs * p.Dk + i] = exp2f(dec[u]);
      }
    }
    return;
  } else {
    // The last chunk's o (packed sequences, a partial chunk: its rows inside the sequence, from
    // the registers).
    bool direct = false;
    if constexpr (kVarlen) direct = len - (NT - 1) * kC < kC;
    if (!direct) {
      store_o();
      cutlass::arch::fence_view_async_shared();
      ConsumerSync(7);
      if (ct == 0) {
        copy(p.tma_o, tOs, tOg(_, chunk0 + NT - 1));
        tma_store_arrive();
      }
    } else if constexpr (kVarlen) {
      const auto tOcO = thr_o.partition_C(make_identity_tensor(Shape<Int<kC>, Int<BV>>{}));
      const int n_seq = bh / p.H;
      int first, seq_len;
      VarlenSeq(p, n_seq, &first, &seq_len);
      const int rows = seq_len - (NT - 1) * kC;
      E* const og = static_cast<E*>(p.o) + int64_t(bh - n_seq * p.H) * p.v_sh + int64_t(first + (NT - 1) * kC) * p.v_st;
      CUTE_UNROLL
      for (int e = 0; e < size(accO); e += 2) {
        const int t = get<0>(tOcO(e)), j = vt * BV + get<1>(tOcO(e));
        if (t < rows && j < p.Dv) Store2(og + int64_t(t) * p.v_st + j, accO(e), accO(e + 1));
      }
    }

    bool write_ht = p.ht != nullptr;
    if constexpr (kMode == 1) write_ht = write_ht && int(blockIdx.z) == p.num_segs - 1;
    if (write_ht) {
      CUTE_UNROLL
      for (int e = 0; e < size(accS); ++e) {
        const int i = get<0>(tScS(e)), j = vt * BV + get<1>(tScS(e));
        if (i < p.Dk && j < p.Dv) p.ht[state_base + int64_t(i) * p.Dv + j] = accS(e);
      }
    }
    if (ct == 0) tma_store_wait<0>();
  }
#endif
}

// The kernel of one configuration, its dynamic shared memory and its launch (the caller has
// allowed that shared memory: cudaFuncSetAttribute, once per device).
template <class E, int DK, int BV, int kStages>
constexpr auto FwdKernelPtr() {
  return &GlaFwdSm90Kernel<FwdKernel<E, DK, BV, kStages>>;
}
template <class E, int DK, int BV, int kStages>
constexpr int FwdSmemBytes() {
  return FwdKernel<E, DK, BV, kStages>::kSmemBytes;
}
template <class E, int DK, int BV, int kStages>
cudaError_t LaunchFwdOnly(const FwdArgs& a, cudaStream_t stream) {
  using K = FwdKernel<E, DK, BV, kStages>;
  const typename K::Params params = K::MakeParams(a);
  const dim3 grid((a.Dv + BV - 1) / BV, a.B * a.H);
  FwdKernelPtr<E, DK, BV, kStages>()<<<grid, kThreads, K::kSmemBytes, stream>>>(params);
  return cudaGetLastError();
}

// Whether the call fits this kernel: 16-bit q, k, gk, v, o with 16-byte aligned rows (TMA),
// 1 <= Dk <= 128, heads in the grid's y (65535), T >= 1; the caller checks the device.
inline bool FwdFits(const FwdArgs& a, int elem_bytes) {
  auto aligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; };
  return elem_bytes == 2 && a.Dk >= 1 && a.Dk <= 128 && a.Dv >= 1 && a.T >= 1 && (a.Dk * elem_bytes) % 16 == 0 &&
         (a.Dv * elem_bytes) % 16 == 0 && int64_t(a.B) * a.H >= 1 && int64_t(a.B) * a.H <= 65535 &&
         aligned(a.q) && aligned(a.k) && aligned(a.v) && aligned(a.g) && aligned(a.o);
}

// Launches the forward of one configuration (with the shared-memory attribute); returns the
// launch error. The harness's entry point.
template <class E, int DK, int BV, int kStages>
cudaError_t LaunchFwd(const FwdArgs& a, cudaStream_t stream) {
  cudaError_t err = cudaFuncSetAttribute(FwdKernelPtr<E, DK, BV, kStages>(),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         FwdSmemBytes<E, DK, BV, kStages>());
  if (err != cudaSuccess) return err;
  return LaunchFwdOnly<E, DK, BV, kStages>(a, stream);
}

// ---- packed variable-length sequences (cu_seqlens; FwdVarlenKernel above) ----------------------
// One launch, offsets read on the device. `a`: B = 1, T the packed length, strides of the packed
// tensors ([1, T, H, D] or [1, H, T, D], RowStrides with T the packed length), h0 / ht [N, H, Dk, Dv];
// cu_seqlens: N + 1 int32 (offsets64 false) or int64 offsets on the device. The library's forward
// takes it (kernels/gla/launch_gpu.cuh, RunSm90ForwardVarlen); measured in tools/dev/harness/gla/
// (--varlen).
template <class E, int DK, int BV, int kStages>
constexpr auto FwdVarlenKernelPtr() {
  return &GlaFwdSm90Kernel<FwdVarlenKernel<E, DK, BV, kStages>>;
}
inline bool FwdVarlenFits(const FwdArgs& a, int elem_bytes, int num_seqs) {
  return a.B == 1 && num_seqs >= 1 && int64_t(num_seqs) * a.H <= 65535 && FwdFits(a, elem_bytes);
}
template <class E, int DK, int BV, int kStages>
cudaError_t LaunchFwdVarlenOnly(const FwdArgs& a, const void* cu_seqlens, bool offsets64, int num_seqs, int order,
                                cudaStream_t stream) {
  using K = FwdVarlenKernel<E, DK, BV, kStages>;
  const typename K::Params params = K::MakeParams(a, cu_seqlens, offsets64, num_seqs, order);
  const dim3 grid((a.Dv + BV - 1) / BV, num_seqs * a.H);
  FwdVarlenKernelPtr<E, DK, BV, kStages>()<<<grid, kThreads, K::kSmemBytes, stream>>>(params);
  return cudaGetLastError();
}
template <class E, int DK, int BV, int kStages>
cudaError_t LaunchFwdVarlen(const FwdArgs& a, const void* cu_seqlens, bool offsets64, int num_seqs, int order,
                            cudaStream_t stream) {
  cudaError_t err = cudaFuncSetAttribute(FwdVarlenKernelPtr<E, DK, BV, kStages>(),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         FwdSmemBytes<E, DK, BV, kStages>());
  if (err != cudaSuccess) return err;
  return LaunchFwdVarlenOnly<E, DK, BV, kStages>(a, cu_seqlens, offsets64, num_seqs, order, stream);
}

// ---- the sequence split (issue 30: few heads leave SMs idle) ------------------------------------
// T in S segments of seg_chunks whole chunks: pass 1 (FwdSegKernel<..., 2>) the local state and
// decay of segments 0 .. S - 2, pass 2 (FwdSegCombine) their states at the start of segments
// 1 .. S - 1 in order, pass 3 (FwdSegKernel<..., 1>) the outputs of every segment. The library
// takes it at BV 128 for few heads (kernels/gla/launch_gpu.cuh, Sm90ForwardSegChunks); measured in
// tools/dev/harness/gla/.

// Pass 2: per state element (bh, i, j), in order over the segments, in float32 (deterministic):
// start_{z+1} = decay_z start_z + local_z, start_0 = h0 (or 0); slot z of seg_state becomes
// start_{z+1}. (A template, so that a translation unit that never calls it compiles none.)
template <int kThreadsPerBlock>
__global__ void __launch_bounds__(kThreadsPerBlock) FwdSegCombine(int num_segs, int64_t bh_count, int Dk, int Dv,
                                                                  const float* h0, float* seg_state,
                                                                  const float* seg_decay) {
  const int64_t per_head = int64_t(Dk) * Dv, n = bh_count * per_head;
  for (int64_t idx = blockIdx.x * int64_t(kThreadsPerBlock) + threadIdx.x; idx < n;
       idx += int64_t(gridDim.x) * kThreadsPerBlock) {
    const int64_t bh = idx / per_head;
    const int i = int((idx - bh * per_head) / Dv);
    float st = h0 != nullptr ? h0[idx] : 0.f;
    for (int z = 0; z + 1 < num_segs; ++z) {
      float* slot = seg_state + int64_t(z) * n + idx;
      st = fmaf(seg_decay[(int64_t(z) * bh_count + bh) * Dk + i], st, *slot);
      *slot = st;
    }
  }
}

// Chunks per segment for a call with `ctas` = B * H * ceil(Dv / BV) CTAs on `num_sms` SMs (one
// CTA an SM: the kernel's shared memory). The whole of T (no split) when the CTAs fill the SMs.
// Else the S of least modelled time: each CTA takes a fixed time per chunk (the kernel is
// latency-bound, docs/benchmarks.md), so a pass costs its waves times its chunks per segment
// plus a start (the pipeline's fill, about a chunk): the outputs pass ceil(ctas S / sms)
// (ceil(NT / S) + 1), the state-only pass (S - 1 segments) kStatePassCost times its own; ties go
// to the fewer segments (less workspace, a shorter combine). kStatePassCost is a guess until the
// harness's sweep measures it.
inline int FwdSplitSegChunks(const FwdArgs& a, int BV, int num_sms) {
  constexpr double kStatePassCost = 0.5;
  const int NT = (a.T + kC - 1) / kC;
  const int64_t ctas = int64_t(a.B) * a.H * ((a.Dv + BV - 1) / BV);
  if (ctas >= num_sms || NT < 2) return NT;
  auto waves = [&](int64_t n) { return double((n + num_sms - 1) / num_sms); };
  int best = 1;
  double best_cost = double(NT) + 1;
  const int max_segs = int(std::min<int64_t>(NT, 8 * ((num_sms + ctas - 1) / ctas)));
  for (int S = 2; S <= max_segs; ++S) {
    const double len = double((NT + S - 1) / S) + 1;
    const double cost = waves(ctas * S) * len + kStatePassCost * waves(ctas * (S - 1)) * len;
    if (cost < best_cost - 1e-9) best = S, best_cost = cost;
  }
  return (NT + best - 1) / best;
}
inline int FwdSplitSegments(const FwdArgs& a, int seg_chunks) {
  const int NT = (a.T + kC - 1) / kC;
  return (NT + seg_chunks - 1) / seg_chunks;
}
// The float32 workspace of a split into S segments: (S - 1) states and decays.
inline size_t FwdSplitWorkspaceBytes(const FwdArgs& a, int seg_chunks) {
  const int64_t S = FwdSplitSegments(a, seg_chunks);
  const int64_t bh = int64_t(a.B) * a.H;
  return size_t((S - 1) * bh * a.Dk * (int64_t(a.Dv) + 1) * 4);
}

template <class E, int DK, int BV, int kStages, int kMode>
constexpr auto FwdSegKernelPtr() {
  return &GlaFwdSm90Kernel<FwdSegKernel<E, DK, BV, kStages, kMode>>;
}

// The three passes (one pass, LaunchFwdOnly, when S = 1); `workspace`: FwdSplitWorkspaceBytes,
// 4-byte aligned. The caller has allowed the shared memory of both segment kernels
// (FwdSegKernelPtr<..., 1> and <..., 2>, FwdSmemBytes).
template <class E, int DK, int BV, int kStages>
cudaError_t LaunchFwdSplitOnly(const FwdArgs& a, int seg_chunks, float* workspace, cudaStream_t stream) {
  const int S = FwdSplitSegments(a, seg_chunks);
  if (S <= 1) return LaunchFwdOnly<E, DK, BV, kStages>(a, stream);
  using K1 = FwdSegKernel<E, DK, BV, kStages, 1>;
  using K2 = FwdSegKernel<E, DK, BV, kStages, 2>;
  const int64_t bh = int64_t(a.B) * a.H;
  float* seg_state = workspace;
  float* seg_decay = workspace + (S - 1) * bh * a.Dk * a.Dv;
  const int vtiles = (a.Dv + BV - 1) / BV;
  const typename K2::Params p2 = K2::MakeParams(a, seg_chunks, S, seg_state, seg_decay);
  FwdSegKernelPtr<E, DK, BV, kStages, 2>()<<<dim3(vtiles, a.B * a.H, S - 1), kThreads, K2::kSmemBytes, stream>>>(p2);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  constexpr int kCombineThreads = 256;
  const int64_t n = bh * a.Dk * a.Dv;
  const int64_t want_blocks = (n + kCombineThreads - 1) / kCombineThreads;
  const int blocks = int(want_blocks < 65535 ? want_blocks : 65535);
  FwdSegCombine<kCombineThreads><<<blocks, kCombineThreads, 0, stream>>>(S, bh, a.Dk, a.Dv, a.h0, seg_state, seg_decay);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  const typename K1::Params p1 = K1::MakeParams(a, seg_chunks, S, seg_state, seg_decay);
  FwdSegKernelPtr<E, DK, BV, kStages, 1>()<<<dim3(vtiles, a.B * a.H, S), kThreads, K1::kSmemBytes, stream>>>(p1);
  return cudaGetLastError();
}

// The same with the shared-memory attributes set (the harness's entry point).
template <class E, int DK, int BV, int kStages>
cudaError_t LaunchFwdSplit(const FwdArgs& a, int seg_chunks, float* workspace, cudaStream_t stream) {
  const int bytes = FwdSmemBytes<E, DK, BV, kStages>();
  constexpr auto kAttr = cudaFuncAttributeMaxDynamicSharedMemorySize;
  cudaError_t err = cudaFuncSetAttribute(FwdKernelPtr<E, DK, BV, kStages>(), kAttr, bytes);
  if (err == cudaSuccess) err = cudaFuncSetAttribute(FwdSegKernelPtr<E, DK, BV, kStages, 1>(), kAttr, bytes);
  if (err == cudaSuccess) err = cudaFuncSetAttribute(FwdSegKernelPtr<E, DK, BV, kStages, 2>(), kAttr, bytes);
  if (err != cudaSuccess) return err;
  return LaunchFwdSplitOnly<E, DK, BV, kStages>(a, seg_chunks, workspace, stream);
}

}  // namespace gla_sm90
