// The diagnostic ladder of the GPU scan tiles (issue 29, scan engine v3; tools/dev/harness/README.md,
// "Diagnostic ladder"): where a float32 single-pass tile spends the time it takes above a
// device-to-device copy of the same tensor. Each rung is a kernel that adds one step of the tile to
// the rung before it, in the tile's own geometry (a block per tile taken by an atomic ticket, lane l
// holding kItems consecutive elements from 16-byte loads, stores staged per warp through shared
// memory: the library's BlockedGroup and BlockRowKernel order, kernels/funcs/gpu/scan_block_rows.cuh):
//   1 copy        the loads and the stores, nothing else (output = input);
//   2 serial      + the thread's serial sum of its items (pass 1), then its items rescanned from a
//                 prefix that depends on that sum (pass 2; the prefix a zero, so the output is the
//                 scan of each thread's kItems): float, or accumulated in double as cumsum does;
//   3 warp        + the warp's scan of the thread sums (shuffles): scans of 32 * kItems steps;
//   4 block       + the block's scan of the warp sums: `bs2` two barriers (warp 0 scans them),
//                 `bs1` one barrier (each warp folds the sums of the warps before it), `lib3` the
//                 library's BlockScanOne (two barriers and one for reuse): scans of a tile;
//   5 lse         logcumsumexp's arithmetic on a tile without a look-back: the tile's max (a
//                 block reduction, one barrier more), ex2.approx of each x - max, float sums
//                 scanned as rung 4 (bs2), lg2.approx for the output;
//   6 lb          rung 4 (bs2) + the library's decoupled look-back (BlockLookbackPoll over 16-byte
//                 status words, FoldInOrder), the op a plain sum: the line's whole scan; `6 lb lse`
//                 rung 5 + the same look-back of (max, float sum) states, each output
//                 r + log2(base + f * terms so far) * ln2 from the carry: the whole logcumsumexp.
//   7 pipe        rung 6 in persistent blocks that draw the next tile and start its loads (cp.async
//                 into a shared stage, kStages - 1 tiles ahead) before the look-back; `/2` `/3` in
//                 the geometry are the stages here;
//   8 r2          rung 6 in persistent blocks that read each tile twice: R (aggregate, published),
//                 then R of the next tile before the look-back of this one, then S (the tile again,
//                 from the L2: the scan and the stores); `/n` in the geometry the blocks an SM;
//                 `grp` with the group look-back.
// `grp`: the look-back over groups of 32 tiles (GroupLookBack, deterministic); `diag`: the clock
// sums of each part of a tile printed under the row (DiagSlot).
// `il`: pass 1 interleaved with the loads (each 16-byte load waits for the previous chunk's sum)
// instead of every load issued before any arithmetic; `noticket`: tile = blockIdx.x. Rows rungs are
// pinned to the blocks an SM the tile is compiled for (dynamic shared memory makes the rest not
// fit; `[n/SM]` in the name is the occupancy measured), `free` leaves the occupancy to the
// registers. `tile ...` rows are the scan1d harness's tiles themselves
// (tools/dev/harness/scan1d/scan1d_variants.cuh; `nolb` its diagnostic without the look-back, its
// outputs not the op's: unchecked).
// Columns (inner > 1): `strip` rungs in the geometry of the column strips (StripColumnKernel of
// kernels/funcs/gpu/scan_columns.cuh: a block of 256 threads per strip of 32 adjacent lines, 8
// threads across of 4 lines each, 32 rows of 8 steps, segments of 256 steps staged by cp.async two
// segments ahead): 1 copy through the stages; 2 + each thread's 8 steps of each line scanned in
// registers (float sum, or logcumsumexp with ex2/lg2); 3 + the scan of the row totals down the 32
// rows (cub::WarpScan, the carry of each line in registers): the whole column. `walk K<k>`: a
// thread per line walking it whole, k steps loaded ahead into registers.
// Checks (outputs poisoned before the checked run): copies bit for bit; sums against float64
// within the rung's segments, err in units of 1e-5 of the segment's running sum of |x|;
// logcumsumexp in units of 1e-5 absolute; `ok` needs err <= 1.
// Times: the median of 15 runs (after 3), each with the launcher's memset (the ticket, or every
// status word for the look-back rungs) as the library pays it, against a device-to-device copy of
// the same bytes timed in the same run.
// Build: nvcc as tools/dev/harness/build.sh (bash tools/dev/harness/build.sh ladder); run:
// ladder_harness [--small] [--no-time] [--only S]... [--no-rows] [--no-columns]
#include "tools/dev/harness/harness.cuh"

#define PADDLE_ENFORCE_GPU_SUCCESS(expr) HARNESS_CHECK(expr)

#include <cub/warp/warp_scan.cuh>

#include <functional>
#include <limits>

#include "kernels/funcs/gpu/scan_block_rows.cuh"
#include "kernels/util/gpu_cp_async.cuh"
#include "kernels/util/gpu_smem_optin.cuh"
#include "tools/dev/harness/scan1d/scan1d_variants.cuh"

namespace ladder {

namespace sg = phi::funcs::scan_gpu;

constexpr float kLog2e = 1.4426950408889634f, kLn2 = 0.6931471805599453f;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

__device__ __forceinline__ float Ex2(float v) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ __forceinline__ float Lg2(float v) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
// exp(x - m) from m * log2(e) taken once: one fma and ex2.
__device__ __forceinline__ float ExpFrom(float x, float m_log2e) { return Ex2(fmaf(x, kLog2e, -m_log2e)); }

// A zero the compiler cannot fold that depends on v (pass 2 of rung 2 waits for pass 1).
__device__ __forceinline__ float ZeroOf(float v) { return __fmul_rn(v, 0.f); }
__device__ __forceinline__ double ZeroOf(double v) { return __dmul_rn(v, 0.0); }

// logcumsumexp's state in float: exp(m) * s, s a float sum; combined at the larger max.
struct LseState {
  float m, s;
};
__device__ __forceinline__ LseState CombineLse(LseState a, LseState b) {
  const float m = fmaxf(a.m, b.m);
  if (m == kNegInf) return a;
  return LseState{m, a.s * Ex2((a.m - m) * kLog2e) + b.s * Ex2((b.m - m) * kLog2e)};
}

// The tile's max of v, to every thread (a warp reduction, then the warps' maxima through
// tile_max[kThreads / 32] and a barrier).
template <int kThreads, int kItems>
__device__ __forceinline__ float TileMax(const float (&v)[kItems], float* tile_max) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float m = v[0];
#pragma unroll
  for (int j = 1; j < kItems; ++j) m = fmaxf(m, v[j]);
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
  if (lane == 0) tile_max[warp] = m;
  __syncthreads();
  float mx = tile_max[0];
#pragma unroll
  for (int w = 1; w < kThreads / 32; ++w) mx = fmaxf(mx, tile_max[w]);
  return mx;
}

// The terms e[j] = exp(v[j] - mx) (ex2.approx) and their sum.
template <int kItems>
__device__ __forceinline__ float LseTerms(const float (&v)[kItems], float mx, float (&e)[kItems]) {
  const float ml = mx * kLog2e;
  float sum = 0.f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    e[j] = ExpFrom(v[j], ml);
    sum += e[j];
  }
  return sum;
}

// logcumsumexp's outputs from the carry c before the tile (max mx, the thread's terms e and the
// sum of the terms before them): r + log(base + f * (terms so far)), r the larger max.
template <int kItems>
__device__ __forceinline__ void LseOutputs(LseState c, float mx, float before, const float (&e)[kItems],
                                           float (&o)[kItems]) {
  const float r = fmaxf(c.m, mx);
  const float base0 = c.m == kNegInf ? 0.f : c.s * Ex2((c.m - r) * kLog2e);
  const float f = Ex2((mx - r) * kLog2e);
  float q = before;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    q += e[j];
    o[j] = fmaf(Lg2(fmaf(f, q, base0)), kLn2, r);
  }
}

// ---- rows ---------------------------------------------------------------------------------------
enum : int { kCopy = 1, kSerial = 2, kWarp = 3, kBlock = 4, kLseTile = 5, kLook = 6, kLseLook = 7 };
// Options (the kernel's last template argument); bs1 / lib3 pick rung 4's block scan.
enum : int { kInterleave = 1, kNoTicket = 2, kBs1 = 4, kLib3 = 8, kGroupLb = 16, kDiag = 32 };

struct RowArgs {
  const float* x;
  float* out;
  int64_t L, ntiles;
  int64_t rows;           // kPipe: the rows (tiles rows * ntiles)
  sg::BlockRowStatus st;  // the ticket; rung 6 the status words too
  uint4* gword;           // kGroupLb: a status word per group of 32 tiles (after the tiles' words)
  unsigned long long* diag;  // kDiag: clock sums (DiagSlot), nullptr otherwise
};

// kDiag's sums over the tiles (SM clocks, from the ticket): the loads and the tile's aggregate
// done (AGG published), the look-back done (carry known), the block's stores issued; D, the
// aggregates folded; the tiles.
enum DiagSlot : int { kDiagAgg = 0, kDiagCarry, kDiagEnd, kDiagD, kDiagTiles, kDiagSlots };
__device__ __forceinline__ void DiagAdd(unsigned long long* diag, int slot, unsigned long long v) {
  if (diag != nullptr) atomicAdd(diag + slot, v);
}

// A sum's status word for the library's look-back (BlockLookbackPoll reads WordState).
template <typename A>
struct SumWord {
  __device__ static uint4 Pack(A a, unsigned state) {
    unsigned long long b;
    if constexpr (sizeof(A) == 8) {
      b = static_cast<unsigned long long>(__double_as_longlong(a));
    } else {
      b = __float_as_uint(a);
    }
    return make_uint4(static_cast<unsigned>(b), static_cast<unsigned>(b >> 32), state, 0u);
  }
  __device__ static unsigned WordState(uint4 w) { return w.z; }
  __device__ static A Unpack(uint4 w) {
    if constexpr (sizeof(A) == 8) {
      return __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(w.y) << 32) | w.x));
    } else {
      return __uint_as_float(w.x);
    }
  }
};

// The same for logcumsumexp's float state.
struct LseWord {
  __device__ static uint4 Pack(LseState a, unsigned state) {
    return make_uint4(__float_as_uint(a.m), __float_as_uint(a.s), state, 0u);
  }
  __device__ static unsigned WordState(uint4 w) { return w.z; }
  __device__ static LseState Unpack(uint4 w) { return LseState{__uint_as_float(w.x), __uint_as_float(w.y)}; }
};

// Warp 0 of tile t (its aggregate agg published by the caller's words, W's): the library's
// look-back (BlockLookbackPoll, then FoldInOrder with step) as BlockRowKernel takes it; every
// thread gets the carry before the tile (identity for tile 0, or a single tile a row).
template <typename W, typename C, typename Step>
__device__ __forceinline__ C LookBack(const sg::BlockRowStatus& st, int64_t row, int64_t t, int64_t ntiles, C agg,
                                      C identity, Step step, uint4* flat, uint4* incl_word, int* nflat,
                                      C* carry_smem, unsigned long long* diag = nullptr, bool published = false) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (ntiles <= 1) return identity;
  if (warp == 0) {  // publish A_t (AGG) and look back; tile 0: P_0 = A_0 (INCL); `published`: done before
    if (t == 0) {
      if (lane == 0) {
        if (!published) sg::StoreStatusWord(st.At(row, 0), W::Pack(agg, sg::kBlockIncl));
        *nflat = -1;
      }
    } else {
      if (lane == 0 && !published) sg::StoreStatusWord(st.At(row, t), W::Pack(agg, sg::kBlockAgg));
      uint4 pw;
      const int D = sg::BlockLookbackPoll<W>(st, row, t, flat, lane, &pw);
      if (lane == 0) {
        *nflat = D;
        *incl_word = pw;
        DiagAdd(diag, kDiagD, static_cast<unsigned long long>(D));
      }
    }
  }
  __syncthreads();
  const int D = *nflat;
  if (warp == 0) {
    C carry = identity;
    if (D >= 0) {
      carry = sg::FoldInOrder(
          W::Unpack(*incl_word), D, [&](int i) { return flat[i]; },
          [&](C c, uint4 w) { return step(c, W::Unpack(w)); });
      if (lane == 0) sg::StoreStatusWord(st.At(row, t), W::Pack(step(carry, agg), sg::kBlockIncl));
    }
    if (lane == 0) *carry_smem = carry;
  }
  __syncthreads();
  return *carry_smem;
}

// kGroupLb: a deterministic look-back over groups of 32 tiles (an experiment for the engine). Tile
// t = 32k + r publishes A_t (AGG); G_k, group k's total, is one fixed tree of its 32 aggregates
// (the warp's inclusive shuffle scan, lane 31), Q_k = Step(Q_{k-1}, G_k) its inclusive prefix,
// published in the group's word by the group's last tile; the carry before tile t is
// Step(Q_{k-1}, S) with S the same warp scan of A_32k .. A_{t-1} (lane r - 1). Q_{k-1} not
// published yet: the tile folds Q_j (the nearest published) with G_{j+1} .. G_{k-1}, computing
// each G from its tiles' aggregates itself, the same tree: the same bits as the group's last tile
// gets, so the result does not depend on timing. The chain is one Step per 32 tiles.
template <typename W, typename C, typename Step>
__device__ __forceinline__ C WarpScanWords(C v, int lane, Step step) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const C y = sg::ShflUpWords(v, d);
    if (lane >= d) v = step(y, v);
  }
  return v;
}

template <typename C>
__device__ __forceinline__ C Broadcast(const C& v, int src) {
  constexpr int kWords = static_cast<int>(sizeof(C) / 4);
  unsigned in[kWords], out[kWords];
  memcpy(in, &v, sizeof(C));
#pragma unroll
  for (int i = 0; i < kWords; ++i) out[i] = __shfl_sync(0xffffffffu, in[i], src);
  C r;
  memcpy(&r, out, sizeof(C));
  return r;
}

template <typename W, typename C>
__device__ __forceinline__ C PollAgg(const sg::BlockRowStatus& st, int64_t row, int64_t k) {
  uint4 w = sg::LoadStatusWord(st.At(row, k));
  for (unsigned ns = 32; W::WordState(w) == 0u; ns = ns < 256 ? 2 * ns : ns) {
    __nanosleep(ns);
    w = sg::LoadStatusWord(st.At(row, k));
  }
  return W::Unpack(w);
}

template <typename W, typename C, typename Step>
__device__ __forceinline__ C GroupLookBack(const sg::BlockRowStatus& st, uint4* gword, int64_t row, int64_t t,
                                           int64_t ntiles, C agg, C identity, Step step, C* gtot, C* carry_smem,
                                           unsigned long long* diag, bool published = false) {
  constexpr int kMaxGroups = sg::kBlockWindows * 32 * 16 / static_cast<int>(sizeof(C));  // gtot's room
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (ntiles <= 1) return identity;
  if (warp == 0) {
    const int64_t ngroups = (ntiles + 31) / 32, k = t / 32;
    const int r = static_cast<int>(t % 32);
    if (lane == 0 && !published) sg::StoreStatusWord(st.At(row, t), W::Pack(agg, sg::kBlockAgg));
    C mine = lane == r ? agg : identity;
    if (lane < r) mine = PollAgg<W, C>(st, row, 32 * k + lane);
    const C in = WarpScanWords<W>(mine, lane, step);
    C carry = identity;
    if (k > 0) {  // Q_{k-1}
      int64_t j = k - 1;
      int n = 0;  // G_{k-1}, G_{k-2}, ... in gtot[0], gtot[1], ... (lane 31 writes them)
      C q = identity;
      for (;;) {
        const uint4 w = sg::LoadStatusWord(gword + row * ngroups + j);
        if (W::WordState(w) == sg::kBlockIncl) {
          q = W::Unpack(w);
          break;
        }
        if (n == kMaxGroups) {  // no room: wait for Q_j itself
          __nanosleep(64);
          continue;
        }
        const C gj = WarpScanWords<W>(PollAgg<W, C>(st, row, 32 * j + lane), lane, step);
        if (j == 0) {  // Q_0 = G_0 (lane 31's), to every lane; published for the tiles after
          q = Broadcast(gj, 31);
          if (lane == 0) sg::StoreStatusWord(gword + row * ngroups, W::Pack(q, sg::kBlockIncl));
          break;
        }
        if (lane == 31) gtot[n] = gj;
        ++n;
        --j;
      }
      __syncwarp();
      for (int i = n - 1; i >= 0; --i) {  // q = Q_{k-1-i}: the same bits its group's last tile
        q = step(q, gtot[i]);               // publishes, so published here too (a benign race)
        if (lane == 0) sg::StoreStatusWord(gword + row * ngroups + (k - 1 - i), W::Pack(q, sg::kBlockIncl));
      }
      carry = q;
      if (lane == 0) DiagAdd(diag, kDiagD, static_cast<unsigned long long>(n));
    }
    const C ex = sg::ShflUpWords(in, 1);  // lane r: S = the scan of A_32k .. A_{t-1}
    C before = carry;
    if (r > 0) {
      const C s_r = Broadcast(ex, r);
      before = k > 0 ? step(carry, s_r) : s_r;
    }
    if (r == 31 && lane == 31) {  // the group's last tile: Q_k = Step(Q_{k-1}, G_k); G_k is lane 31's in
      const C qk = k > 0 ? step(carry, in) : in;
      sg::StoreStatusWord(gword + row * ngroups + k, W::Pack(qk, sg::kBlockIncl));
    }
    if (lane == 0) *carry_smem = before;
  }
  __syncthreads();
  return *carry_smem;
}

struct Plus {
  template <typename A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};

template <typename A>
__device__ __forceinline__ A WarpInclusiveSum(A v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const A y = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += y;
  }
  return v;
}

// The tile's exclusive prefix of each thread's sum v (lane order, then warp order) and its total.
// sm: kThreads / 32 + 1 values. kForm 2: warp 0 scans the warp sums between two barriers; 1: one
// barrier, every warp adding up the sums of the warps before it; 3: the library's BlockScanOne.
template <int kThreads, int kForm, typename A>
__device__ __forceinline__ void TileSum(A v, A* sm, A* before, A* total) {
  constexpr int kWarps = kThreads / 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if constexpr (kForm == 3) {
    sg::BlockScanOne<kThreads>(v, Plus{}, A(0), sm, before, total);
  } else {
    const A in = WarpInclusiveSum(v, lane);
    A ex = __shfl_up_sync(0xffffffffu, in, 1);
    if (lane == 0) ex = A(0);
    if (lane == 31) sm[warp] = in;
    __syncthreads();
    if constexpr (kForm == 1) {
      A pre = A(0), acc = A(0);
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        if (w == warp) pre = acc;
        acc += sm[w];
      }
      *before = pre + ex;
      *total = acc;
    } else {
      if (warp == 0) {
        const A wi = WarpInclusiveSum(lane < kWarps ? sm[lane] : A(0), lane);
        A we = __shfl_up_sync(0xffffffffu, wi, 1);
        if (lane == 0) we = A(0);
        if (lane < kWarps) sm[lane] = we;
        if (lane == kWarps - 1) sm[kWarps] = wi;
      }
      __syncthreads();
      *before = sm[warp] + ex;
      *total = sm[kWarps];
    }
  }
}

// One tile a block (rows of ntiles full tiles: L a multiple of kThreads * kItems, 16-byte aligned).
template <int kThreads, int kItems, int kMinBlocks, int kRung, typename A, int kOpts>
__global__ void __launch_bounds__(kThreads, kMinBlocks) RowLadderKernel(RowArgs a) {
  constexpr int kWarps = kThreads / 32;
  using Group = sg::BlockedGroup<float, kItems>;
  constexpr int kNC = Group::kNC;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  constexpr int kForm = (kOpts & kBs1) != 0 ? 1 : (kOpts & kLib3) != 0 ? 3 : 2;
  static_assert((kOpts & kInterleave) == 0 || (kRung >= kSerial && kRung <= kBlock), "il: the sum rungs");
  constexpr bool kLseRung = kRung == kLseTile || kRung == kLseLook;
  static_assert(!kLseRung || std::is_same<A, float>::value, "lse: float sums");
  __shared__ uint4 obuf[kWarps][32 * kNC];  // the stores' staging
  __shared__ A sm[kWarps + 1];
  __shared__ float tile_max[kWarps];
  __shared__ unsigned long long ticket;
  constexpr bool kLb = kRung == kLook || kRung == kLseLook;
  __shared__ uint4 flat[kLb ? sg::kBlockWindows * 32 : 1];  // the look-back's aggregates
  __shared__ uint4 incl_word;
  __shared__ int nflat;
  __shared__ A carry_smem;
  __shared__ LseState lse_carry;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int64_t tile;
  if constexpr ((kOpts & kNoTicket) != 0) {
    tile = blockIdx.x;
  } else {
    if (threadIdx.x == 0) ticket = atomicAdd(a.st.ticket, 1ull);
    __syncthreads();
    tile = static_cast<int64_t>(ticket);
  }
  constexpr bool kD = (kOpts & kDiag) != 0;
  const long long clk0 = kD ? clock64() : 0;
  const int64_t row = tile / a.ntiles, t = tile - row * a.ntiles;
  const int64_t base = row * a.L, g0 = t * kTile + int64_t{warp} * 32 * kItems;
  float v[kItems];
  A tot = A(0);  // pass 1: the thread's serial sum
  if constexpr ((kOpts & kInterleave) != 0) {
    const float4* src = reinterpret_cast<const float4*>(a.x + base + g0) + lane * kNC;
    int dep = 0;  // 0 for finite sums; c ^ dep stays inside the lane's chunks
#pragma unroll
    for (int c = 0; c < kNC; ++c) {
      const float4 q = __ldg(src + (c ^ dep));
      v[4 * c] = q.x;
      v[4 * c + 1] = q.y;
      v[4 * c + 2] = q.z;
      v[4 * c + 3] = q.w;
#pragma unroll
      for (int j = 0; j < 4; ++j) tot += static_cast<A>(v[4 * c + j]);
      dep = tot != tot ? 1 : 0;
    }
  } else {
    Group::template Load<false>(a.x, base, a.L, g0, v, lane);
    if constexpr (kRung >= kSerial && !kLseRung) {
#pragma unroll
      for (int j = 0; j < kItems; ++j) tot += static_cast<A>(v[j]);
    }
  }
  float o[kItems];
  if constexpr (kRung == kCopy) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) o[j] = v[j];
  } else if constexpr (kLseRung) {
    const float mx = TileMax<kThreads>(v, tile_max);
    float e[kItems];
    const float s = LseTerms(v, mx, e);
    float before, total;
    TileSum<kThreads, 2>(s, sm, &before, &total);
    if constexpr (kRung == kLseLook) {  // + the look-back of (max, float sum) states
      if (kD && threadIdx.x == 0) DiagAdd(a.diag, kDiagAgg, clock64() - clk0);
      const auto comb = [](LseState x, LseState y) { return CombineLse(x, y); };
      LseState c;
      if constexpr ((kOpts & kGroupLb) != 0) {
        c = GroupLookBack<LseWord>(a.st, a.gword, row, t, a.ntiles, LseState{mx, total}, LseState{kNegInf, 0.f}, comb,
                                   reinterpret_cast<LseState*>(flat), &lse_carry, kD ? a.diag : nullptr);
      } else {
        c = LookBack<LseWord>(a.st, row, t, a.ntiles, LseState{mx, total}, LseState{kNegInf, 0.f}, comb, flat,
                              &incl_word, &nflat, &lse_carry, kD ? a.diag : nullptr);
      }
      if (kD && threadIdx.x == 0) DiagAdd(a.diag, kDiagCarry, clock64() - clk0);
      LseOutputs(c, mx, before, e, o);  // r + log(base + f * (terms so far))
    } else {
      float p = before;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        p += e[j];
        o[j] = fmaf(Lg2(p), kLn2, mx);
      }
    }
  } else {
    A pre;
    if constexpr (kRung == kSerial) {
      pre = ZeroOf(tot);
    } else if constexpr (kRung == kWarp) {
      const A in = WarpInclusiveSum(tot, lane);
      pre = __shfl_up_sync(0xffffffffu, in, 1);
      if (lane == 0) pre = A(0);
    } else {
      A before, total;
      TileSum<kThreads, kForm>(tot, sm, &before, &total);
      pre = before;
      if constexpr (kRung == kLook) {  // + the look-back, the op a sum
        if (kD && threadIdx.x == 0) DiagAdd(a.diag, kDiagAgg, clock64() - clk0);
        const auto plus = [](A x, A y) { return x + y; };
        A carry;
        if constexpr ((kOpts & kGroupLb) != 0) {
          carry = GroupLookBack<SumWord<A>>(a.st, a.gword, row, t, a.ntiles, total, A(0), plus,
                                            reinterpret_cast<A*>(flat), &carry_smem, kD ? a.diag : nullptr);
        } else {
          carry = LookBack<SumWord<A>>(a.st, row, t, a.ntiles, total, A(0), plus, flat, &incl_word, &nflat,
                                       &carry_smem, kD ? a.diag : nullptr);
        }
        if (kD && threadIdx.x == 0) DiagAdd(a.diag, kDiagCarry, clock64() - clk0);
        pre = carry + before;
      }
    }
    A p = pre;  // pass 2
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      p += static_cast<A>(v[j]);
      o[j] = static_cast<float>(p);
    }
  }
  Group::template Store<false>(a.out, base, a.L, g0, o, lane, obuf[warp]);
  if constexpr (kD) {
    __syncthreads();
    if (threadIdx.x == 0) {
      DiagAdd(a.diag, kDiagEnd, clock64() - clk0);
      DiagAdd(a.diag, kDiagTiles, 1);
    }
  }
}

// Rung 7 `pipe`: rung 6 (the library's look-back, a float sum or logcumsumexp's states) in
// persistent blocks (as many as fit) that draw the next tile's ticket and start its loads (cp.async
// into a shared-memory stage, kStages - 1 tiles ahead) before the current tile's look-back, so a
// block waiting there still has bytes in flight (the diag rows: a look-back takes about two
// L2 round trips under load, ~8000 clocks, twice the tile's loads). Outputs written back into the
// stage, then stored warp-striped from it.
template <int kThreads, int kItems, int kStages, bool kIsLse>
__global__ void __launch_bounds__(kThreads) PipeKernel(RowArgs a) {
  constexpr int kWarps = kThreads / 32;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  constexpr int kChunks = static_cast<int>(kTile / 4), kPer = kItems / 4;  // float4s: a tile's, a thread's
  extern __shared__ float4 stage[];  // kStages * kChunks
  __shared__ unsigned long long tk[kStages];
  __shared__ float sm[kWarps + 1];
  __shared__ float tile_max[kWarps];
  __shared__ uint4 flat[sg::kBlockWindows * 32];
  __shared__ uint4 incl_word;
  __shared__ int nflat;
  __shared__ float carry_smem;
  __shared__ LseState lse_carry;
  const int64_t total = a.rows * a.ntiles;
  auto issue = [&](int st_i, int64_t tile) {
    if (tile < total) {
      const int64_t row = tile / a.ntiles, t = tile - row * a.ntiles;
      const float4* src = reinterpret_cast<const float4*>(a.x + row * a.L + t * kTile);
#pragma unroll
      for (int i = 0; i < kPer; ++i) {
        const int c = i * kThreads + threadIdx.x;
        phi::funcs::CpAsync<16>(&stage[st_i * kChunks + c], src + c);
      }
    }
    phi::funcs::CpAsyncCommit();
  };
  if (threadIdx.x == 0) {
#pragma unroll
    for (int i = 0; i < kStages - 1; ++i) tk[i] = atomicAdd(a.st.ticket, 1ull);
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kStages - 1; ++i) issue(i, static_cast<int64_t>(tk[i]));
  for (int s = 0;; s = (s + 1) % kStages) {
    const int64_t tile = static_cast<int64_t>(tk[s]);
    if (tile >= total) break;  // the block's later tickets are larger
    const int sn = (s + kStages - 1) % kStages;
    if (threadIdx.x == 0) tk[sn] = atomicAdd(a.st.ticket, 1ull);
    __syncthreads();
    issue(sn, static_cast<int64_t>(tk[sn]));
    phi::funcs::CpAsyncWait<kStages - 1>();
    __syncthreads();
    const int64_t row = tile / a.ntiles, t = tile - row * a.ntiles;
    float4* my = &stage[s * kChunks + threadIdx.x * kPer];
    float v[kItems];
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const float4 q = my[i];
      v[4 * i] = q.x;
      v[4 * i + 1] = q.y;
      v[4 * i + 2] = q.z;
      v[4 * i + 3] = q.w;
    }
    float o[kItems];
    if constexpr (kIsLse) {
      const float mx = TileMax<kThreads>(v, tile_max);
      float e[kItems];
      const float sum = LseTerms(v, mx, e);
      float before, tot;
      TileSum<kThreads, 2>(sum, sm, &before, &tot);
      const LseState c = LookBack<LseWord>(
          a.st, row, t, a.ntiles, LseState{mx, tot}, LseState{kNegInf, 0.f},
          [](LseState x, LseState y) { return CombineLse(x, y); }, flat, &incl_word, &nflat, &lse_carry);
      LseOutputs(c, mx, before, e, o);  // r + log(base + f * (terms so far))
    } else {
      float tot = 0.f;
#pragma unroll
      for (int j = 0; j < kItems; ++j) tot += v[j];
      float before, total_t;
      TileSum<kThreads, 2>(tot, sm, &before, &total_t);
      const float carry = LookBack<SumWord<float>>(
          a.st, row, t, a.ntiles, total_t, 0.f, [](float x, float y) { return x + y; }, flat, &incl_word, &nflat,
          &carry_smem);
      float p = carry + before;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        p += v[j];
        o[j] = p;
      }
    }
#pragma unroll
    for (int i = 0; i < kPer; ++i) my[i] = make_float4(o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]);
    __syncthreads();
    float4* dst = reinterpret_cast<float4*>(a.out + row * a.L + t * kTile);
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int c = i * kThreads + threadIdx.x;
      dst[c] = stage[s * kChunks + c];
    }
    __syncthreads();  // stage s is refilled kStages - 1 tiles on
  }
  phi::funcs::CpAsyncWaitAll();
}

// Rung 8 `r2`: each tile read twice, the second time from the L2. Persistent blocks draw a tile,
// read it and publish its aggregate (R), then, before looking back for the tile before, draw and
// read the next one (R again): the look-back's wait (two L2 round trips under load, the diag rows)
// overlaps the next tile's loads instead of idling the block. Then the tile's scan (S) reads its
// 16 KB again (about 2 x the blocks resident x 16 KB read since: the L2 holds them) and stores.
// Every tile's aggregate is published before its block waits on anything: no deadlock.
template <int kThreads, int kItems, bool kIsLse, bool kGrp>
__global__ void __launch_bounds__(kThreads) TwoReadKernel(RowArgs a) {
  constexpr int kWarps = kThreads / 32;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  using Group = sg::BlockedGroup<float, kItems>;
  using C = typename std::conditional<kIsLse, LseState, float>::type;
  using W = typename std::conditional<kIsLse, LseWord, SumWord<float>>::type;
  __shared__ uint4 obuf[kWarps][32 * Group::kNC];
  __shared__ unsigned long long tk;
  __shared__ float sm[kWarps + 1];
  __shared__ float tile_max[kWarps];
  __shared__ uint4 flat[sg::kBlockWindows * 32];
  __shared__ uint4 incl_word;
  __shared__ int nflat;
  __shared__ C carry_smem;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int64_t total = a.rows * a.ntiles;
  auto draw = [&]() {
    if (threadIdx.x == 0) tk = atomicAdd(a.st.ticket, 1ull);
    __syncthreads();
    const int64_t u = static_cast<int64_t>(tk);
    __syncthreads();
    return u;
  };
  auto at = [&](int64_t u, int64_t* row, int64_t* t, int64_t* g0) {
    *row = u / a.ntiles;
    *t = u - *row * a.ntiles;
    *g0 = *t * kTile + int64_t{warp} * 32 * kItems;
  };
  // R: the tile's aggregate, published (tile 0 of a row: its inclusive prefix)
  auto reduce = [&](int64_t u) -> C {
    int64_t row, t, g0;
    at(u, &row, &t, &g0);
    float v[kItems];
    Group::template Load<false>(a.x, row * a.L, a.L, g0, v, lane);
    C agg;
    if constexpr (kIsLse) {
      const float mx = TileMax<kThreads>(v, tile_max);
      const float ml = mx * kLog2e;
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < kItems; ++j) sum += ExpFrom(v[j], ml);
      float before, tot;
      TileSum<kThreads, 2>(sum, sm, &before, &tot);
      agg = LseState{mx, tot};
    } else {
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < kItems; ++j) sum += v[j];
      float before, tot;
      TileSum<kThreads, 2>(sum, sm, &before, &tot);
      agg = tot;
    }
    if (a.ntiles > 1 && threadIdx.x == 0) {
      sg::StoreStatusWord(a.st.At(row, t), W::Pack(agg, t == 0 ? sg::kBlockIncl : sg::kBlockAgg));
    }
    __syncthreads();  // sm and tile_max reused
    return agg;
  };
  int64_t cur = draw();
  C cur_agg = cur < total ? reduce(cur) : C{};
  while (cur < total) {
    const int64_t nxt = draw();
    const C nxt_agg = nxt < total ? reduce(nxt) : C{};
    int64_t row, t, g0;
    at(cur, &row, &t, &g0);
    float v[kItems], o[kItems];
    if constexpr (kIsLse) {
      const auto comb = [](LseState x, LseState y) { return CombineLse(x, y); };
      LseState c;
      if constexpr (kGrp) {
        c = GroupLookBack<W>(a.st, a.gword, row, t, a.ntiles, cur_agg, LseState{kNegInf, 0.f}, comb,
                             reinterpret_cast<LseState*>(flat), &carry_smem, nullptr, true);
      } else {
        c = LookBack<W>(a.st, row, t, a.ntiles, cur_agg, LseState{kNegInf, 0.f}, comb, flat, &incl_word, &nflat,
                        &carry_smem, nullptr, true);
      }
      Group::template Load<false>(a.x, row * a.L, a.L, g0, v, lane);  // S: again, from the L2
      const float mx = cur_agg.m;
      float e[kItems];
      const float sum = LseTerms(v, mx, e);
      float before, tot;
      TileSum<kThreads, 2>(sum, sm, &before, &tot);
      LseOutputs(c, mx, before, e, o);  // r + log(base + f * (terms so far))
    } else {
      const auto plus = [](float x, float y) { return x + y; };
      float carry;
      if constexpr (kGrp) {
        carry = GroupLookBack<W>(a.st, a.gword, row, t, a.ntiles, cur_agg, 0.f, plus, reinterpret_cast<float*>(flat),
                                 &carry_smem, nullptr, true);
      } else {
        carry = LookBack<W>(a.st, row, t, a.ntiles, cur_agg, 0.f, plus, flat, &incl_word, &nflat, &carry_smem, nullptr,
                            true);
      }
      Group::template Load<false>(a.x, row * a.L, a.L, g0, v, lane);
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < kItems; ++j) sum += v[j];
      float before, tot;
      TileSum<kThreads, 2>(sum, sm, &before, &tot);
      float p = carry + before;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        p += v[j];
        o[j] = p;
      }
    }
    Group::template Store<false>(a.out, row * a.L, a.L, g0, o, lane, obuf[warp]);
    __syncthreads();  // sm reused by the next reduce
    cur = nxt;
    cur_agg = nxt_agg;
  }
}

// ---- columns --------------------------------------------------------------------------------
// The strips' shape (DefaultStripShape for float32): 256 threads, 8 groups across of 4 lines
// (16-byte accesses), 32 rows of 8 steps, 3 stages.
constexpr int kSThreads = 256, kSVec = 4, kSGroups = 8, kSRows = kSThreads / kSGroups, kSSteps = 8, kSStages = 3;
constexpr int kSWidth = kSGroups * kSVec, kSStride = kSWidth + 1;
constexpr int64_t kSLen = int64_t{kSRows} * kSSteps;
constexpr int64_t kSStageBytes = int64_t{kSSteps} * kSThreads * 16;

// The column ops: a state, its identity and combine, a thread's total of n steps of a line and
// the rescan of those steps from a state (x[k] replaced by its output).
struct SumOp {
  using S = float;
  __device__ static S Identity() { return 0.f; }
  __device__ S operator()(S a, S b) const { return a + b; }
  __device__ static S Total(const float (&x)[kSSteps], int n) {
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < kSSteps; ++k) s += k < n ? x[k] : 0.f;
    return s;
  }
  __device__ static void Scan(float (&x)[kSSteps], int n, S start) {
    float p = start;
#pragma unroll
    for (int k = 0; k < kSSteps; ++k) {
      p += x[k];
      x[k] = p;
    }
  }
};
struct LseOp {
  using S = LseState;
  __device__ static S Identity() { return S{kNegInf, 0.f}; }
  __device__ S operator()(S a, S b) const { return CombineLse(a, b); }
  __device__ static float Max(const float (&x)[kSSteps], int n, float m) {
#pragma unroll
    for (int k = 0; k < kSSteps; ++k) m = k < n ? fmaxf(m, x[k]) : m;
    return m;
  }
  __device__ static S Total(const float (&x)[kSSteps], int n) {
    const float m = Max(x, n, kNegInf);
    const float ml = m * kLog2e;
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < kSSteps; ++k) s += k < n ? ExpFrom(x[k], ml) : 0.f;
    return S{m, s};
  }
  __device__ static void Scan(float (&x)[kSSteps], int n, S start) {
    const float m = Max(x, n, start.m);
    const float ml = m * kLog2e;
    float p = start.m == kNegInf ? 0.f : start.s * Ex2((start.m - m) * kLog2e);
#pragma unroll
    for (int k = 0; k < kSSteps; ++k) {
      p += ExpFrom(x[k], ml);
      x[k] = fmaf(Lg2(p), kLn2, m);
    }
  }
};

// A block per strip of kSWidth lines (inner a multiple of 4, lines of 4 adjacent in one outer
// index), walking the whole length segment by segment (StripColumnKernel's order of steps).
// kRung 1: copy; 2: each thread's steps scanned alone; 3: the whole column.
template <int kRung, typename Op>
__global__ void __launch_bounds__(kSThreads, 2)
    StripLadderKernel(const float* x, float* out, int64_t L, int64_t inner, int64_t lines, int64_t nseg) {
  using S = typename Op::S;
  extern __shared__ uint4 strip_smem[];
  float4* stage = reinterpret_cast<float4*>(strip_smem);
  S* rows = reinterpret_cast<S*>(reinterpret_cast<unsigned char*>(strip_smem) + kSStages * kSStageBytes);
  const int t = static_cast<int>(threadIdx.x), grp = t % kSGroups, row = t / kSGroups;
  const int64_t strip0 = int64_t{blockIdx.x} * kSWidth;
  const int64_t ln0 = strip0 + grp * kSVec;
  const bool has = ln0 < lines;
  const int64_t base = sg::LineGeometry{L, inner, false}.Base(ln0);
  auto issue = [&](int64_t seg) {
    if (seg < nseg && has) {
      float4* dst = stage + static_cast<int>(seg % kSStages) * (kSSteps * kSThreads) + t;
      const int64_t s0 = seg * kSLen + int64_t{row} * kSSteps;
#pragma unroll
      for (int k = 0; k < kSSteps; ++k) {
        if (s0 + k < L) phi::funcs::CpAsync<16>(dst + k * kSThreads, x + base + (s0 + k) * inner);
      }
    }
    phi::funcs::CpAsyncCommit();
  };
  S carry[kSVec];
#pragma unroll
  for (int v = 0; v < kSVec; ++v) carry[v] = Op::Identity();
#pragma unroll
  for (int s = 0; s < kSStages - 1; ++s) issue(s);
  for (int64_t seg = 0; seg < nseg; ++seg) {
    issue(seg + kSStages - 1);
    phi::funcs::CpAsyncWait<kSStages - 1>();
    const int64_t s0 = seg * kSLen + int64_t{row} * kSSteps;
    const int n = !has || s0 >= L ? 0 : (L - s0 < kSSteps ? static_cast<int>(L - s0) : kSSteps);
    const float4* src = stage + static_cast<int>(seg % kSStages) * (kSSteps * kSThreads) + t;
    float xs[kSVec][kSSteps];
#pragma unroll
    for (int k = 0; k < kSSteps; ++k) {
      const float4 q = k < n ? src[k * kSThreads] : make_float4(0.f, 0.f, 0.f, 0.f);
      xs[0][k] = q.x;
      xs[1][k] = q.y;
      xs[2][k] = q.z;
      xs[3][k] = q.w;
    }
    if constexpr (kRung == 2) {
#pragma unroll
      for (int v = 0; v < kSVec; ++v) Op::Scan(xs[v], n, Op::Identity());
    } else if constexpr (kRung == 3) {
#pragma unroll
      for (int v = 0; v < kSVec; ++v) {
        rows[row * kSStride + v * kSGroups + grp] = n > 0 ? Op::Total(xs[v], n) : Op::Identity();
      }
      __syncthreads();
#pragma unroll
      for (int v = 0; v < kSVec; ++v) {  // lane t % 32 of warp t / 32 scans slot v * 8 + t / 32
        using WarpScanT = cub::WarpScan<S, kSRows>;
        typename WarpScanT::TempStorage temp;
        S* cell = &rows[(t % kSRows) * kSStride + v * kSGroups + t / kSRows];
        S before, total;
        WarpScanT(temp).ExclusiveScan(*cell, before, carry[v], Op{}, total);
        *cell = before;
        carry[v] = Op{}(carry[v], total);
      }
      __syncthreads();
      S start[kSVec];
#pragma unroll
      for (int v = 0; v < kSVec; ++v) start[v] = rows[row * kSStride + v * kSGroups + grp];
      __syncthreads();
#pragma unroll
      for (int v = 0; v < kSVec; ++v) Op::Scan(xs[v], n, start[v]);
    }
#pragma unroll
    for (int k = 0; k < kSSteps; ++k) {
      if (k < n) {
        *reinterpret_cast<float4*>(out + base + (s0 + k) * inner) = make_float4(xs[0][k], xs[1][k], xs[2][k], xs[3][k]);
      }
    }
  }
}

// A thread per line walking it whole, K steps loaded ahead (L a multiple of K): cumsum in float,
// or logcumsumexp's running (max, float sum).
template <int K, bool kLse>
__global__ void __launch_bounds__(256) WalkKernel(const float* x, float* out, int64_t L, int64_t inner,
                                                  int64_t lines) {
  const int64_t ln = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (ln >= lines) return;
  const int64_t off = sg::LineGeometry{L, inner, false}.Base(ln);
  const float* px = x + off;
  float* po = out + off;
  float cur[K], nxt[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    cur[k] = __ldg(px + k * inner);
    nxt[k] = 0.f;
  }
  float m = kNegInf, s = 0.f;
  for (int64_t s0 = 0; s0 < L; s0 += K) {
    if (s0 + K < L) {
#pragma unroll
      for (int k = 0; k < K; ++k) nxt[k] = __ldg(px + (s0 + K + k) * inner);
    }
#pragma unroll
    for (int k = 0; k < K; ++k) {
      float r;
      if constexpr (kLse) {
        const float mm = fmaxf(m, cur[k]);
        s = s * Ex2((m - mm) * kLog2e) + Ex2((cur[k] - mm) * kLog2e);
        m = mm;
        r = fmaf(Lg2(s), kLn2, m);
      } else {
        s += cur[k];
        r = s;
      }
      po[(s0 + k) * inner] = r;
    }
#pragma unroll
    for (int k = 0; k < K; ++k) cur[k] = nxt[k];
  }
}

// ---- host -------------------------------------------------------------------------------------
enum Check { kBits, kSum, kLse, kNone };

struct Shape {
  std::string name;
  int64_t outer, L, inner;
  int64_t numel() const { return outer * L * inner; }
};

struct Run {
  const float* x;
  float* out;
  const Shape* shape;
  void* scratch;
  int sms;
  unsigned long long* diag;  // kDiagSlots counters (kDiag rungs)
};

struct Rung {
  std::string name;
  std::function<void(cudaStream_t, const Run&)> launch;
  Check check;
  int64_t seg;  // the check's segments (steps); 0: the whole line
  bool diag = false;  // kDiag: print the last launch's clock sums under the row
};

// Dynamic shared memory that leaves `target` blocks of `kernel` an SM (0 where registers or
// shared memory already hold it there); *occ: the blocks an SM with it.
int PinnedDyn(const void* kernel, int threads, int target, bool pin, int* occ) {
  cudaDeviceProp prop;
  HARNESS_CHECK(cudaGetDeviceProperties(&prop, 0));
  cudaFuncAttributes fa;
  HARNESS_CHECK(cudaFuncGetAttributes(&fa, kernel));
  const int max_dyn = static_cast<int>(prop.sharedMemPerBlockOptin - fa.sharedSizeBytes);
  HARNESS_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
  HARNESS_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn));
  int dyn = 0;
  HARNESS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, kernel, threads, 0));
  while (pin && *occ > target && dyn + 1024 <= max_dyn) {
    dyn += 1024;
    HARNESS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, kernel, threads, dyn));
  }
  return dyn;
}

std::string Geometry(int threads, int items, int mb) {
  return "b" + std::to_string(threads) + "i" + std::to_string(items) + "/" + std::to_string(mb);
}

template <int kThreads, int kItems, int kMinBlocks, int kRung, typename A, int kOpts = 0>
Rung RowRung(const std::string& label, bool pin = true) {
  const auto kernel = RowLadderKernel<kThreads, kItems, kMinBlocks, kRung, A, kOpts>;
  int occ = 0;
  const int dyn = PinnedDyn(reinterpret_cast<const void*>(kernel), kThreads, kMinBlocks, pin, &occ);
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  Rung r;
  const bool typed = kRung != kCopy && kRung != kLseTile && kRung != kLseLook;
  r.name = label + (!typed ? "" : std::is_same<A, double>::value ? " f64" : " f32") + " " +
           Geometry(kThreads, kItems, kMinBlocks) + (pin ? "" : " free") + " [" + std::to_string(occ) + "/SM]" +
           ((kOpts & kGroupLb) != 0 ? " grp" : "") + ((kOpts & kDiag) != 0 ? " diag" : "");
  r.launch = [kernel, dyn](cudaStream_t stream, const Run& run) {
    const Shape& sh = *run.shape;
    const int64_t ntiles = sh.L / kTile;
    sg::BlockRowStatus st{reinterpret_cast<uint4*>(static_cast<char*>(run.scratch) + 256),
                          static_cast<unsigned long long*>(run.scratch), ntiles};
    const int64_t groups = (ntiles + 31) / 32;
    if ((kOpts & kNoTicket) == 0) {
      const bool lb = kRung == kLook || kRung == kLseLook;
      const int64_t gbytes = (kOpts & kGroupLb) != 0 ? sh.outer * groups * 16 : 0;
      cudaMemsetAsync(run.scratch, 0, lb ? sg::BlockRowStatus::Bytes(sh.outer, ntiles) + gbytes : 8, stream);
    }
    constexpr bool kD = (kOpts & kDiag) != 0;
    if (kD) cudaMemsetAsync(run.diag, 0, kDiagSlots * 8, stream);
    kernel<<<static_cast<unsigned>(sh.outer * ntiles), kThreads, dyn, stream>>>(
        RowArgs{run.x, run.out, sh.L, ntiles, sh.outer, st, st.word + sh.outer * ntiles, kD ? run.diag : nullptr});
  };
  r.check = kRung == kCopy ? kBits : kRung == kLseTile || kRung == kLseLook ? kLse : kSum;
  r.diag = (kOpts & kDiag) != 0;
  const bool line = kRung == kLook || kRung == kLseLook;
  r.seg = kRung == kSerial ? kItems : kRung == kWarp ? 32 * kItems : line ? 0 : kTile;
  return r;
}

template <int kThreads, int kItems, int kStages, bool kIsLse>
Rung PipeRung(const std::string& label) {
  const auto kernel = PipeKernel<kThreads, kItems, kStages, kIsLse>;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  const int dyn = static_cast<int>(kStages * kTile * 4);
  HARNESS_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     dyn));
  HARNESS_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                     cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  int occ = 0;
  HARNESS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, kThreads, dyn));
  Rung r;
  r.name = label + (kIsLse ? " lse " : " f32 ") + Geometry(kThreads, kItems, kStages) + " st [" + std::to_string(occ) +
           "/SM]";
  r.launch = [kernel, dyn, occ](cudaStream_t stream, const Run& run) {
    const Shape& sh = *run.shape;
    const int64_t ntiles = sh.L / kTile;
    sg::BlockRowStatus st{reinterpret_cast<uint4*>(static_cast<char*>(run.scratch) + 256),
                          static_cast<unsigned long long*>(run.scratch), ntiles};
    cudaMemsetAsync(run.scratch, 0, sg::BlockRowStatus::Bytes(sh.outer, ntiles), stream);
    const int64_t blocks = std::min<int64_t>(int64_t{occ} * run.sms, sh.outer * ntiles);
    kernel<<<static_cast<unsigned>(blocks), kThreads, dyn, stream>>>(
        RowArgs{run.x, run.out, sh.L, ntiles, sh.outer, st, nullptr, nullptr});
  };
  r.check = kIsLse ? kLse : kSum;
  r.seg = 0;
  return r;
}

template <int kThreads, int kItems, bool kIsLse, bool kGrp = false>
Rung TwoReadRung(const std::string& label, int per_sm = 0) {
  const auto kernel = TwoReadKernel<kThreads, kItems, kIsLse, kGrp>;
  constexpr int64_t kTile = int64_t{kThreads} * kItems;
  int occ = 0;
  HARNESS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, kThreads, 0));
  if (per_sm > 0) occ = std::min(occ, per_sm);
  Rung r;
  r.name = label + (kIsLse ? " lse " : " f32 ") + Geometry(kThreads, kItems, occ) + " [" + std::to_string(occ) +
           "/SM]" + (kGrp ? " grp" : "");
  r.launch = [kernel, occ](cudaStream_t stream, const Run& run) {
    const Shape& sh = *run.shape;
    const int64_t ntiles = sh.L / kTile;
    sg::BlockRowStatus st{reinterpret_cast<uint4*>(static_cast<char*>(run.scratch) + 256),
                          static_cast<unsigned long long*>(run.scratch), ntiles};
    const int64_t gbytes = kGrp ? sh.outer * ((ntiles + 31) / 32) * 16 : 0;  // the group words after the tiles'
    cudaMemsetAsync(run.scratch, 0, sg::BlockRowStatus::Bytes(sh.outer, ntiles) + gbytes, stream);
    const int64_t blocks = std::min<int64_t>(int64_t{occ} * run.sms, sh.outer * ntiles);
    kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        RowArgs{run.x, run.out, sh.L, ntiles, sh.outer, st, st.word + sh.outer * ntiles, nullptr});
  };
  r.check = kIsLse ? kLse : kSum;
  r.seg = 0;
  return r;
}

// The scan1d harness's tiles themselves (the look-back included, or its nolb diagnostic).
template <typename Op, int kThreads, int kItems, int kMinBlocks, int kFlags>
Rung TileRung(const std::string& label) {
  constexpr bool kLseOp = std::is_same<Op, scan1d::LseV>::value;
  Rung r;
  int occ = 0;
  HARNESS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &occ, scan1d::Tile1DKernel<Op, kThreads, kItems, kMinBlocks, false, false, kFlags>, kThreads, 0));
  r.name = label + " " + Geometry(kThreads, kItems, kMinBlocks) + " [" + std::to_string(occ) + "/SM]";
  r.launch = [](cudaStream_t stream, const Run& run) {
    scan1d::Launch<Op, kThreads, kItems, kMinBlocks, false, false, kFlags>(
        stream, run.scratch, run.x, run.out, run.shape->outer, run.shape->L, false, false, run.sms);
  };
  r.check = (kFlags & scan1d::kNoLB) != 0 ? kNone : kLseOp ? kLse : kSum;
  r.seg = 0;
  return r;
}

template <int kRung, typename Op>
Rung StripRung(const std::string& label) {
  const auto kernel = StripLadderKernel<kRung, Op>;
  const int64_t bytes = kSStages * kSStageBytes + int64_t{kSRows} * kSStride * sizeof(typename Op::S);
  phi::funcs::AllowDynamicSmem(reinterpret_cast<const void*>(kernel), bytes);
  HARNESS_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                     cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  int occ = 0;
  HARNESS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, kSThreads, bytes));
  Rung r;
  r.name = label + " b256 8x4 k8 s3 [" + std::to_string(occ) + "/SM]";
  r.launch = [kernel, bytes](cudaStream_t stream, const Run& run) {
    const Shape& sh = *run.shape;
    const int64_t lines = sh.outer * sh.inner;
    kernel<<<static_cast<unsigned>((lines + kSWidth - 1) / kSWidth), kSThreads, static_cast<size_t>(bytes), stream>>>(
        run.x, run.out, sh.L, sh.inner, lines, (sh.L + kSLen - 1) / kSLen);
  };
  constexpr bool kLseOp = std::is_same<Op, LseOp>::value;
  r.check = kRung == 1 ? kBits : kLseOp ? kLse : kSum;
  r.seg = kRung == 2 ? kSSteps : 0;
  return r;
}

template <int K, bool kLseWalk>
Rung WalkRung(const std::string& label) {
  Rung r;
  r.name = label;
  r.launch = [](cudaStream_t stream, const Run& run) {
    const Shape& sh = *run.shape;
    const int64_t lines = sh.outer * sh.inner;
    // about a block an SM: threads a block from the lines per SM, 32 to 256
    int64_t threads = (lines / run.sms + 31) / 32 * 32;
    threads = std::min<int64_t>(std::max<int64_t>(threads, 32), 256);
    WalkKernel<K, kLseWalk><<<static_cast<unsigned>((lines + threads - 1) / threads), static_cast<unsigned>(threads), 0,
                              stream>>>(run.x, run.out, sh.L, sh.inner, lines);
  };
  r.check = kLseWalk ? kLse : kSum;
  r.seg = 0;
  return r;
}

// The rungs every main geometry runs (the tile's occupancy, and "free" for rungs 1 and 4).
template <int kThreads, int kItems, int kMinBlocks>
void MainRungs(std::vector<Rung>& r) {
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kCopy, float>("1 copy"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kCopy, float>("1 copy", false));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kSerial, float>("2 serial"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kSerial, double>("2 serial"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kWarp, float>("3 warp"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kBlock, float>("4 block bs2"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kBlock, float, kBs1>("4 block bs1"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kBlock, float>("4 block bs2", false));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kBlock, double>("4 block bs2"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kLseTile, float>("5 lse"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kLook, float>("6 lb"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kLook, double>("6 lb"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kLseLook, float>("6 lb lse"));
}

// Rungs 1 and 4 of another geometry.
template <int kThreads, int kItems, int kMinBlocks>
void OccupancyRungs(std::vector<Rung>& r) {
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kCopy, float>("1 copy"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kBlock, float>("4 block bs2"));
  r.push_back(RowRung<kThreads, kItems, kMinBlocks, kBlock, double>("4 block bs2"));
}

std::vector<Rung> RowRungs() {
  std::vector<Rung> r;
  // The library's block tile geometry (256 x 16, 4 an SM), and its extra forms.
  MainRungs<256, 16, 4>(r);
  r.push_back(RowRung<256, 16, 4, kCopy, float, kNoTicket>("1 copy noticket"));
  r.push_back(RowRung<256, 16, 4, kSerial, float, kInterleave>("2 serial il"));
  r.push_back(RowRung<256, 16, 4, kWarp, double>("3 warp"));
  r.push_back(RowRung<256, 16, 4, kBlock, float, kLib3>("4 block lib3"));
  r.push_back(RowRung<256, 16, 4, kBlock, float, kInterleave>("4 block bs2 il"));
  r.push_back(RowRung<256, 16, 4, kBlock, double, kBs1>("4 block bs1"));
  // 512 x 16, 2 an SM (the harness's best look-back tiles); occupancy: 128 x 16 at 8 an SM,
  // 256 x 8 at 4 and 8.
  MainRungs<512, 16, 2>(r);
  OccupancyRungs<128, 16, 8>(r);
  OccupancyRungs<256, 8, 4>(r);
  OccupancyRungs<256, 8, 8>(r);
  // Each tile read twice, the look-back behind the next tile's reads (r2).
  r.push_back(TwoReadRung<256, 16, false>("8 r2"));
  r.push_back(TwoReadRung<256, 16, true>("8 r2"));
  r.push_back(TwoReadRung<256, 16, false>("8 r2", 4));
  r.push_back(TwoReadRung<256, 16, true>("8 r2", 4));
  r.push_back(TwoReadRung<512, 16, false>("8 r2"));
  r.push_back(TwoReadRung<512, 16, true>("8 r2"));
  r.push_back(TwoReadRung<256, 8, false>("8 r2"));
  r.push_back(TwoReadRung<256, 8, true>("8 r2"));
  r.push_back(TwoReadRung<256, 16, false, true>("8 r2"));  // with the group look-back
  r.push_back(TwoReadRung<256, 16, true, true>("8 r2"));
  r.push_back(TwoReadRung<512, 16, false, true>("8 r2"));
  r.push_back(TwoReadRung<512, 16, true, true>("8 r2"));
  // Persistent blocks with the next tiles' loads in flight during the look-back (pipe).
  r.push_back(PipeRung<256, 16, 2, false>("7 pipe"));
  r.push_back(PipeRung<256, 16, 2, true>("7 pipe"));
  r.push_back(PipeRung<256, 16, 3, false>("7 pipe"));
  r.push_back(PipeRung<256, 16, 3, true>("7 pipe"));
  r.push_back(PipeRung<512, 16, 2, false>("7 pipe"));
  r.push_back(PipeRung<512, 16, 2, true>("7 pipe"));
  r.push_back(PipeRung<256, 8, 3, false>("7 pipe"));
  r.push_back(PipeRung<256, 8, 3, true>("7 pipe"));
  r.push_back(PipeRung<128, 16, 3, false>("7 pipe"));
  r.push_back(PipeRung<128, 16, 3, true>("7 pipe"));
  // The look-back over groups of 32 tiles (grp), and the clocks of each part of a tile (diag).
  r.push_back(RowRung<256, 16, 4, kLook, float, kGroupLb>("6 lb"));
  r.push_back(RowRung<256, 16, 4, kLseLook, float, kGroupLb>("6 lb lse"));
  r.push_back(RowRung<512, 16, 2, kLook, float, kGroupLb>("6 lb"));
  r.push_back(RowRung<512, 16, 2, kLseLook, float, kGroupLb>("6 lb lse"));
  r.push_back(RowRung<256, 16, 4, kLook, double, kGroupLb>("6 lb"));
  r.push_back(RowRung<256, 8, 8, kLook, float>("6 lb"));
  r.push_back(RowRung<256, 8, 8, kLook, float, kGroupLb>("6 lb"));
  r.push_back(RowRung<256, 8, 8, kLseLook, float, kGroupLb>("6 lb lse"));
  r.push_back(RowRung<256, 16, 4, kLook, float, kDiag>("6 lb"));
  r.push_back(RowRung<256, 16, 4, kLseLook, float, kDiag>("6 lb lse"));
  r.push_back(RowRung<256, 16, 4, kLook, float, kGroupLb | kDiag>("6 lb"));
  r.push_back(RowRung<256, 16, 4, kLseLook, float, kGroupLb | kDiag>("6 lb lse"));
  r.push_back(RowRung<256, 16, 4, kBlock, float, kDiag>("4 block bs2"));
  // The scan1d tiles (lse: kIncl | kStep1 | kSpread, "i1s"; cumsum: kIncl | kExact, "x").
  using scan1d::kExact;
  using scan1d::kIncl;
  using scan1d::kNoLB;
  using scan1d::kSpread;
  using scan1d::kStep1;
  r.push_back(TileRung<scan1d::LseV, 512, 16, 2, kIncl | kStep1 | kSpread>("tile lse i1s"));
  r.push_back(TileRung<scan1d::LseV, 512, 16, 2, kNoLB>("tile lse nolb"));
  r.push_back(TileRung<scan1d::LseV, 256, 16, 4, kNoLB>("tile lse nolb"));
  r.push_back(TileRung<scan1d::CumsumV, 512, 16, 2, kIncl | kExact>("tile cumsum x"));
  r.push_back(TileRung<scan1d::CumsumV, 256, 16, 4, kNoLB>("tile cumsum nolb"));
  return r;
}

std::vector<Rung> ColumnRungs() {
  std::vector<Rung> r;
  r.push_back(StripRung<1, SumOp>("1 strip copy"));
  r.push_back(StripRung<2, SumOp>("2 strip serial f32"));
  r.push_back(StripRung<2, LseOp>("2 strip serial lse"));
  r.push_back(StripRung<3, SumOp>("3 strip rows f32"));
  r.push_back(StripRung<3, LseOp>("3 strip rows lse"));
  r.push_back(WalkRung<8, false>("walk K8 f32"));
  r.push_back(WalkRung<16, false>("walk K16 f32"));
  r.push_back(WalkRung<32, false>("walk K32 f32"));
  r.push_back(WalkRung<8, true>("walk K8 lse"));
  r.push_back(WalkRung<16, true>("walk K16 lse"));
  r.push_back(WalkRung<32, true>("walk K32 lse"));
  return r;
}

// The worst error of out against x's references, in units of the check's bound (bits: the
// number of elements that differ).
double CheckOut(const Shape& sh, Check check, int64_t seg, const std::vector<float>& x, const std::vector<float>& out) {
  if (check == kNone) return 0.0;
  if (check == kBits) {
    int64_t bad = 0;
    const int64_t n = sh.numel();
#pragma omp parallel for reduction(+ : bad)
    for (int64_t i = 0; i < n; ++i) bad += std::memcmp(&x[i], &out[i], 4) != 0;
    return static_cast<double>(bad);
  }
  if (seg <= 0) seg = sh.L;
  // rows: each segment a line of its own (in parallel); columns: segments restart down a line
  const bool rows = sh.inner == 1;
  const int64_t outer = rows ? sh.outer * (sh.L / seg) : sh.outer, len = rows ? seg : sh.L;
  return harness::ForEachLine(outer, len, sh.inner, false, [&](auto at, double& worst) {
    double s = 0, a = 0, m = -INFINITY;
    for (int64_t k = 0; k < len; ++k) {
      if (k % seg == 0) {
        s = a = 0;
        m = -INFINITY;
      }
      const int64_t i = at(k);
      const double xv = x[i], ov = out[i];
      double err;
      if (check == kSum) {
        s += xv;
        a += std::fabs(xv);
        err = std::fabs(ov - s) / (1e-5 * a + 1e-30);
      } else {
        if (xv > m) {
          s = s * std::exp(m - xv) + 1.0;
          m = xv;
        } else {
          s += std::exp(xv - m);
        }
        err = std::fabs(ov - (m + std::log(s))) / 1e-5;
      }
      if (err != err) err = INFINITY;
      worst = std::max(worst, err);
    }
  });
}

}  // namespace ladder

int main(int argc, char** argv) {
  using namespace ladder;
  std::vector<std::string> only;
  bool small = false, timed = true, do_rows = true, do_cols = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--small") small = true;      // the memcheck sizes
    if (a == "--no-time") timed = false;   // the checked run only
    if (a == "--no-rows") do_rows = false;
    if (a == "--no-columns") do_cols = false;
    if (a == "--only" && i + 1 < argc) only.push_back(argv[++i]);  // "case | rung" holds S
  }
  cudaStream_t stream = harness::Start();
  int sms = 0;
  HARNESS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<Shape> rows_shapes, col_shapes;
  if (small) {
    rows_shapes = {{"f32 1-D 2^20", 1, 1 << 20, 1}, {"f32 [4, 2^16]", 4, 1 << 16, 1}};
    col_shapes = {{"f32 [1024, 256] axis 0", 1, 1024, 256}, {"f32 [2, 4, 512, 72] axis 2", 8, 512, 72}};
  } else {
    rows_shapes = {{"f32 1-D 2^26", 1, int64_t{1} << 26, 1}, {"f32 [64, 2^20]", 64, 1 << 20, 1}};
    col_shapes = {{"f32 [16384, 4096] axis 0", 1, 16384, 4096}, {"f32 [32, 4, 2048, 128] axis 2", 128, 2048, 128}};
  }
  int64_t n = 0;
  for (const auto& s : rows_shapes) n = std::max(n, s.numel());
  for (const auto& s : col_shapes) n = std::max(n, s.numel());
  // x ~ N(0, 1), chunks of its own generator each (in parallel)
  std::vector<float> hx(n), hout(n);
  constexpr int64_t kChunk = 1 << 20;
#pragma omp parallel for
  for (int64_t c = 0; c < (n + kChunk - 1) / kChunk; ++c) {
    std::mt19937_64 g(20261130 + c);
    std::normal_distribution<float> d(0.f, 1.f);
    for (int64_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) hx[i] = d(g);
  }
  harness::DeviceBuffer<float> x(n), out(n);
  x.Upload(hx);
  HARNESS_CHECK(cudaHostRegister(hout.data(), n * 4, cudaHostRegisterDefault));  // faster downloads
  int64_t scratch_bytes = 256;
  for (const auto& s : rows_shapes) {  // the smallest tiles' status words (scan1d's, look-back rungs')
    scratch_bytes = std::max(scratch_bytes, scan1d::StatusBytesMax(s.outer, s.L / 2048 + 1));
  }
  harness::DeviceBuffer<char> scratch(scratch_bytes);
  harness::DeviceBuffer<unsigned long long> diag(kDiagSlots);
  std::printf("x ~ N(0, 1); ms: median of 15; err: sums in 1e-5 of the running sum of |x| in the rung's segment, "
              "lse in 1e-5 absolute, copies the elements that differ\n");
  std::printf("| %-30s | %-38s | %8s | %8s | %6s | %-13s |\n", "case", "rung", "ms", "copy ms", "x copy", "check");
  std::printf("|---|---|---|---|---|---|\n");
  auto run_case = [&](const Shape& sh, const std::vector<Rung>& rungs) {
    const double copy_ms = timed ? harness::CopyMs(stream, sh.numel() * 4) : NAN;
    const Run run{x.p, out.p, &sh, scratch.p, sms, diag.p};
    for (const Rung& r : rungs) {
      if (!harness::Selected(only, sh.name + " | " + r.name)) continue;
      out.Poison();
      r.launch(stream, run);
      HARNESS_CHECK(cudaStreamSynchronize(stream));
      HARNESS_CHECK(cudaGetLastError());
      char verdict[32];
      if (r.check == kNone) {
        std::snprintf(verdict, sizeof verdict, "n/a (diag)");
      } else {
        HARNESS_CHECK(cudaMemcpy(hout.data(), out.p, sh.numel() * 4, cudaMemcpyDeviceToHost));
        const double err = CheckOut(sh, r.check, r.seg, hx, hout);
        std::snprintf(verdict, sizeof verdict, "%s %.3g", err <= 1.0 ? "ok" : "FAIL", err);
      }
      const double ms = timed ? harness::TimeMs(stream, [&] { r.launch(stream, run); }) : NAN;
      std::printf("| %-30s | %-38s | %8.4f | %8.4f | %6.2f | %-13s |\n", sh.name.c_str(), r.name.c_str(), ms, copy_ms,
                  ms / copy_ms, verdict);
      if (r.diag) {  // the last launch's sums, per tile, in SM clocks from the ticket
        unsigned long long d[kDiagSlots];
        HARNESS_CHECK(cudaMemcpy(d, diag.p, sizeof d, cudaMemcpyDeviceToHost));
        const double n = d[kDiagTiles] > 0 ? static_cast<double>(d[kDiagTiles]) : 1.0;
        std::printf("|   (diag) | tiles %llu: clocks from the ticket: aggregate %.0f, carry %.0f, stores issued %.0f; "
                    "look-back %.0f; D (aggregates or groups folded) %.2f a tile |\n",
                    d[kDiagTiles], d[kDiagAgg] / n, d[kDiagCarry] / n, d[kDiagEnd] / n,
                    (static_cast<double>(d[kDiagCarry]) - d[kDiagAgg]) / n, d[kDiagD] / n);
      }
      std::fflush(stdout);
    }
  };
  if (do_rows) {
    const std::vector<Rung> rungs = RowRungs();
    for (const auto& s : rows_shapes) run_case(s, rungs);
  }
  if (do_cols) {
    const std::vector<Rung> rungs = ColumnRungs();
    for (const auto& s : col_shapes) run_case(s, rungs);
  }
  HARNESS_CHECK(cudaDeviceSynchronize());
  HARNESS_CHECK(cudaHostUnregister(hout.data()));
  return 0;
}
