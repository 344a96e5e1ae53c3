// Host-side launches of the gla GPU kernels (chunk_gpu.cuh), shared by the forward
// and gradient kernels: the state recurrence over chunks, the intra-chunk scores, the
// per-chunk output products, and the recurrent form for the calls the chunked kernels do not
// take; on sm_90a, the fused forward of sm90/chunk_fwd_sm90.cuh for 16-bit inputs (T split into
// segments for few heads, a varlen call in one launch: flag PADDLE_OPS_GLA_GPU_FWD), and (flag
// PADDLE_OPS_GLA_GPU_BWD=sm90) the backward of sm90/chunk_bwd_sm90.cuh. Temporaries are
// DenseTensors on the context's allocator.
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <mutex>
#include <set>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kernels/gla/chunk_gpu.cuh"
#ifdef PADDLE_OPS_GLA_SM90
#define GLA_BWD_MIN_ARCH 900  // the backward's kernel bodies for sm_90a only (it runs nowhere else)
#include "kernels/gla/sm90/chunk_bwd_sm90.cuh"
#include "kernels/gla/sm90/chunk_fwd_sm90.cuh"
#endif
#include "paddle_ops/common/enforce.h"
#include "paddle_ops/common/flags.h"
#include "paddle_ops/core/dense_tensor.h"
#include "paddle_ops/core/gpu/gpu_context.h"
#include "paddle_ops/core/gpu/gpu_info.h"
#include "kernels/util/cast_value.h"
#include "kernels/util/gpu_launch.cuh"

namespace phi {
namespace funcs {
namespace gla {

// The flag PADDLE_OPS_GLA_GPU (paddle_ops/common/flags.h) = chunked (the default) or recurrent:
// the GPU path of gla, looked up per call. chunked runs the sm_90a kernels where they take the
// call and the chunked kernels of chunk_gpu.cuh elsewhere; recurrent the recurrent form (one
// thread per head, slow; the reference to compare the chunked kernels with on the device).
using paddle_ops::flags::GlaGpu;
inline GlaGpu GlaGpuPath() { return paddle_ops::flags::GlaGpuPath(); }

// An attribute of the current device: asked of the driver once per device (a device's
// attributes do not change), then read from the cache.
template <cudaDeviceAttr kAttr>
int CachedDeviceAttribute() {
  constexpr int kCached = 64;
  static std::atomic<int> cache[kCached] = {};  // 0 = not asked yet (every attribute asked is > 0)
  int dev = 0;
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetDevice(&dev));
  int value = dev < kCached ? cache[dev].load(std::memory_order_relaxed) : 0;
  if (value == 0) {
    PADDLE_ENFORCE_GPU_SUCCESS(cudaDeviceGetAttribute(&value, kAttr, dev));
    if (dev < kCached) cache[dev].store(value, std::memory_order_relaxed);
  }
  return value;
}

// The most dynamic shared memory a block may opt into on the current device.
inline size_t DeviceSmemPerBlockOptin() {
  return static_cast<size_t>(CachedDeviceAttribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>());
}

// The shared memory per block that the chunked kernels' choices (ChunkedFits, IntraStaged,
// DqkStaged) and the sm_90a kernels see: the device's opt-in limit, or the flag
// PADDLE_OPS_GLA_GPU_SMEM_LIMIT where it is set lower (a testing aid: on an sm_90 device, 101376
// runs the kernels as an sm_86/sm_89 device runs them; 0, the default, is the device's own limit).
inline size_t SmemLimit() {
  const size_t device = DeviceSmemPerBlockOptin();
  const int64_t flag = paddle_ops::flags::GlaGpuSmemLimit();
  return flag > 0 && static_cast<uint64_t>(flag) < device ? static_cast<size_t>(flag) : device;
}

// The architectures this build targets (CMakeLists.txt) and their per-block limits: every
// chunked kernel fits sm_80's 163 KB (and so sm_90's 227 KB); on sm_86 and sm_89 (99 KB) the
// forward fits with the intra kernel unstaged (IntraStaged) and the backward with the dq/dk
// kernel's operand tiles in global memory (DqkStaged).
static_assert(ChunkedSmem<float, true>() <= 163 * 1024 && ChunkedSmem<dtype::float16, true>() <= 163 * 1024 &&
                  ChunkedSmem<dtype::bfloat16, true>() <= 163 * 1024,
              "a gla kernel needs more shared memory than sm_80 has per block");
static_assert(ChunkedSmem<float, false, false>() <= 99 * 1024 &&
                  ChunkedSmem<dtype::float16, false, false>() <= 99 * 1024 &&
                  ChunkedSmem<dtype::bfloat16, false, false>() <= 99 * 1024,
              "the gla forward (intra kernel unstaged) needs more shared memory than sm_86/sm_89 have per block");
static_assert(ChunkedSmem<float, true, false>() <= 99 * 1024 && ChunkedSmem<dtype::float16, true, false>() <= 99 * 1024 &&
                  ChunkedSmem<dtype::bfloat16, true, false>() <= 99 * 1024,
              "the gla backward (dq/dk tiles in global memory) needs more shared memory than sm_86/sm_89 have "
              "per block");

// Whether the chunked kernels take this call: the path is chunked, the shape theirs (UseChunked)
// and their shared memory within the per-block limit (ChunkedFits, SmemLimit); else the recurrent
// form takes it.
template <typename T, bool kBackward>
bool TakesChunked(const GlaShape& s) {
  return GlaGpuPath() == GlaGpu::kChunked && UseChunked<T>(s) && ChunkedFits<T, kBackward>(SmemLimit());
}

// Sets a kernel's shared-memory attributes on the current device, once per kernel, device and size:
// they stay set, and the driver call would otherwise come with every launch.
template <typename Kernel>
void AllowSmem(Kernel kernel, size_t bytes) {
  static std::mutex mu;
  static std::set<std::tuple<const void*, int, size_t>> done;
  int dev = 0;
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetDevice(&dev));
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), dev, bytes);
  std::lock_guard<std::mutex> lock(mu);
  if (done.count(key)) return;
  PADDLE_ENFORCE_GPU_SUCCESS(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  // The kernels barely use L1 (their global reads are streamed once): prefer the largest shared
  // memory carveout, so that two blocks of ~80-108 KB fit on an SM.
  PADDLE_ENFORCE_GPU_SUCCESS(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  done.insert(key);
}

inline int64_t Tiles(int64_t d) { return (d + kChunk - 1) / kChunk; }

// The grid of a kernel over chunks x tiles (BlockTile): 1-D, the tiles of a chunk fastest.
inline dim3 TiledGrid(int64_t chunks, int64_t tiles) { return dim3(static_cast<unsigned>(chunks * tiles)); }

// A float32 temporary of n elements.
inline float* TempFloat(const GPUContext& ctx, DenseTensor* t, int64_t n) {
  *t = DenseTensor(DataType::FLOAT32, DDim({n}));
  return ctx.template Alloc<float>(t);
}

// The per-chunk states (kReverse: state gradients) into store [B*H, NT, Dk, Dv].
template <typename T, bool kReverse>
void LaunchState(const GPUContext& ctx, const GlaShape& s, const T* x, const T* y, const T* g,
                 const float* init, float scale, float* store, float* last) {
  auto kernel = GlaStateKernel<T, kReverse>;
  AllowSmem(kernel, StateSmem<T>());
  const dim3 grid(static_cast<unsigned>(s.heads() * Tiles(s.Dk) * Tiles(s.Dv)));
  kernel<<<grid, kThreads, StateSmem<T>(), ctx.stream()>>>(s, x, y, g, init, scale, store, last);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// The intra-chunk scores into A [B*H*NT, 64, 64]: q and k staged in shared memory where the device
// has room for them (IntraStaged), else read from global memory (the same results).
template <typename T, bool kStaged>
void LaunchIntraAs(const GPUContext& ctx, const GlaShape& s, const T* q, const T* k, const T* g, float scale,
                   float* A) {
  auto kernel = GlaIntraKernel<T, kStaged>;
  constexpr size_t smem = IntraSmem<T, kStaged>();
  AllowSmem(kernel, smem);
  const int64_t blocks = s.heads() * ((s.T + kChunk - 1) / kChunk);
  kernel<<<static_cast<unsigned>(blocks), kThreads, smem, ctx.stream()>>>(s, q, k, g, scale, A);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}
template <typename T>
void LaunchIntra(const GPUContext& ctx, const GlaShape& s, const T* q, const T* k, const T* g, float scale,
                 float* A) {
  if (IntraStaged<T>(SmemLimit())) {
    LaunchIntraAs<T, true>(ctx, s, q, k, g, scale, A);
  } else {
    LaunchIntraAs<T, false>(ctx, s, q, k, g, scale, A);
  }
}

// o = Qhat h_n + A V (forward), or dv = Khat dH_{n+1} + A^T dO (kDv).
template <typename T, bool kDv>
void LaunchOutput(const GPUContext& ctx, const GlaShape& s, const T* x, const T* y, const T* g,
                  const float* store, const float* A, float scale, T* out) {
  auto kernel = GlaOutputKernel<T, kDv>;
  AllowSmem(kernel, OutputSmem<T>());
  const int64_t blocks = s.heads() * ((s.T + kChunk - 1) / kChunk);
  const dim3 grid = TiledGrid(blocks, Tiles(s.Dv));
  kernel<<<grid, kThreads, OutputSmem<T>(), ctx.stream()>>>(s, x, y, g, store, A, scale, out);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// dq, dk and gk_grad's parts qdk and dks per chunk and Dk tile where the dq/dk kernel's operand
// tiles do not fit the shared memory per block (DqkStaged; ChunkedBackward launches GlaDqkKernel<T>
// elsewhere): its global-tiles form, the tiles in a scratch of global memory for 8 blocks per SM,
// the grid launched in parts of that many blocks (the same results).
template <typename T>
void LaunchDqkGlobal(const GPUContext& ctx, const GlaGradData<T>& d, const float* hs, const float* dhs,
                     float scale, float* qdk, float* dks) {
  using MT = typename Operand<T>::type;
  const GlaShape& s = d.s;
  const int64_t blocks = s.heads() * ((s.T + kChunk - 1) / kChunk) * Tiles(s.Dk);
  auto kernel = GlaDqkKernel<T, unsigned, MT*>;
  constexpr size_t smem = DqkSmem<T, false>();
  AllowSmem(kernel, smem);
  const int64_t part = std::min<int64_t>(blocks, 8 * int64_t{CachedDeviceAttribute<cudaDevAttrMultiProcessorCount>()});
  static_assert(DqkTileElems<T>() * sizeof(MT) % 256 == 0, "the slices keep the tiles' alignment");
  DenseTensor scratch;
  MT* tiles = reinterpret_cast<MT*>(
      TempFloat(ctx, &scratch, part * static_cast<int64_t>(DqkTileElems<T>() * sizeof(MT) / sizeof(float))));
  PADDLE_ENFORCE((reinterpret_cast<uintptr_t>(tiles) & 255) == 0,
                 errors::PreconditionNotMet("gla_grad: the dq/dk kernel's scratch is not 256-byte aligned (its "
                                            "wmma loads need 32 bytes)"));
  for (int64_t first = 0; first < blocks; first += part) {
    const unsigned n = static_cast<unsigned>(std::min<int64_t>(part, blocks - first));
    kernel<<<n, kDqkThreads, smem, ctx.stream()>>>(s, d.q, d.k, d.v, d.g, d.dout, hs, dhs, scale, d.dq, d.dk, qdk,
                                                   dks, static_cast<unsigned>(first), tiles);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  }
}

inline unsigned HeadBlocks(int64_t n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

// The recurrent form, one thread per head (64 to a block), with a workspace of `per_head` Acc
// elements for each head: launch(blocks, threads, workspace) issues the kernel on ctx's stream;
// the workspace is released when this returns, as it was for each launch on its own.
template <typename Acc, typename Launch>
void LaunchPerHead(const GPUContext& ctx, int64_t heads, int64_t per_head, Launch launch) {
  DenseTensor work(CppTypeToDataType<Acc>::Type(), DDim({heads * per_head}));
  launch(HeadBlocks(heads, 64), 64, ctx.template Alloc<Acc>(&work));
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

// The decode step (T = 1): h = h0 * exp(gk)[:, None] + k ⊗ v, o = (q * scale) h, the
// recurrent form's arithmetic in its order. One block per head and kDecodeCols columns of the
// state, one thread per column: the state's rows are read and written coalesced, once.
constexpr int kDecodeCols = 128;

template <typename T, typename Acc>
__global__ void __launch_bounds__(kDecodeCols) GlaDecodeKernel(GlaShape s, const T* q, const T* k, const T* v,
                                                               const T* g, const float* h0, Acc scale, T* o,
                                                               float* final_state) {
  extern __shared__ unsigned char decode_smem[];
  Acc* qs = reinterpret_cast<Acc*>(decode_smem);  // q * scale, k, exp(gk): Dk each
  Acc* ks = qs + s.Dk;
  Acc* as = ks + s.Dk;
  const int64_t bh = blockIdx.x;
  const int64_t rk = s.QkRow(bh, 0), rv = s.VRow(bh, 0);
  for (int64_t i = threadIdx.x; i < s.Dk; i += blockDim.x) {
    qs[i] = static_cast<Acc>(q[rk + i]) * scale;
    ks[i] = static_cast<Acc>(k[rk + i]);
    as[i] = GlaExp(static_cast<Acc>(g[rk + i]));
  }
  __syncthreads();
  const int64_t j = static_cast<int64_t>(blockIdx.y) * kDecodeCols + threadIdx.x;
  if (j >= s.Dv) return;
  const int64_t st = bh * s.StateSize();
  const Acc vj = static_cast<Acc>(v[rv + j]);
  Acc acc = 0;
  for (int64_t i = 0; i < s.Dk; ++i) {
    const Acc h = (h0 ? static_cast<Acc>(h0[st + i * s.Dv + j]) : Acc(0)) * as[i] + ks[i] * vj;
    acc += qs[i] * h;
    if (final_state) final_state[st + i * s.Dv + j] = static_cast<float>(h);
  }
  o[rv + j] = static_cast<T>(acc);
}

// The decode step's kernel where it fits (every shape with a step: gridDim.y <= 65535 columns
// tiles and a head per block in x); false sends the call to the other forms.
template <typename T>
bool RunDecode(const GPUContext& ctx, const GlaData<T>& d, double scale) {
  using Acc = typename GlaAccType<T>::type;
  const GlaShape& s = d.s;
  const int64_t tiles = (s.Dv + kDecodeCols - 1) / kDecodeCols;
  const size_t smem = 3 * static_cast<size_t>(s.Dk) * sizeof(Acc);
  if (s.T != 1 || s.heads() == 0 || s.Dv == 0 || s.heads() > 0x7fffffff || tiles > 65535 || smem > 48 * 1024) {
    return false;
  }
  GlaDecodeKernel<T, Acc><<<dim3(static_cast<unsigned>(s.heads()), static_cast<unsigned>(tiles)), kDecodeCols, smem,
                            ctx.stream()>>>(s, d.q, d.k, d.v, d.g, d.h0, static_cast<Acc>(scale), d.o, d.final_state);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  return true;
}

template <typename T>
void LaunchRecurrentForward(const GPUContext& ctx, const GlaData<T>& d, double scale) {
  using Acc = typename GlaAccType<T>::type;
  LaunchPerHead<Acc>(ctx, d.s.heads(), d.s.ForwardWork(), [&](unsigned blocks, int threads, Acc* wp) {
    GlaRecurrentForwardKernel<T, Acc><<<blocks, threads, 0, ctx.stream()>>>(
        d.s, d.q, d.k, d.v, d.g, d.h0, static_cast<Acc>(scale), d.o, d.final_state, wp);
  });
}

template <typename T>
void LaunchRecurrentBackward(const GPUContext& ctx, const GlaGradData<T>& d, double scale) {
  using Acc = typename GlaAccType<T>::type;
  LaunchPerHead<Acc>(ctx, d.s.heads(), d.s.BackwardWork(), [&](unsigned blocks, int threads, Acc* wp) {
    GlaRecurrentBackwardKernel<T, Acc><<<blocks, threads, 0, ctx.stream()>>>(
        d.s, d.q, d.k, d.v, d.g, d.h0, d.dout, d.dfinal, static_cast<Acc>(scale), d.dq, d.dk, d.dv, d.dg, d.dh0,
        wp);
  });
}

// The chunked forward: the states of every chunk, the intra-chunk scores, every chunk's output.
template <typename T>
void ChunkedForward(const GPUContext& ctx, const GlaData<T>& d, float scale) {
  const GlaShape& s = d.s;
  const int64_t NT = (s.T + kChunk - 1) / kChunk;
  DenseTensor states, scores;
  float* hs = TempFloat(ctx, &states, s.heads() * NT * s.Dk * s.Dv);
  float* A = TempFloat(ctx, &scores, s.heads() * NT * kChunk * kChunk);
  LaunchState<T, false>(ctx, s, d.k, d.v, d.g, d.h0, scale, hs, d.final_state);
  LaunchIntra<T>(ctx, s, d.q, d.k, d.g, scale, A);
  LaunchOutput<T, false>(ctx, s, d.q, d.v, d.g, hs, A, scale, d.o);
}

// The chunked backward: the forward states again, the state gradients (reverse), the
// intra-chunk scores, dv per chunk and Dv tile, dq/dk per chunk and Dk tile, then gk_grad.
template <typename T>
void ChunkedBackward(const GPUContext& ctx, const GlaGradData<T>& d, float scale) {
  const GlaShape& s = d.s;
  const int64_t NT = (s.T + kChunk - 1) / kChunk;
  const int64_t store = s.heads() * NT * s.Dk * s.Dv;
  DenseTensor states, dstates, scores, products, state_parts;
  float* hs = TempFloat(ctx, &states, store);
  float* dhs = TempFloat(ctx, &dstates, store);
  float* A = TempFloat(ctx, &scores, s.heads() * NT * kChunk * kChunk);
  float* qdk = TempFloat(ctx, &products, s.heads() * s.T * s.Dk);
  float* dks = TempFloat(ctx, &state_parts, s.heads() * s.T * s.Dk);
  LaunchState<T, false>(ctx, s, d.k, d.v, d.g, d.h0, scale, hs, nullptr);
  LaunchState<T, true>(ctx, s, d.q, d.dout, d.g, d.dfinal, scale, dhs, d.dh0);
  LaunchIntra<T>(ctx, s, d.q, d.k, d.g, scale, A);
  LaunchOutput<T, true>(ctx, s, d.k, d.dout, d.g, dhs, A, scale, d.dv);
  if (DqkStaged<T>(SmemLimit())) {
    auto dqk = GlaDqkKernel<T>;
    AllowSmem(dqk, DqkSmem<T>());
    const dim3 grid = TiledGrid(s.heads() * NT, Tiles(s.Dk));
    dqk<<<grid, kDqkThreads, DqkSmem<T>(), ctx.stream()>>>(s, d.q, d.k, d.v, d.g, d.dout, hs, dhs, scale, d.dq,
                                                           d.dk, qdk, dks);
    PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
  } else {  // sm_86, sm_89
    LaunchDqkGlobal<T>(ctx, d, hs, dhs, scale, qdk, dks);
  }
  GlaDgKernel<T><<<HeadBlocks(s.heads() * s.Dk, 128), 128, 0, ctx.stream()>>>(s, qdk, dks, d.k, d.g, hs, dhs, d.h0,
                                                                               d.dh0, d.dg);
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetLastError());
}

#ifdef PADDLE_OPS_GLA_SM90
// ---- the sm_90a forward (kernels/gla/sm90/chunk_fwd_sm90.cuh) ------------------------------------
// Whether the current device runs this build's sm_90a kernels: compute capability 9.x and the
// kernel's code compiled for sm_90a (a build without 90a-real runs the driver's compilation of
// the compute_80 PTX there, ptxVersion 80, whose sm_90a kernel bodies are empty). Asked once per
// device.
inline bool DeviceRunsSm90a(const void* kernel) {
  constexpr int kCached = 64;
  static std::atomic<int> cache[kCached] = {};  // 0 = not asked yet, 1 = yes, 2 = no
  int dev = 0;
  PADDLE_ENFORCE_GPU_SUCCESS(cudaGetDevice(&dev));
  int known = dev < kCached ? cache[dev].load(std::memory_order_relaxed) : 0;
  if (known == 0) {
    cudaFuncAttributes attr;
    const bool yes = CachedDeviceAttribute<cudaDevAttrComputeCapabilityMajor>() == 9 &&
                     cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.ptxVersion >= 90 &&
                     attr.binaryVersion >= 90;
    (void)cudaGetLastError();  // cudaFuncGetAttributes' error, if any, is not the caller's
    known = yes ? 1 : 2;
    if (dev < kCached) cache[dev].store(known, std::memory_order_relaxed);
  }
  return known == 1;
}

// Two stages of q, k, gk, v.
template <typename E, int kBV>
void LaunchSm90Forward(const GPUContext& ctx, const gla_sm90::FwdArgs& a) {
  AllowSmem(gla_sm90::FwdKernelPtr<E, 128, kBV, 2>(), gla_sm90::FwdSmemBytes<E, 128, kBV, 2>());
  PADDLE_ENFORCE_GPU_SUCCESS((gla_sm90::LaunchFwdOnly<E, 128, kBV, 2>(a, ctx.stream())));
}

// The flag PADDLE_OPS_GLA_GPU_FWD = auto (the default) lets the forward split T and run a varlen
// call in one launch (below); plain keeps one CTA per head and Dv tile over the whole of T, and
// the sequences of a varlen call one by one (ForEachSequence).
inline bool GlaGpuFwdAuto() {
  return paddle_ops::flags::GlaGpuFwdPlan() == paddle_ops::flags::GlaGpuFwd::kAuto;
}

// The sequence split's chunks per segment for a call of `s` (args `a`) on `sms` SMs, or 0 where
// the call stays one launch over T: the flag is plain; the call is a sequence of a varlen call
// that the one launch did not take (those overlap on side streams); or the CTAs at Dv tiles of 64 fill half the SMs or more
// (B4 T2048 H16 D128's 128 CTAs ran 0.0986 ms unsplit against 0.116 split on the H200). Else
// Dv tiles of 128 and the segments of gla_sm90::FwdSplitSegChunks (the least modelled time: one
// wave of CTAs on the shapes measured: B2 T16384 H16 D128 4 segments of 64 chunks, 0.352 ms
// against 0.700 unsplit; B1 T32768 H8 D128 16 of 32, 0.192 against 1.416; docs/benchmarks.md),
// if that is at least 2 segments. Not below kSplitMinChunks chunks of T: the split's three
// launches cost a few microseconds each, about what a CTA takes for 2 or 3 chunks (~2.8 us a chunk
// on the H200), so a short T gains little or loses; the floor is a guess, not measured.
constexpr int64_t kSplitMinChunks = 8;
inline int Sm90ForwardSegChunks(const GlaShape& s, const gla_sm90::FwdArgs& a, int sms) {
  if (!GlaGpuFwdAuto() || s.head_rows > 0 || (s.T + kChunk - 1) / kChunk < kSplitMinChunks) return 0;
  const int64_t narrow_ctas = s.heads() * ((s.Dv + 63) / 64);
  if (2 * narrow_ctas >= sms) return 0;
  const int seg_chunks = gla_sm90::FwdSplitSegChunks(a, 128, sms);
  return gla_sm90::FwdSplitSegments(a, seg_chunks) >= 2 ? seg_chunks : 0;
}

// The split forward at Dv tiles of 128 (gla_sm90::LaunchFwdSplitOnly: a state-only pass over
// every segment but the last, the in-order float32 combine of their states from h0, the outputs
// of every segment from its start state, ht from the last), its work space (the segments' states
// and decays, FwdSplitWorkspaceBytes) from the context's allocator, freed when this returns, as
// ChunkedForward's temporaries.
template <typename E>
void LaunchSm90ForwardSplit(const GPUContext& ctx, const gla_sm90::FwdArgs& a, int seg_chunks) {
  constexpr int kBytes = gla_sm90::FwdSmemBytes<E, 128, 128, 2>();
  AllowSmem(gla_sm90::FwdSegKernelPtr<E, 128, 128, 2, 1>(), kBytes);
  AllowSmem(gla_sm90::FwdSegKernelPtr<E, 128, 128, 2, 2>(), kBytes);
  const size_t bytes = gla_sm90::FwdSplitWorkspaceBytes(a, seg_chunks);
  DenseTensor work;
  float* ws = TempFloat(ctx, &work, static_cast<int64_t>(bytes / sizeof(float)));
  PADDLE_ENFORCE_GPU_SUCCESS((gla_sm90::LaunchFwdSplitOnly<E, 128, 128, 2>(a, seg_chunks, ws, ctx.stream())));
}

// cutlass's element type of T for the sm_90a forward: void for the types it does not take.
template <typename T>
struct Sm90Element {
  using type = void;
};
template <>
struct Sm90Element<dtype::bfloat16> {
  using type = cutlass::bfloat16_t;
};
template <>
struct Sm90Element<dtype::float16> {
  using type = cutlass::half_t;
};

// The sm_90a forward's arguments for the call of `d` (the whole call, or a sequence of a varlen
// call: its rows between two heads, HeadRows, are the whole tensor's T); false where the path is
// not chunked or a dim passes the kernel's int.
template <typename T>
bool Sm90ForwardArgs(const GlaData<T>& d, float scale, gla_sm90::FwdArgs* a) {
  const GlaShape& s = d.s;
  constexpr int64_t kIntMax = 0x7fffffff;
  if (GlaGpuPath() != GlaGpu::kChunked || s.B > kIntMax || s.H > kIntMax || s.HeadRows() > kIntMax ||
      s.Dv > kIntMax) {
    return false;
  }
  if (SmemLimit() < DeviceSmemPerBlockOptin()) return false;  // PADDLE_OPS_GLA_GPU_SMEM_LIMIT: sm_90 only
  a->B = static_cast<int>(s.B), a->H = static_cast<int>(s.H), a->T = static_cast<int>(s.T);
  a->Dk = static_cast<int>(std::min<int64_t>(s.Dk, kIntMax)), a->Dv = static_cast<int>(s.Dv);
  const int rows = static_cast<int>(s.HeadRows());
  gla_sm90::RowStrides(s.head_first, rows, a->H, a->Dk, &a->qk_st, &a->qk_sh, &a->qk_sb);
  gla_sm90::RowStrides(s.head_first, rows, a->H, a->Dv, &a->v_st, &a->v_sh, &a->v_sb);
  a->q = d.q, a->k = d.k, a->v = d.v, a->g = d.g, a->h0 = d.h0, a->o = d.o, a->ht = d.final_state;
  a->scale = scale;
  return true;
}

// The forward of 16-bit inputs on sm_90a with the default path (PADDLE_OPS_GLA_GPU=chunked):
// one fused kernel per head and Dv tile with the state on chip. Returns false where it does not
// take the call (another dtype or device, Dk > 128, rows not 16-byte aligned, more than 65535
// heads): the chunked kernels of chunk_gpu.cuh take it then. Where the CTAs would leave most SMs
// idle, T split into segments (Sm90ForwardSegChunks, LaunchSm90ForwardSplit); else Dv tiles of 128
// where that makes a CTA for every SM, else of 64 (twice the CTAs; harness figures in
// docs/benchmarks.md).
template <typename T>
bool RunSm90Forward(const GPUContext& ctx, const GlaData<T>& d, float scale) {
  using E = typename Sm90Element<T>::type;
  if constexpr (std::is_void<E>::value) {
    return false;
  } else {
    const GlaShape& s = d.s;
    gla_sm90::FwdArgs a;
    if (!Sm90ForwardArgs(d, scale, &a) || !gla_sm90::FwdFits(a, static_cast<int>(sizeof(T)))) return false;
    if (!DeviceRunsSm90a(reinterpret_cast<const void*>(gla_sm90::FwdKernelPtr<E, 128, 128, 2>()))) return false;
    const int sms = CachedDeviceAttribute<cudaDevAttrMultiProcessorCount>();
    const int seg_chunks = Sm90ForwardSegChunks(s, a, sms);
    const int64_t wide_ctas = s.heads() * ((s.Dv + 127) / 128);
    if (seg_chunks > 0) {
      LaunchSm90ForwardSplit<E>(ctx, a, seg_chunks);
    } else if (wide_ctas >= sms) {
      LaunchSm90Forward<E, 128>(ctx, a);
    } else {
      LaunchSm90Forward<E, 64>(ctx, a);
    }
    return true;
  }
}

// The forward of a whole varlen call of 16-bit inputs on sm_90a in one launch (flag
// PADDLE_OPS_GLA_GPU_FWD=auto; gla_sm90::LaunchFwdVarlenOnly): a CTA per (Dv tile, sequence slot x
// H + head) reads its sequence's offsets from cu_seqlens on the device, walks that sequence's
// chunks from h0[n] and writes ht[n]; slots by descending length (order 1: the longest start
// first, the short ones fill the tail). Dv tiles of 128 where that makes a CTA for every SM, else
// of 64. In place of a launch per sequence on side streams (ForEachSequence), which the harness
// timed slower on bench_gla's varlen case (8 sequences 512..4608, H16 D128: 0.236 ms against
// 0.253) and far slower on many short sequences (64 of 30..1024: 0.303 against 0.422-0.467;
// docs/benchmarks.md). Returns false where it does not take the call (another dtype, path, plan
// or device; cu_seqlens not on this GPU; FwdVarlenFits: N x H > 65535, Dk > 128, rows not
// 16-byte aligned, T = 0): the sequences run one by one then.
template <typename T>
bool RunSm90ForwardVarlen(const GPUContext& ctx, const GlaData<T>& d, const DenseTensor& cu_seqlens, int64_t count,
                          float scale) {
  using E = typename Sm90Element<T>::type;
  if constexpr (std::is_void<E>::value) {
    return false;
  } else {
    const GlaShape& s = d.s;
    gla_sm90::FwdArgs a;
    if (!GlaGpuFwdAuto() || s.B != 1 || count < 1 || count > 0x7fffffff || !Sm90ForwardArgs(d, scale, &a)) {
      return false;
    }
    if (cu_seqlens.place().GetType() != AllocationType::GPU ||
        cu_seqlens.place().GetDeviceId() != ctx.GetPlace().GetDeviceId()) {
      return false;
    }
    const int n = static_cast<int>(count);
    if (!gla_sm90::FwdVarlenFits(a, static_cast<int>(sizeof(T)), n)) return false;
    if (!DeviceRunsSm90a(reinterpret_cast<const void*>(gla_sm90::FwdVarlenKernelPtr<E, 128, 128, 2>()))) {
      return false;
    }
    const bool offsets64 = cu_seqlens.dtype() == DataType::INT64;
    const void* offsets = cu_seqlens.raw_data();
    constexpr int kOrder = 1;  // longest first (order 0 past kVarlenRankMax sequences, in the kernel)
    const int64_t wide_ctas = count * s.H * ((s.Dv + 127) / 128);
    if (wide_ctas >= CachedDeviceAttribute<cudaDevAttrMultiProcessorCount>()) {
      AllowSmem(gla_sm90::FwdVarlenKernelPtr<E, 128, 128, 2>(), gla_sm90::FwdSmemBytes<E, 128, 128, 2>());
      PADDLE_ENFORCE_GPU_SUCCESS(
          (gla_sm90::LaunchFwdVarlenOnly<E, 128, 128, 2>(a, offsets, offsets64, n, kOrder, ctx.stream())));
    } else {
      AllowSmem(gla_sm90::FwdVarlenKernelPtr<E, 128, 64, 2>(), gla_sm90::FwdSmemBytes<E, 128, 64, 2>());
      PADDLE_ENFORCE_GPU_SUCCESS(
          (gla_sm90::LaunchFwdVarlenOnly<E, 128, 64, 2>(a, offsets, offsets64, n, kOrder, ctx.stream())));
    }
    return true;
  }
}

// ---- the sm_90a backward (kernels/gla/sm90/chunk_bwd_sm90.cuh) -----------------------------------
// The flag PADDLE_OPS_GLA_GPU_BWD = sm90 (the default; chunked keeps the chunked kernels' backward).
inline bool GlaGpuBwdSm90() {
  return paddle_ops::flags::GlaGpuBwdPath() == paddle_ops::flags::GlaGpuBwd::kSm90;
}

// The work space of the call (both sets of per-chunk states, BwdWorkBytes<E>), from the context's
// allocator, freed when the caller's `work` goes: a MemoryError naming its dimensions where its
// size would pass 2^63 bytes (a guard: RunSm90Backward's bound on the blocks keeps it below
// 2^49), or the allocator's, naming the bytes, where the device has not that much (as for every
// temporary here).
template <typename E>
float* Sm90BwdWork(const GPUContext& ctx, const gla_sm90_bwd::BwdArgs& a, DenseTensor* work) {
  using ST = gla_sm90_bwd::StateT<E>;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const int64_t heads = int64_t(a.B) * a.H, chunks = gla_sm90_bwd::BwdChunks(a), state = int64_t(a.Dk) * a.Dv;
  const int64_t per_set = 2 * static_cast<int64_t>(sizeof(ST));  // bytes of one state element in both sets
  PADDLE_ENFORCE(heads <= kMax / chunks && heads * chunks <= kMax / state && heads * chunks * state <= kMax / per_set,
                 errors::ResourceExhausted("gla_grad: the sm_90a backward's work space (B*H = %d heads x %d "
                                           "chunks x Dk*Dv = %d states, twice) passes 2^63 bytes",
                                           heads, chunks, state));
  const int64_t bytes = gla_sm90_bwd::BwdWorkBytes<E>(a);
  static_assert(sizeof(ST) % 2 == 0, "the work space is a whole number of floats");
  return TempFloat(ctx, work, bytes / static_cast<int64_t>(sizeof(float)));
}

// One configuration of the backward (Dk <= DK, Dv <= DV): false where the call does not fit it
// (BwdShapeFits) or the device does not run sm_90a code; else its work space, its kernels'
// shared memory allowed (once per device), the three kernels on ctx's stream.
template <typename E, int DK, int DV>
bool LaunchSm90Backward(const GPUContext& ctx, gla_sm90_bwd::BwdArgs a) {
  if (!gla_sm90_bwd::BwdShapeFits<DK, DV>(a)) return false;
  using K = gla_sm90_bwd::BwdKernel<E, E, DK, DV>;
  if (!DeviceRunsSm90a(reinterpret_cast<const void*>(&gla_sm90_bwd::BwdChunkKernel<K>))) return false;
  gla_sm90_bwd::ForEachBwdKernel<E, E, DK, DV>([](auto kernel, int bytes) { AllowSmem(kernel, bytes); });
  DenseTensor work;
  a.work = Sm90BwdWork<E>(ctx, a, &work);
  PADDLE_ENFORCE((gla_sm90_bwd::BwdFits<DK, DV>(a)),
                 errors::PreconditionNotMet("gla_grad: the sm_90a backward's work space is not 16-byte aligned"));
  PADDLE_ENFORCE_GPU_SUCCESS((gla_sm90_bwd::LaunchBwdOnly<E, E, DK, DV>(
      a, ctx.stream(), CachedDeviceAttribute<cudaDevAttrMultiProcessorCount>())));
  return true;
}

// The backward of 16-bit q, k, v, gk (gk_grad in their type) on sm_90a, with
// PADDLE_OPS_GLA_GPU=chunked and PADDLE_OPS_GLA_GPU_BWD=sm90: a pass for the states before each
// chunk, one for the state gradients after each chunk (and dh0), then a kernel per (head, chunk)
// for dq, dk, dv, gk_grad (sm90/chunk_bwd_sm90.cuh). Configurations as the harness's: Dk, Dv <= 64;
// Dv <= 128 (Dk <= 128); Dv <= 256. Returns false where it does not take the call (another dtype,
// path or device; Dk or Dv not a multiple of 8, Dk > 128, Dv > 256; rows not 16-byte aligned;
// T = 0; more than 2^31 - 1 blocks): the chunked kernels of chunk_gpu.cuh take it then.
template <typename T>
bool RunSm90Backward(const GPUContext& ctx, const GlaGradData<T>& d, float scale) {
  constexpr bool kBf16 = std::is_same<T, dtype::bfloat16>::value;
  constexpr bool kFp16 = std::is_same<T, dtype::float16>::value;
  if constexpr (!kBf16 && !kFp16) {
    return false;
  } else {
    using E = std::conditional_t<kBf16, __nv_bfloat16, __half>;
    const GlaShape& s = d.s;
    constexpr int64_t kIntMax = 0x7fffffff;
    if (GlaGpuPath() != GlaGpu::kChunked || !GlaGpuBwdSm90()) return false;
    if (SmemLimit() < DeviceSmemPerBlockOptin()) return false;  // PADDLE_OPS_GLA_GPU_SMEM_LIMIT: sm_90 only
    if (s.T < 1 || s.B > kIntMax || s.H > kIntMax || s.HeadRows() > kIntMax || s.Dk > 128 || s.Dv > 256 ||
        s.heads() > kIntMax / ((s.T + 31) / 32)) {
      return false;
    }
    gla_sm90_bwd::BwdArgs a;
    a.B = static_cast<int>(s.B), a.H = static_cast<int>(s.H), a.T = static_cast<int>(s.T);
    a.Dk = static_cast<int>(s.Dk), a.Dv = static_cast<int>(s.Dv);
    const int rows = static_cast<int>(s.HeadRows());  // as the forward's (RunSm90Forward)
    gla_sm90::RowStrides(s.head_first, rows, a.H, a.Dk, &a.qk_st, &a.qk_sh, &a.qk_sb);
    gla_sm90::RowStrides(s.head_first, rows, a.H, a.Dv, &a.v_st, &a.v_sh, &a.v_sb);
    a.q = d.q, a.k = d.k, a.v = d.v, a.g = d.g, a.dout = d.dout, a.h0 = d.h0, a.dfinal = d.dfinal;
    a.dq = d.dq, a.dk = d.dk, a.dv = d.dv, a.dg = d.dg, a.dh0 = d.dh0;
    a.scale = scale;
    // The outputs' rows as the inputs' (16-byte aligned where theirs are); the states' (float2
    // stores of dh0) likewise.
    for (const void* p : {static_cast<const void*>(d.dq), static_cast<const void*>(d.dk),
                          static_cast<const void*>(d.dv), static_cast<const void*>(d.dg),
                          static_cast<const void*>(d.h0), static_cast<const void*>(d.dfinal),
                          static_cast<const void*>(d.dh0)}) {
      if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) return false;
    }
    if (a.Dk <= 64 && a.Dv <= 64) return LaunchSm90Backward<E, 64, 64>(ctx, a);
    if (a.Dv <= 128) return LaunchSm90Backward<E, 128, 128>(ctx, a);
    return LaunchSm90Backward<E, 128, 256>(ctx, a);
  }
}
#endif  // PADDLE_OPS_GLA_SM90

}  // namespace gla
}  // namespace funcs

// ---- the GPU device step of the gla kernels (kernels/impl/gla_kernel_impl.h) -----------------
namespace gla {

template <typename From, typename To>
void Convert(const GPUContext& ctx, const From* src, To* dst, int64_t n) {
  funcs::ForEachIndex(ctx, n, [=] __device__(int64_t i) { dst[i] = CastValue<To>(src[i]); });
}

// The offsets on the host: read in place from host memory, else copied from the device (a wait
// on the context's stream, which the kernels writing cu_seqlens ran on).
inline std::vector<int64_t> ReadOffsets(const GPUContext& ctx, const DenseTensor& cu_seqlens) {
  if (cu_seqlens.place().GetType() != AllocationType::GPU) return OffsetsFromHost(cu_seqlens, cu_seqlens.raw_data());
  const size_t bytes = static_cast<size_t>(cu_seqlens.numel()) * SizeOf(cu_seqlens.dtype());
  std::vector<int64_t> host((bytes + 7) / 8);
  PADDLE_ENFORCE_GPU_SUCCESS(
      cudaMemcpyAsync(host.data(), cu_seqlens.raw_data(), bytes, cudaMemcpyDeviceToHost, ctx.stream()));
  PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamSynchronize(ctx.stream()));
  return OffsetsFromHost(cu_seqlens, host.data());
}

// The side streams of varlen calls: kSequenceStreams non-blocking streams per device, made at
// first use and kept for the life of the process.
constexpr int kSequenceStreams = 8;
inline cudaStream_t SequenceStream(int device, int i) {
  static std::mutex mu;
  static std::vector<std::vector<cudaStream_t>> streams;
  std::lock_guard<std::mutex> lock(mu);
  if (static_cast<int>(streams.size()) <= device) streams.resize(device + 1);
  std::vector<cudaStream_t>& mine = streams[device];
  while (static_cast<int>(mine.size()) <= i) {
    cudaStream_t s = nullptr;
    PADDLE_ENFORCE_GPU_SUCCESS(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    mine.push_back(s);
  }
  return mine[i];
}

// Later work on `to` waits for the work queued on `from` so far: an event recorded on `from`
// (released by the driver once it completes). Does not throw; returns the first error.
inline cudaError_t StreamWaitsFor(cudaStream_t to, cudaStream_t from) {
  cudaEvent_t ev = nullptr;
  cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (e != cudaSuccess) return e;
  e = cudaEventRecord(ev, from);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(to, ev, 0);
  cudaEventDestroy(ev);
  return e;
}

// The sequences of a varlen call, round-robin on up to kSequenceStreams side streams, each
// pushed in place of the context's stream while its sequence's kernels are queued (PushStream:
// their launches and work space go to it; the work space is freed on it). The side streams first
// wait for the context's stream (the inputs, the outputs' allocation), and the context's stream
// then waits for all of them, also when a sequence throws. One sequence runs on the context's
// stream as it is. The kernels of one sequence fill only a few SMs (one CTA per head and Dv tile
// walks the sequence's chunks in order), so sequences overlap on the GPU instead of queueing.
inline void ForEachSequence(const GPUContext& ctx, int64_t count, const std::function<void(int64_t)>& step) {
  if (count <= 1) {
    for (int64_t n = 0; n < count; ++n) step(n);
    return;
  }
  const int device = ctx.GetPlace().GetDeviceId();
  const cudaStream_t home = ctx.stream();
  const int used = static_cast<int>(std::min<int64_t>(count, kSequenceStreams));
  std::vector<cudaStream_t> side(used);
  for (int i = 0; i < used; ++i) {
    side[i] = SequenceStream(device, i);
    PADDLE_ENFORCE_GPU_SUCCESS(StreamWaitsFor(side[i], home));
  }
  struct Join {
    cudaStream_t home;
    const std::vector<cudaStream_t>& side;
    ~Join() {  // cannot throw: an error is left to the next check of the stream
      for (cudaStream_t s : side) {
        if (StreamWaitsFor(home, s) != cudaSuccess) (void)cudaGetLastError();
      }
    }
  } join{home, side};
  for (int64_t n = 0; n < count; ++n) {
    const gpu::ScopedStream on(device, reinterpret_cast<uintptr_t>(side[n % used]));
    step(n);
  }
}

// A varlen forward in one launch where the sm_90a forward takes it (RunSm90ForwardVarlen; the
// offsets are read and checked already); false: the sequences run one by one (ForEachSequence).
template <typename T>
bool ForwardPacked(const GPUContext& ctx, const GlaData<T>& d, const DenseTensor& cu_seqlens, int64_t count,
                   double scale) {
#ifdef PADDLE_OPS_GLA_SM90
  return funcs::gla::RunSm90ForwardVarlen<T>(ctx, d, cu_seqlens, count, static_cast<float>(scale));
#else
  (void)ctx, (void)d, (void)cu_seqlens, (void)count, (void)scale;
  return false;
#endif
}

// T = 1 (a decode step) takes GlaDecodeKernel. On sm_90a, 16-bit inputs take the fused kernel of
// sm90/chunk_fwd_sm90.cuh (RunSm90Forward).
// Elsewhere the chunked form (chunk_gpu.cuh): the states of every chunk, the intra-chunk scores,
// then every chunk's output at once. float64, shapes with an empty dim and devices whose shared
// memory per block the kernels do not fit take the recurrent form, one thread per head.
template <typename T>
void Forward(const GPUContext& ctx, const GlaData<T>& d, double scale) {
  if (funcs::gla::RunDecode<T>(ctx, d, scale)) return;  // T = 1: the decode step
  const float fscale = static_cast<float>(scale);
#ifdef PADDLE_OPS_GLA_SM90
  if (funcs::gla::RunSm90Forward<T>(ctx, d, fscale)) return;
#endif
  if constexpr (!std::is_same<T, double>::value) {  // funcs::gla::TakesChunked: the chunked kernels
    if (funcs::gla::TakesChunked<T, false>(d.s)) return funcs::gla::ChunkedForward<T>(ctx, d, fscale);
  }
  funcs::gla::LaunchRecurrentForward<T>(ctx, d, scale);
}

// With PADDLE_OPS_GLA_GPU_BWD=sm90, 16-bit inputs on sm_90a take the backward of
// sm90/chunk_bwd_sm90.cuh where it fits them (RunSm90Backward). Elsewhere the chunked backward: the
// forward states again, the state gradients (reverse), the intra-chunk scores, dv per chunk and Dv
// tile, dq/dk per chunk and Dk tile, then gk_grad summed within each chunk. float64, shapes with an
// empty dim and devices whose shared memory per block the kernels do not fit take the recurrent
// form.
template <typename T>
void Backward(const GPUContext& ctx, const GlaGradData<T>& d, double scale) {
  const float fscale = static_cast<float>(scale);
#ifdef PADDLE_OPS_GLA_SM90
  if (funcs::gla::RunSm90Backward<T>(ctx, d, fscale)) return;  // PADDLE_OPS_GLA_GPU_BWD=sm90
#endif
  if constexpr (!std::is_same<T, double>::value) {
    if (funcs::gla::TakesChunked<T, true>(d.s)) return funcs::gla::ChunkedBackward<T>(ctx, d, fscale);
  }
  funcs::gla::LaunchRecurrentBackward<T>(ctx, d, scale);
}

}  // namespace gla
}  // namespace phi
