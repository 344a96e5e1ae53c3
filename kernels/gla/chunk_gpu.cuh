// The chunked form of gla on the GPU (docs/spec.md §5, seed 002), forward and backward, with
// tensor-core products (wmma, 16-bit operands, float32 accumulation) for float16/bfloat16 and
// the same kernels on float32 operands with plain FMAs for float32.
//
// T is cut into chunks of C = 64 steps (the last one may be shorter: its missing rows read as
// zeros, with no decay); Dk and Dv into tiles of 64 (missing columns read as zeros). With Gc
// the in-chunk inclusive cumulative sum of gk (fwd_decay_cumsum of the seed; see Decay), Glast
// its last row, and h_n the state before chunk n:
//   h_{n+1} = exp(Glast)[:, None] * h_n + Khat^T V,  Khat = k * exp(Glast - Gc)   (state kernel)
//   o = Qhat h_n + A V,  Qhat = scale q * exp(Gc)                                (output kernel)
//   A[t, s] = scale sum_i q_t k_s exp(Gc_t - Gc_s), s <= t                       (intra kernel)
// Every exponent is <= 0 for gk <= 0: A's off-diagonal 16 x 16 blocks (secondary chunks) are
// products of q * exp(Gc_t - Gc_r) and k * exp(Gc_r - Gc_s) with r the first row of t's
// block (t >= r > s), the diagonal blocks are summed element by element with the mask
// applied before the exponential. States and their gradients stay float32 in memory. Every
// computed 16-bit operand (scaled q and k, scores, states) is split into a high and a low part
// (SplitGemm: two or three products), so that 16-bit results carry only their inputs' and
// output's rounding; the inputs themselves are exact operands.
//
// How the work is fed: 8 warps per block (16 for the dq/dk kernel, whose shared memory allows
// one block per SM; the others are held to 128 registers per thread so that two fit); tiles read
// as runs of 8 columns (16-byte loads where the tensor is aligned, a guarded scalar fallback
// otherwise) into registers (TileRuns, DecayRuns: 16-bit data kept packed), the next step's runs
// (next chunk, next Dk or Dv tile) loaded while the current products run; the in-chunk cumsum
// in 16-row segments (float64 sums, then the earlier segments' totals added); raw q and k tiles
// staged once in shared memory where a kernel reads them repeatedly; the hi/lo products of a
// split operand in one tensor-core pass per 16 x 16 tile of C; 1-D grids with the Dk/Dv tiles
// of a head or chunk fastest, so that the blocks that read the same q, k, v, gk rows run
// together and share them in L2.
//
// Backward: the reverse state kernel gives dH_{n+1}, the gradient of the state after chunk n
// (dH_n = exp(Glast)[:, None] * dH_{n+1} + Qhat^T dO, from final_state_grad; dH_0 is
// initial_state_grad); then per chunk
//   dv = Khat dH_{n+1} + A^T dO                                   (output kernel, dv mode)
//   dq = scale exp(Gc) * (dO h_n^T) + intra,  dk = exp(Glast - Gc) * (V dH_{n+1}^T) + intra
// with dA = scale dO V^T (masked) and the intra terms split into blocks as A is; and gk_grad
// summed within each chunk from the stored state before it and the gradient after it
// (GlaDgKernel), with gk_grad at t = 0 computed directly as sum_j dh0 * h0.
//
// Every load and store is guarded by the real T, Dk and Dv; offsets are 64-bit.
//
// Every step between two __syncthreads() is a block-strided loop, so the kernels also run as
// host code with one thread per block: unittests/cpp/test_gla_chunk.cc compiles this header
// without nvcc (wmma is then left out, and the 16-bit operands are float32 values rounded to
// their type) and checks the kernels' indexing and algebra against the recurrent form on
// awkward shapes.
#pragma once

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#define GLA_DYNAMIC_SMEM(name) extern __shared__ __align__(128) unsigned char name[]
#else
#define GLA_DYNAMIC_SMEM(name) unsigned char* name = HostSmem()
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/gla/recurrent.h"
#include "paddle_ops/common/bfloat16.h"
#include "paddle_ops/common/float16.h"

namespace phi {
namespace funcs {
namespace gla {

constexpr int kChunk = 64;    // steps per chunk, and the Dk/Dv tile
constexpr int kSub = 16;      // secondary chunk (the wmma tile)
// Threads per block of the state, intra and output kernels, whose shared memory allows two blocks
// per SM: kMinBlocks in their __launch_bounds__ holds them to 128 registers per thread so that
// two fit. The dq/dk kernel's shared memory allows one block per SM: it runs 16 warps.
constexpr int kThreads = 256;
constexpr int kMinBlocks = 2;
constexpr int kDqkThreads = 512;
constexpr int kLdF = kChunk + 4;  // row stride of float32 smem tiles
constexpr int kLdM = kChunk + 8;  // row stride of operand smem tiles
constexpr int kTileF = kChunk * kLdF;
constexpr int kTileM = kChunk * kLdM;

// The in-chunk cumulative decays are summed and kept in float64 (in shared memory only): a
// chunk's sum reaches thousands under strong decays (gk of -40 per step), where float32 would
// resolve differences Gc_t - Gc_s only to ~1e-4; each exponent is rounded to float32 once,
// as the difference it is, before the exponential.
using Decay = double;
__device__ __forceinline__ float ExpOf(Decay x) { return expf(static_cast<float>(x)); }
// Gates below kGateFloor enter the cumulative sums as kGateFloor (a NaN stays NaN), as on the
// CPU (kGlaCpuGateFloor, chunk_cpu.h): exact, since every decay across such a gate is then
// exp(<= -1e4 + the chunk's other gates) = 0 in float32, as the true one; and it keeps -inf
// out of the sums (no -inf - -inf = NaN) and the differences of the float64 sums exact for the
// small gates beside a huge one (-1e30 would absorb them).
constexpr float kGateFloor = -1e4f;
__device__ __forceinline__ float RaiseToGateFloor(float g) { return g < kGateFloor ? kGateFloor : g; }

// The operand type of the products: the 16-bit CUDA type for tensor cores, float otherwise.
template <typename T>
struct Operand {
  using type = float;
  static constexpr bool kTensorCore = false;
};
__device__ __forceinline__ void ToOperand(float x, float* out) { *out = x; }
__device__ __forceinline__ float FromOperand(float x) { return x; }
#ifdef __CUDACC__
template <>
struct Operand<dtype::float16> {
  using type = __half;
  static constexpr bool kTensorCore = true;
};
template <>
struct Operand<dtype::bfloat16> {
  using type = __nv_bfloat16;
  static constexpr bool kTensorCore = true;
};

__device__ __forceinline__ void ToOperand(float x, __half* out) { *out = __float2half_rn(x); }
__device__ __forceinline__ void ToOperand(float x, __nv_bfloat16* out) { *out = __float2bfloat16_rn(x); }
__device__ __forceinline__ float FromOperand(__half x) { return __half2float(x); }
__device__ __forceinline__ float FromOperand(__nv_bfloat16 x) { return __bfloat162float(x); }
#else
// Host emulation of the 16-bit operands: float32 storage rounded to the type, so the host run
// of the kernels reproduces their roundings (only the order of the float32 accumulation differs
// from the tensor cores').
template <typename T>
struct RoundedOperand {
  float v;
};
template <>
struct Operand<dtype::float16> {
  using type = RoundedOperand<dtype::float16>;
  static constexpr bool kTensorCore = true;
};
template <>
struct Operand<dtype::bfloat16> {
  using type = RoundedOperand<dtype::bfloat16>;
  static constexpr bool kTensorCore = true;
};
template <typename T>
inline void ToOperand(float x, RoundedOperand<T>* out) {
  out->v = static_cast<float>(T(x));
}
template <typename T>
inline float FromOperand(RoundedOperand<T> x) {
  return x.v;
}
#endif

#ifdef __CUDACC__
// C[M, N] += op(Ahi)op(Bhi) (+ op(Alo)op(Bhi) with kLoA, + op(Ahi)op(Blo) with kLoB) on the tensor
// cores, 16 x 16 tiles of C spread over the warps, every product of a tile in one pass (C loaded
// and stored once). Operands as in BlockGemm.
template <bool kTransA, bool kTransB, bool kLoA, bool kLoB, typename MT>
__device__ void WmmaTiles(int M, int N, int K, const MT* Ahi, const MT* Alo, int lda, const MT* Bhi, const MT* Blo,
                          int ldb, float* C, int ldc) {
  namespace wmma = nvcuda::wmma;
  using LayoutA = typename std::conditional<kTransA, wmma::col_major, wmma::row_major>::type;
  using LayoutB = typename std::conditional<kTransB, wmma::col_major, wmma::row_major>::type;
  const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int tiles_n = N / kSub, tiles = (M / kSub) * tiles_n;
  for (int tile = warp; tile < tiles; tile += warps) {
    const int tm = tile / tiles_n, tn = tile - tm * tiles_n;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    float* cp = C + tm * kSub * ldc + tn * kSub;
    wmma::load_matrix_sync(c, cp, ldc, wmma::mem_row_major);
    for (int k0 = 0; k0 < K; k0 += kSub) {
      const int a_off = kTransA ? k0 * lda + tm * kSub : tm * kSub * lda + k0;
      const int b_off = kTransB ? tn * kSub * ldb + k0 : k0 * ldb + tn * kSub;
      wmma::fragment<wmma::matrix_a, 16, 16, 16, MT, LayoutA> a;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, MT, LayoutB> b;
      wmma::load_matrix_sync(a, Ahi + a_off, lda);
      wmma::load_matrix_sync(b, Bhi + b_off, ldb);
      wmma::mma_sync(c, a, b, c);
      if constexpr (kLoA) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, MT, LayoutA> alo;
        wmma::load_matrix_sync(alo, Alo + a_off, lda);
        wmma::mma_sync(c, alo, b, c);
      }
      if constexpr (kLoB) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, MT, LayoutB> blo;
        wmma::load_matrix_sync(blo, Blo + b_off, ldb);
        wmma::mma_sync(c, a, blo, c);
      }
    }
    wmma::store_matrix_sync(cp, c, ldc, wmma::mem_row_major);
  }
}
#endif

// C[M, N] (float32, row-major, ldc) += op(A)[M, K] op(B)[K, N], all in shared memory; op(A) is
// A stored [M][K] (lda) or, kTransA, A^T of a [K][M] array; likewise B. M, N, K are multiples
// of 16. Every thread of the block calls it; the caller synchronizes around it.
template <bool kTransA, bool kTransB, typename MT>
__device__ void BlockGemm(int M, int N, int K, const MT* A, int lda, const MT* B, int ldb, float* C,
                          int ldc) {
#ifdef __CUDACC__
  constexpr bool kScalar = std::is_same<MT, float>::value;
#else
  constexpr bool kScalar = true;  // the host emulation
#endif
  if constexpr (kScalar) {
    for (int e = threadIdx.x; e < M * N; e += blockDim.x) {
      const int m = e / N, n = e - (e / N) * N;
      float sum = 0.f;
      for (int kk = 0; kk < K; ++kk) {
        const float a = FromOperand(kTransA ? A[kk * lda + m] : A[m * lda + kk]);
        const float b = FromOperand(kTransB ? B[n * ldb + kk] : B[kk * ldb + n]);
        sum = fmaf(a, b, sum);
      }
      C[m * ldc + n] += sum;
    }
  } else {
#ifdef __CUDACC__
    WmmaTiles<kTransA, kTransB, false, false>(M, N, K, A, A, lda, B, B, ldb, C, ldc);
#endif
  }
}

// A 64 x 64 operand tile: hi[r][c] = value(r, c) rounded to the operand type and, when lo is
// not null, lo = the rest (value - hi, rounded): hi + lo carries about 16 bits of the value.
template <typename MT, typename F>
__device__ void FillTile(MT* hi, MT* lo, F value) {
#pragma unroll 4
  for (int e = threadIdx.x; e < kChunk * kChunk; e += blockDim.x) {
    const int r = e >> 6, c = e & 63;
    const float x = value(r, c);
    ToOperand(x, hi + r * kLdM + c);
    if (lo) ToOperand(x - FromOperand(hi[r * kLdM + c]), lo + r * kLdM + c);
  }
}

// C += (Ahi + Alo)(Bhi + Blo) without the lo * lo term; a null lo is a zero one. The 16-bit
// kernels split every computed operand (scaled q and k, scores, states), so that only the
// inputs' own rounding and the float32 accumulation remain; inputs are exact as they are.
// On the tensor cores the two or three products of each 16 x 16 tile of C run in one pass (C
// loaded and stored once, the hi and lo fragments of a k step loaded together); float32 operands
// (and the host emulation) run BlockGemm once per product.
template <bool kTransA, bool kTransB, typename MT>
__device__ void SplitGemm(int M, int N, int K, const MT* Ahi, const MT* Alo, int lda, const MT* Bhi,
                          const MT* Blo, int ldb, float* C, int ldc) {
#ifdef __CUDACC__
  if constexpr (!std::is_same<MT, float>::value) {
    if (Alo && Blo) {
      WmmaTiles<kTransA, kTransB, true, true>(M, N, K, Ahi, Alo, lda, Bhi, Blo, ldb, C, ldc);
    } else if (Alo) {
      WmmaTiles<kTransA, kTransB, true, false>(M, N, K, Ahi, Alo, lda, Bhi, Blo, ldb, C, ldc);
    } else if (Blo) {
      WmmaTiles<kTransA, kTransB, false, true>(M, N, K, Ahi, Alo, lda, Bhi, Blo, ldb, C, ldc);
    } else {
      WmmaTiles<kTransA, kTransB, false, false>(M, N, K, Ahi, Alo, lda, Bhi, Blo, ldb, C, ldc);
    }
    return;
  }
#endif
  BlockGemm<kTransA, kTransB>(M, N, K, Ahi, lda, Bhi, ldb, C, ldc);
  if (Alo) BlockGemm<kTransA, kTransB>(M, N, K, Alo, lda, Bhi, ldb, C, ldc);
  if (Blo) BlockGemm<kTransA, kTransB>(M, N, K, Ahi, lda, Blo, ldb, C, ldc);
}

// How many operand tiles a kernel keeps: its own, plus the lo parts of the split ones (16-bit).
template <typename T>
constexpr int OperandTiles(int tiles, int lo_tiles) {
  return tiles + (Operand<T>::kTensorCore ? lo_tiles : 0);
}

// The lo buffer of a split operand: p for the 16-bit types, null for float32 (no split).
template <typename T, typename MT>
__device__ __forceinline__ MT* LoPart(MT* p) {
  return Operand<T>::kTensorCore ? p : nullptr;
}

__device__ inline void ZeroF(float* p, int n) {
  for (int e = threadIdx.x; e < n; e += blockDim.x) p[e] = 0.f;
}

// Where one block works: head bh, chunk n (rows t0 .. t0 + L - 1).
struct ChunkPos {
  int64_t bh, n, t0;
  int L;
};

__device__ __forceinline__ ChunkPos MakeChunkPos(const GlaShape& s, int64_t bh, int64_t n) {
  ChunkPos p;
  p.bh = bh;
  p.n = n;
  p.t0 = n * kChunk;
  const int64_t left = s.T - p.t0;
  p.L = static_cast<int>(left < kChunk ? left : kChunk);
  return p;
}

// x[t0 + r, col0 + c] of a [.., T, D] tensor as float (0 outside).
template <typename T>
__device__ __forceinline__ float At(const T* x, const GlaShape& s, const ChunkPos& p, int r, int64_t col0,
                                    int c, int64_t D) {
  const int64_t col = col0 + c;
  if (r >= p.L || col >= D) return 0.f;
  return static_cast<float>(x[s.Row(p.bh, p.t0 + r, D) + col]);
}

__device__ __forceinline__ int64_t NumChunks(int64_t T) { return (T + kChunk - 1) / kChunk; }
__device__ __forceinline__ int64_t NumTiles(int64_t D) { return (D + kChunk - 1) / kChunk; }

// The chunk of a block whose blockIdx.x is bh * NT + n.
__device__ __forceinline__ ChunkPos BlockChunk(const GlaShape& s, int64_t NT) {
  const int64_t bh = blockIdx.x / NT;
  return MakeChunkPos(s, bh, blockIdx.x - bh * NT);
}

// Chunk number `chunk` (bh * NT + n) of the grid; 32-bit division (grids are < 2^31 blocks).
__device__ __forceinline__ ChunkPos ChunkOf(const GlaShape& s, int64_t NT, int64_t chunk) {
  const unsigned bh = static_cast<unsigned>(chunk) / static_cast<unsigned>(NT);
  return MakeChunkPos(s, bh, chunk - static_cast<int64_t>(bh) * NT);
}

// Where a block of a kernel over chunks x tiles works: the grid is 1-D, B*H*NT*tiles blocks with
// the tile fastest (blockIdx.x = chunk * tiles + tile), so that the blocks of one chunk run at the
// same time and share its reads in L2. chunk is bh * NT + n.
struct TiledBlock {
  int64_t chunk, tile;
};
__device__ __forceinline__ TiledBlock BlockTile(int64_t tiles) {
  const unsigned chunk = blockIdx.x / static_cast<unsigned>(tiles);  // grids are < 2^31 blocks
  return TiledBlock{chunk, blockIdx.x - chunk * static_cast<unsigned>(tiles)};
}
// The same for block first + blockIdx.x of such a grid, launched in parts (GlaDqkKernel's
// global-tiles form).
template <typename MT>
__device__ __forceinline__ TiledBlock BlockTile(int64_t tiles, unsigned first, MT*) {
  const unsigned lin = first + blockIdx.x;
  const unsigned chunk = lin / static_cast<unsigned>(tiles);
  return TiledBlock{chunk, lin - chunk * static_cast<unsigned>(tiles)};
}

// The columns of a 64-wide tile starting at col0 that exist in a dim of D.
__device__ __forceinline__ int TileSize(int64_t D, int64_t col0) {
  return static_cast<int>(D - col0 < kChunk ? D - col0 : kChunk);
}

// ---- loads, stores and the in-chunk cumsum --------------------------------------------------
// Whether runs of 8 elements of a [.., D] tensor starting at a multiple of 8 can be read or
// written as 16-byte vectors: the base aligned to 16 bytes, every row start too.
template <typename E>
__device__ __forceinline__ bool VecOk(const E* p, int64_t D) {
  return (reinterpret_cast<uintptr_t>(p) & 15u) == 0 && (D * static_cast<int64_t>(sizeof(E))) % 16 == 0;
}

// The bits of one element (16-bit types: their 16 bits; float: its 32) and the element's value
// from them.
template <typename E>
__device__ __forceinline__ uint32_t BitsOf(E x) {
  return x.x;
}
__device__ __forceinline__ uint32_t BitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}
template <typename E>
__device__ __forceinline__ float ValueOfBits(uint32_t bits) {
  if constexpr (std::is_same<E, float>::value) {
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  } else {
    return E::BitsToFloat(static_cast<uint16_t>(bits));
  }
}

// The bits of a run of 8 elements, packed: 4 words for the 16-bit types (element 2j in the low
// half of word j), 8 for float.
template <typename E>
struct RunWords {
  static constexpr int kWords = static_cast<int>(sizeof(E)) * 8 / 4;
  static_assert(sizeof(E) == 2 || sizeof(E) == 4, "16-bit types or float");
  __device__ __forceinline__ static float Value(const uint32_t* w, int i) {
    if constexpr (sizeof(E) == 2) {
      return ValueOfBits<E>((w[i >> 1] >> (16 * (i & 1))) & 0xffffu);
    } else {
      return ValueOfBits<E>(w[i]);
    }
  }
};

// out = the packed bits of src[0..7], elements i >= n zero (n may be <= 0); with vec and n >= 8
// one (16-bit) or two (float) 16-byte loads.
template <typename E>
__device__ __forceinline__ void LoadRunBits(const E* src, int64_t n, bool vec, uint32_t* out) {
#ifdef __CUDACC__
  if (vec && n >= 8) {
#pragma unroll
    for (int i = 0; i < RunWords<E>::kWords / 4; ++i) {
      const uint4 u = reinterpret_cast<const uint4*>(src)[i];
      out[4 * i] = u.x, out[4 * i + 1] = u.y, out[4 * i + 2] = u.z, out[4 * i + 3] = u.w;
    }
    return;
  }
#else
  (void)vec;
#endif
  if constexpr (sizeof(E) == 2) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const uint32_t lo = 2 * j < n ? BitsOf(src[2 * j]) : 0u, hi = 2 * j + 1 < n ? BitsOf(src[2 * j + 1]) : 0u;
      out[j] = lo | (hi << 16);
    }
  } else {
#pragma unroll
    for (int i = 0; i < 8; ++i) out[i] = i < n ? BitsOf(src[i]) : 0u;
  }
}

// dst[i] = x[i] as E for i < n; with vec and n >= 8 as 16-byte stores.
template <typename E>
__device__ __forceinline__ void StoreRun8(E* dst, int64_t n, bool vec, const float* x) {
#ifdef __CUDACC__
  if (vec && n >= 8) {
    if constexpr (sizeof(E) == 2) {
      uint32_t w[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        w[j] = static_cast<uint32_t>(E(x[2 * j]).x) | (static_cast<uint32_t>(E(x[2 * j + 1]).x) << 16);
      }
      *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    } else {
      static_assert(std::is_same<E, float>::value, "16-bit types or float");
      reinterpret_cast<float4*>(dst)[0] = make_float4(x[0], x[1], x[2], x[3]);
      reinterpret_cast<float4*>(dst)[1] = make_float4(x[4], x[5], x[6], x[7]);
    }
    return;
  }
#else
  (void)vec;
#endif
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    if (i < n) dst[i] = static_cast<E>(x[i]);
  }
}

// Columns col0 + c8 .. col0 + c8 + 7 of row r of chunk p of a [.., T, D] tensor (0 outside).
template <typename T>
__device__ __forceinline__ void ChunkRunBits(const T* x, const GlaShape& s, const ChunkPos& p, int r, int64_t col0,
                                             int c8, int64_t D, bool vec, uint32_t* out) {
  const int64_t col = col0 + c8;
  LoadRunBits(x + (r < p.L ? s.Row(p.bh, p.t0 + r, D) + col : 0), r < p.L ? D - col : 0, vec, out);
}

#ifdef __CUDACC__
// Two floats rounded to a 16-bit operand pair (the rounded values back in r0, r1), as bits.
__device__ __forceinline__ uint32_t PackPair(float a, float b, float* r0, float* r1, __half*) {
  const __half2 h = __floats2half2_rn(a, b);
  *r0 = __low2float(h), *r1 = __high2float(h);
  return static_cast<uint32_t>(__half_as_ushort(__low2half(h))) |
         (static_cast<uint32_t>(__half_as_ushort(__high2half(h))) << 16);
}
__device__ __forceinline__ uint32_t PackPair(float a, float b, float* r0, float* r1, __nv_bfloat16*) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  *r0 = __low2float(h), *r1 = __high2float(h);
  return static_cast<uint32_t>(__bfloat16_as_ushort(__low2bfloat16(h))) |
         (static_cast<uint32_t>(__bfloat16_as_ushort(__high2bfloat16(h))) << 16);
}
#endif

// Eight operands of x[0..7] into hi[0..7] and, when lo is not null, the rest into lo[0..7]
// (as FillTile does element by element); hi and lo are 16-byte aligned (16-byte stores).
template <typename MT>
__device__ __forceinline__ void PutSplit8(MT* hi, MT* lo, const float* x) {
#ifdef __CUDACC__
  if constexpr (std::is_same<MT, float>::value) {
    reinterpret_cast<float4*>(hi)[0] = make_float4(x[0], x[1], x[2], x[3]);
    reinterpret_cast<float4*>(hi)[1] = make_float4(x[4], x[5], x[6], x[7]);
    if (lo) {
      reinterpret_cast<float4*>(lo)[0] = make_float4(0.f, 0.f, 0.f, 0.f);
      reinterpret_cast<float4*>(lo)[1] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  } else {
    uint32_t h[4];
    float rounded[8];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      h[j] = PackPair(x[2 * j], x[2 * j + 1], &rounded[2 * j], &rounded[2 * j + 1], static_cast<MT*>(nullptr));
    }
    *reinterpret_cast<uint4*>(hi) = make_uint4(h[0], h[1], h[2], h[3]);
    if (lo) {
      uint32_t l[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        float r0, r1;
        l[j] = PackPair(x[2 * j] - rounded[2 * j], x[2 * j + 1] - rounded[2 * j + 1], &r0, &r1,
                        static_cast<MT*>(nullptr));
      }
      *reinterpret_cast<uint4*>(lo) = make_uint4(l[0], l[1], l[2], l[3]);
    }
  }
#else
  for (int i = 0; i < 8; ++i) {
    ToOperand(x[i], hi + i);
    if (lo) ToOperand(x[i] - FromOperand(hi[i]), lo + i);
  }
#endif
}

// The identity map of TileRuns::Put (a tile of raw values).
struct RawValue {
  __device__ __forceinline__ float operator()(int, int, float x) const { return x; }
};

// Columns c8 .. c8 + 7 of row r of a float32 [.., rows, cols] block (row stride ld; 0 outside).
__device__ __forceinline__ void BlockRunBits(const float* src, int64_t ld, int rows, int cols, int r, int c8,
                                             bool vec, uint32_t* out) {
  LoadRunBits(src + (r < rows ? r * ld + c8 : 0), r < rows ? cols - c8 : 0, vec, out);
}

// Tile loads: the raw values of a 64 x 64 tile, in runs of 8 columns (16-byte loads where
// aligned), held in registers from their loads (Fetch) until they are written to shared memory
// (Put), so that the loads of the next step are in flight during this step's products. For
// blocks of kThr threads (a multiple of 32 dividing 512) on the device, each thread holding
// 512 / kThr runs; the host emulation's one thread holds them all.
template <int kThr>
constexpr int ItemsPerThread(int items) {
#ifdef __CUDACC__
  return items > kThr ? items / kThr : 1;
#else
  return items;
#endif
}

template <typename E, int kThr = kThreads>
struct TileRuns {
  static constexpr int kRuns = kChunk * kChunk / 8;
  static constexpr int kRunsPerThread = ItemsPerThread<kThr>(kRuns);
  uint32_t v[kRunsPerThread][RunWords<E>::kWords];  // raw bits (half the registers for 16 bits)

  // load(r, c8, out) gives the packed bits of row r, columns c8 .. c8 + 7 (LoadRunBits).
  template <typename Load>
  __device__ __forceinline__ void Fetch(Load load) {
#pragma unroll
    for (int u = 0; u < kRunsPerThread; ++u) {
      const int e = threadIdx.x + u * blockDim.x;
      if (e < kRuns) load(e >> 3, (e & 7) * 8, v[u]);
    }
  }
  // hi[r][c] = value(r, c, raw value) rounded to the operand type and, when lo is not null,
  // lo = the rest (as FillTile).
  template <typename MT, typename F>
  __device__ __forceinline__ void Put(MT* hi, MT* lo, F value) const {
#pragma unroll
    for (int u = 0; u < kRunsPerThread; ++u) {
      const int e = threadIdx.x + u * blockDim.x;
      if (e >= kRuns) continue;
      const int r = e >> 3, c8 = (e & 7) * 8;
      float w[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) w[i] = value(r, c8 + i, RunWords<E>::Value(v[u], i));
      PutSplit8(hi + r * kLdM + c8, lo ? lo + r * kLdM + c8 : nullptr, w);
    }
  }
};

// Gc[r][c] = sum_{t <= r} max(gk[t0 + t, col0 + c], kGateFloor), rows past L repeating the last
// (no decay), in two parts so that its loads can be issued early: Fetch reads each column in four
// 16-row segments straight from global memory (16 independent loads per thread, into
// registers); Cumsum sums each segment in float64, then adds the totals of the earlier segments
// (kept in the padding columns of the tile, Gc[c * kLdF + 64 + segment]). Cumsum contains a
// barrier: every thread calls it. Same thread counts as TileRuns.
template <typename T, int kThr = kThreads>
struct DecayRuns {
  static constexpr int kSegs = kChunk / kSub;
  static constexpr int kSegsPerThread = ItemsPerThread<kThr>(kSegs * kChunk);
  static constexpr int kWords = static_cast<int>(sizeof(T)) * kSub / 4;
  static_assert(kLdF - kChunk >= kSegs, "the segment totals live in the padding");
  uint32_t v[kSegsPerThread][kWords];  // the raw bits of a segment, packed as in RunWords

  __device__ __forceinline__ void Fetch(const T* g, const GlaShape& s, const ChunkPos& p, int64_t col0) {
    const int64_t step = s.head_first ? s.Dk : s.H * s.Dk;  // from row t to row t + 1
#pragma unroll
    for (int u = 0; u < kSegsPerThread; ++u) {
      const int e = threadIdx.x + u * blockDim.x;
      if (e >= kSegs * kChunk) continue;
      const int seg = e >> 6, c = e & 63, r0 = seg * kSub;
      const int64_t col = col0 + c;
      const bool any = col < s.Dk && r0 < p.L;
      const T* src = g + (any ? s.Row(p.bh, p.t0 + r0, s.Dk) + col : 0);
      uint32_t bits[kSub];
#pragma unroll
      for (int r = 0; r < kSub; ++r) bits[r] = any && r0 + r < p.L ? BitsOf(src[r * step]) : 0u;
      if constexpr (sizeof(T) == 2) {
#pragma unroll
        for (int j = 0; j < kWords; ++j) v[u][j] = bits[2 * j] | (bits[2 * j + 1] << 16);
      } else {
#pragma unroll
        for (int j = 0; j < kWords; ++j) v[u][j] = bits[j];
      }
    }
  }
  __device__ __forceinline__ void Cumsum(Decay* Gc) const {
#pragma unroll
    for (int u = 0; u < kSegsPerThread; ++u) {
      const int e = threadIdx.x + u * blockDim.x;
      if (e >= kSegs * kChunk) continue;
      const int seg = e >> 6, c = e & 63, r0 = seg * kSub;
      Decay acc = 0;
#pragma unroll
      for (int r = 0; r < kSub; ++r) {
        acc += RaiseToGateFloor(RunWords<T>::Value(v[u] + r / 8 * RunWords<T>::kWords, r % 8));
        Gc[(r0 + r) * kLdF + c] = acc;
      }
      Gc[c * kLdF + kChunk + seg] = acc;
    }
    __syncthreads();
    for (int e = threadIdx.x + kSub * kChunk; e < kChunk * kChunk; e += blockDim.x) {
      const int r = e >> 6, c = e & 63, seg = r / kSub;
      Decay offset = 0;
      for (int j = 0; j < seg; ++j) offset += Gc[c * kLdF + kChunk + j];
      Gc[r * kLdF + c] += offset;
    }
  }
};

// x[t0 + r, c0 + c] of a [.., T, Dk] tensor from its tile's raw copy in shared memory (row stride
// kLdM, 0 outside the tensor; exact as operands).
template <typename MT>
__device__ __forceinline__ float RawAt(const MT* raw, int r, int c) {
  return FromOperand(raw[r * kLdM + c]);
}

// ---- the state recurrence over chunks ------------------------------------------------------
// Forward (kReverse = false): store h_n at store[bh, n], then h_{n+1} = exp(Glast) h_n + Khat^T V.
// Reverse: store dH_{n+1} at store[bh, n], then dH_n = exp(Glast) dH_{n+1} + Qhat^T dO.
// x is k (forward) or q (reverse); y is v or o_grad. init (may be null) is h0 or final_state_grad;
// last (may be null) receives the state after the last step (final_state, or dh0).
// Grid: B*H*(Dk tiles)*(Dv tiles) blocks, 1-D, the tiles of a head fastest (they share the
// head's reads in L2).
template <typename T, bool kReverse>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    GlaStateKernel(GlaShape s, const T* x, const T* y, const T* g, const float* init, float scale, float* store,
        float* last) {
  using MT = typename Operand<T>::type;
  GLA_DYNAMIC_SMEM(smem_raw);
  Decay* Gc = reinterpret_cast<Decay*>(smem_raw);
  float* S = reinterpret_cast<float*>(Gc + kTileF);
  MT* X = reinterpret_cast<MT*>(S + kTileF);
  MT* Y = X + kTileM;
  MT* Xlo = LoPart<T>(Y + kTileM);
  const int64_t KT = NumTiles(s.Dk), VT = NumTiles(s.Dv);
  const unsigned tiles = static_cast<unsigned>(KT * VT), lin = blockIdx.x;  // 32-bit: grids are < 2^31 blocks
  const unsigned bh32 = lin / tiles, tile = lin - bh32 * tiles;
  const int64_t bh = bh32;
  const int64_t ti = tile / static_cast<unsigned>(VT);
  const int64_t tj = tile - static_cast<unsigned>(ti) * static_cast<unsigned>(VT);
  const int64_t i0 = ti * kChunk, j0 = tj * kChunk;
  const int rows = TileSize(s.Dk, i0);
  const int cols = TileSize(s.Dv, j0);
  const int64_t state0 = bh * s.Dk * s.Dv + i0 * s.Dv + j0;
  for (int e = threadIdx.x; e < kChunk * kChunk; e += blockDim.x) {
    const int i = e >> 6, j = e & 63;
    S[i * kLdF + j] = (init && i < rows && j < cols) ? init[state0 + i * s.Dv + j] : 0.f;
  }
  const int64_t NT = NumChunks(s.T);
  // Stores h_n (dH_{n+1}) of chunk n and decays S by the chunk's last cumulative decay.
  auto store_and_decay = [&](int64_t n) {
    float* out = store + ((bh * NT + n) * s.Dk + i0) * s.Dv + j0;
    for (int e = threadIdx.x; e < kChunk * kChunk; e += blockDim.x) {
      const int i = e >> 6, j = e & 63;
      const float h = S[i * kLdF + j];
      if (i < rows && j < cols) out[i * s.Dv + j] = h;
      S[i * kLdF + j] = h * ExpOf(Gc[(kChunk - 1) * kLdF + i]);
    }
  };
  // The raw x, y and gk of the next chunk are loaded while this chunk's product runs.
  const bool vec_x = VecOk(x, s.Dk), vec_y = VecOk(y, s.Dv);
  TileRuns<T> xr, yr;
  DecayRuns<T> gr;
  auto fetch = [&](int64_t step) {
    const ChunkPos p = MakeChunkPos(s, bh, kReverse ? NT - 1 - step : step);
    gr.Fetch(g, s, p, i0);
    yr.Fetch([&](int r, int c8, uint32_t* v) { ChunkRunBits(y, s, p, r, j0, c8, s.Dv, vec_y, v); });
    xr.Fetch([&](int r, int c8, uint32_t* v) { ChunkRunBits(x, s, p, r, i0, c8, s.Dk, vec_x, v); });
  };
  fetch(0);
  for (int64_t step = 0; step < NT; ++step) {
    const int64_t n = kReverse ? NT - 1 - step : step;
    __syncthreads();  // the previous product is done with X, Y and S
    yr.Put(Y, static_cast<MT*>(nullptr), RawValue());
    gr.Cumsum(Gc);
    __syncthreads();
    store_and_decay(n);
    xr.Put(X, Xlo, [&](int r, int c, float xv) {
      return kReverse ? scale * xv * ExpOf(Gc[r * kLdF + c])
                      : xv * ExpOf(Gc[(kChunk - 1) * kLdF + c] - Gc[r * kLdF + c]);
    });
    __syncthreads();
    if (step + 1 < NT) fetch(step + 1);
    SplitGemm<true, false>(kChunk, kChunk, kChunk, X, Xlo, kLdM, Y, static_cast<MT*>(nullptr), kLdM, S, kLdF);
  }
  __syncthreads();
  if (last) {
    for (int e = threadIdx.x; e < kChunk * kChunk; e += blockDim.x) {
      const int i = e >> 6, j = e & 63;
      if (i < rows && j < cols) last[state0 + i * s.Dv + j] = S[i * kLdF + j];
    }
  }
}

template <typename T>
constexpr size_t StateSmem() {
  return kTileF * (sizeof(Decay) + sizeof(float)) +
         OperandTiles<T>(2, 1) * kTileM * sizeof(typename Operand<T>::type);
}

// ---- the intra-chunk scores A (float32 [B*H, NT, 64, 64]) ----------------------------------
// Grid: (B*H*NT). kStaged: the raw q and k tiles are kept in shared memory (Qr, Kr; exact as
// operands); else, where the device's shared memory per block has no room for them (sm_86,
// sm_89), they are read from global memory at each use: the same values, so the same results.
template <typename T, bool kStaged = true>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    GlaIntraKernel(GlaShape s, const T* q, const T* k, const T* g, float scale, float* A) {
  using MT = typename Operand<T>::type;
  GLA_DYNAMIC_SMEM(smem_raw);
  Decay* Gc = reinterpret_cast<Decay*>(smem_raw);
  float* Acc = reinterpret_cast<float*>(Gc + kTileF);
  MT* QS = reinterpret_cast<MT*>(Acc + kTileF);
  MT* KS = QS + kTileM;
  MT* QSlo = LoPart<T>(KS + kTileM);
  MT* KSlo = LoPart<T>(KS + 2 * kTileM);
  MT* Qr = QS + OperandTiles<T>(2, 2) * kTileM;  // kStaged only
  MT* Kr = Qr + kTileM;
  const int64_t NT = NumChunks(s.T);
  const ChunkPos p = BlockChunk(s, NT);
  const bool vec_q = VecOk(q, s.Dk), vec_k = VecOk(k, s.Dk);
  ZeroF(Acc, kTileF);
  for (int64_t c0 = 0; c0 < s.Dk; c0 += kChunk) {
    // q[t0 + r, c0 + c] and k[...] (0 outside).
    auto qat = [&](int r, int c) {
      if constexpr (kStaged) {
        return RawAt(Qr, r, c);
      } else {
        return At(q, s, p, r, c0, c, s.Dk);
      }
    };
    auto kat = [&](int r, int c) {
      if constexpr (kStaged) {
        return RawAt(Kr, r, c);
      } else {
        return At(k, s, p, r, c0, c, s.Dk);
      }
    };
    __syncthreads();
    if constexpr (kStaged) {
      // Every load of the Dk tile issued before any is used.
      TileRuns<T> qr, kr;
      DecayRuns<T> gr;
      gr.Fetch(g, s, p, c0);
      qr.Fetch([&](int r, int c8, uint32_t* v) { ChunkRunBits(q, s, p, r, c0, c8, s.Dk, vec_q, v); });
      kr.Fetch([&](int r, int c8, uint32_t* v) { ChunkRunBits(k, s, p, r, c0, c8, s.Dk, vec_k, v); });
      qr.Put(Qr, static_cast<MT*>(nullptr), RawValue());
      kr.Put(Kr, static_cast<MT*>(nullptr), RawValue());
      gr.Cumsum(Gc);
    } else {
      (void)vec_q, (void)vec_k;
      DecayRuns<T> gr;
      gr.Fetch(g, s, p, c0);
      gr.Cumsum(Gc);
    }
    __syncthreads();
    // q relative to the first row of its own 16-row block.
    FillTile(QS, QSlo, [&](int r, int c) {
      return qat(r, c) * ExpOf(Gc[r * kLdF + c] - Gc[(r & ~(kSub - 1)) * kLdF + c]);
    });
    for (int blk = 1; blk < kChunk / kSub; ++blk) {
      const int r0 = blk * kSub;
      // k of the earlier rows relative to the first row of block blk.
      FillTile(KS, KSlo, [&](int r, int c) {
        return r < r0 ? kat(r, c) * ExpOf(Gc[r0 * kLdF + c] - Gc[r * kLdF + c]) : 0.f;
      });
      __syncthreads();
      SplitGemm<false, true>(kSub, r0, kChunk, QS + r0 * kLdM, QSlo ? QSlo + r0 * kLdM : nullptr, kLdM, KS, KSlo,
                             kLdM, Acc + r0 * kLdF, kLdF);
      __syncthreads();
    }
    // The diagonal blocks, element by element (s <= t before the exponential).
    for (int e = threadIdx.x; e < kChunk * kSub; e += blockDim.x) {
      const int t = e / kSub, sc = (t & ~(kSub - 1)) + (e % kSub);
      if (sc > t || t >= p.L) continue;
      float sum = 0.f;
      for (int c = 0; c < kChunk && c0 + c < s.Dk; ++c) {
        sum += qat(t, c) * kat(sc, c) * ExpOf(Gc[t * kLdF + c] - Gc[sc * kLdF + c]);
      }
      Acc[t * kLdF + sc] += sum;
    }
  }
  __syncthreads();
  float* out = A + static_cast<int64_t>(blockIdx.x) * kChunk * kChunk;
  for (int e = threadIdx.x; e < kChunk * kChunk; e += blockDim.x) {
    const int t = e >> 6, sc = e & 63;
    out[e] = (sc <= t && t < p.L) ? scale * Acc[t * kLdF + sc] : 0.f;
  }
}

template <typename T, bool kStaged = true>
constexpr size_t IntraSmem() {
  return kTileF * (sizeof(Decay) + sizeof(float)) +
         (OperandTiles<T>(2, 2) + (kStaged ? 2 : 0)) * kTileM * sizeof(typename Operand<T>::type);
}

// ---- per chunk: o = Qhat h_n + A V (forward), or dv = Khat dH_{n+1} + A^T dO (kDv) ---------
// x is q (forward) or k; y is v or o_grad; store holds h_n or dH_{n+1}. Grid: B*H*NT*(Dv tiles)
// blocks (BlockTile).
template <typename T, bool kDv>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    GlaOutputKernel(GlaShape s, const T* x, const T* y, const T* g, const float* store, const float* A, float scale,
        T* out) {
  using MT = typename Operand<T>::type;
  GLA_DYNAMIC_SMEM(smem_raw);
  Decay* Gc = reinterpret_cast<Decay*>(smem_raw);
  float* O = reinterpret_cast<float*>(Gc + kTileF);
  MT* X = reinterpret_cast<MT*>(O + kTileF);
  MT* Hhi = X + kTileM;
  MT* Hlo = LoPart<T>(Hhi + kTileM);
  MT* Xlo = LoPart<T>(Hhi + 2 * kTileM);
  const int64_t NT = NumChunks(s.T);
  const TiledBlock b = BlockTile(NumTiles(s.Dv));
  const ChunkPos p = ChunkOf(s, NT, b.chunk);
  const int64_t bh = p.bh;
  const int64_t j0 = b.tile * kChunk;
  const int cols = TileSize(s.Dv, j0);
  const float* Ab = A + b.chunk * kChunk * kChunk;
  ZeroF(O, kTileF);
  // The raw x, state and gk of the next Dk tile (after the last one: A and y) are loaded
  // while this tile's product runs.
  const bool vec_x = VecOk(x, s.Dk), vec_y = VecOk(y, s.Dv), vec_h = VecOk(store, s.Dv),
             vec_a = VecOk(A, kChunk);
  TileRuns<T> xr, yr;
  TileRuns<float> hr, ar;
  DecayRuns<T> gr;
  auto fetch = [&](int64_t c0) {
    const float* hsrc = store + ((bh * NT + p.n) * s.Dk + c0) * s.Dv + j0;
    const int rows = TileSize(s.Dk, c0);
    gr.Fetch(g, s, p, c0);
    hr.Fetch([&](int r, int c8, uint32_t* v) { BlockRunBits(hsrc, s.Dv, rows, cols, r, c8, vec_h, v); });
    xr.Fetch([&](int r, int c8, uint32_t* v) { ChunkRunBits(x, s, p, r, c0, c8, s.Dk, vec_x, v); });
  };
  fetch(0);
  for (int64_t c0 = 0; c0 < s.Dk; c0 += kChunk) {
    __syncthreads();
    hr.Put(Hhi, Hlo, RawValue());
    gr.Cumsum(Gc);
    __syncthreads();
    xr.Put(X, Xlo, [&](int r, int c, float xv) {
      return kDv ? xv * ExpOf(Gc[(kChunk - 1) * kLdF + c] - Gc[r * kLdF + c]) : scale * xv * ExpOf(Gc[r * kLdF + c]);
    });
    __syncthreads();
    if (c0 + kChunk < s.Dk) {
      fetch(c0 + kChunk);
    } else {
      ar.Fetch([&](int r, int c8, uint32_t* v) { BlockRunBits(Ab, kChunk, kChunk, kChunk, r, c8, vec_a, v); });
      yr.Fetch([&](int r, int c8, uint32_t* v) { ChunkRunBits(y, s, p, r, j0, c8, s.Dv, vec_y, v); });
    }
    SplitGemm<false, false>(kChunk, kChunk, kChunk, X, Xlo, kLdM, Hhi, Hlo, kLdM, O, kLdF);
  }
  __syncthreads();
  ar.Put(X, Xlo, RawValue());
  yr.Put(Hhi, static_cast<MT*>(nullptr), RawValue());
  __syncthreads();
  SplitGemm<kDv, false>(kChunk, kChunk, kChunk, X, Xlo, kLdM, Hhi, static_cast<MT*>(nullptr), kLdM, O, kLdF);
  __syncthreads();
  const bool vec_o = VecOk(static_cast<const T*>(out), s.Dv);
  for (int e = threadIdx.x; e < kChunk * kChunk / 8; e += blockDim.x) {
    const int r = e >> 3, c8 = (e & 7) * 8;
    if (r < p.L) StoreRun8(out + s.Row(bh, p.t0 + r, s.Dv) + j0 + c8, cols - c8, vec_o, O + r * kLdF + c8);
  }
}

template <typename T>
constexpr size_t OutputSmem() {
  return kTileF * (sizeof(Decay) + sizeof(float)) +
         OperandTiles<T>(2, 2) * kTileM * sizeof(typename Operand<T>::type);
}

// The operand tiles of one block of the dq/dk kernel (elements of Operand<T>::type).
template <typename T>
constexpr size_t DqkTileElems() {
  return static_cast<size_t>(OperandTiles<T>(4, 2)) * kTileM;
}

// Where a block of the dq/dk kernel's global-tiles form (GlaDqkKernel<T, unsigned, MT*>) keeps its
// operand tiles: its slice of the scratch in global memory.
template <typename T, typename MT>
__device__ __forceinline__ MT* DqkTiles(MT*, unsigned, MT* scratch) {
  return scratch + static_cast<size_t>(blockIdx.x) * DqkTileElems<T>();
}

// ---- per chunk and Dk tile: dq and dk; for gk_grad, dk's part from the gradient after the chunk
// (dks, float32 [B*H, T, Dk]) and q dq - k times the rest of dk (qdk, the same shape), each
// without step t's own terms (they cancel) ---------------------------------------------------------
// Grid: B*H*NT*(Dk tiles) blocks (BlockTile). dO, V, h_n and dH_{n+1} of a Dv tile are loaded at
// once (one barrier, three products); the raw k and q tiles (Kr, Qr) are then kept in shared
// memory for the intra-chunk terms.
//
// Global (empty, or unsigned first and Operand<T>::type* scratch): where the operand tiles live.
// GlaDqkKernel<T> keeps them in shared memory after its float32 tiles; GlaDqkKernel<T, unsigned,
// MT*> (the global-tiles form), where the device's shared memory per block has no room for them
// (sm_86, sm_89: DqkStaged), in global memory: it runs blocks first .. first + gridDim.x - 1 of
// the grid, block first + i with its tiles at scratch + i * DqkTileElems<T>() (a part of the grid
// per launch, LaunchDqkGlobal in launch_gpu.cuh). The same values are written and read in the same order, so the results
// are the same; the block's barriers order its global accesses as they do the shared ones, and the
// tiles keep the offsets of the shared layout (the slices' size is a multiple of 256 bytes, so the
// wmma loads' 32-byte alignment holds).
template <typename T, typename... Global>
__global__ void __launch_bounds__(kDqkThreads) GlaDqkKernel(GlaShape s, const T* q, const T* k, const T* v,
                                                            const T* g, const T* dout, const float* hstore,
                                                            const float* dhstore, float scale, T* dq, T* dk,
                                                            float* qdk, float* dks, Global... global) {
  using MT = typename Operand<T>::type;
  GLA_DYNAMIC_SMEM(smem_raw);
  Decay* Gc = reinterpret_cast<Decay*>(smem_raw);
  float* dA = reinterpret_cast<float*>(Gc + kTileF);
  float* dQ = dA + kTileF;
  float* dK = dQ + kTileF;
  float* Tmp = dK + kTileF;  // [16][kLdF]
  // The operand tiles, OperandTiles<T>(4, 2) of them (the lo parts for the 16-bit types only):
  // dO, V, h_n (hi, lo) and dH_{n+1} (hi, lo) while the Dv tiles are summed; then the raw k and q
  // in the last two (Kr, Qr), and the intra-chunk operands dA (hi, lo) and X (hi, lo) before them.
  MT* tiles_at = reinterpret_cast<MT*>(Tmp + kSub * kLdF);
  if constexpr (sizeof...(Global) != 0) tiles_at = DqkTiles<T>(tiles_at, global...);
  MT* const tiles = tiles_at;
  constexpr bool kTC = Operand<T>::kTensorCore;
  constexpr int kTiles = OperandTiles<T>(4, 2);
  MT* X = tiles + (kTC ? 2 : 1) * kTileM;
  MT* dAm = tiles;
  MT* dAlo = LoPart<T>(tiles + kTileM);
  MT* Xlo = LoPart<T>(tiles + 3 * kTileM);
  MT* Kr = tiles + (kTiles - 2) * kTileM;
  MT* Qr = tiles + (kTiles - 1) * kTileM;
  MT* const kNone = nullptr;
  const int64_t NT = NumChunks(s.T);
  const TiledBlock b = BlockTile(NumTiles(s.Dk), global...);
  const ChunkPos p = ChunkOf(s, NT, b.chunk);
  const int64_t bh = p.bh;
  const int64_t c0 = b.tile * kChunk;
  const int rows = TileSize(s.Dk, c0);
  // q[t0 + r, c0 + c] and k[...] (0 outside).
  auto qat = [&](int r, int c) { return RawAt(Qr, r, c); };
  auto kat = [&](int r, int c) { return RawAt(Kr, r, c); };
  // dA = dO V^T, then dQ = dO h_n^T and dK = V dH_{n+1}^T (this Dk tile's rows of the states).
  const int64_t state0 = (bh * NT + p.n) * s.Dk * s.Dv + c0 * s.Dv;
  // dO, V, h_n and dH_{n+1} of a Dv tile at once, then the three products; the next tile's
  // (after the last: k and q) loads are in flight during them.
  const bool vec_do = VecOk(dout, s.Dv), vec_v = VecOk(v, s.Dv), vec_h = VecOk(hstore, s.Dv),
             vec_dh = VecOk(dhstore, s.Dv), vec_k = VecOk(k, s.Dk), vec_q = VecOk(q, s.Dk);
  MT* dOt = tiles;
  MT* Vt = tiles + kTileM;
  MT* H = tiles + 2 * kTileM;
  MT* Hlo = LoPart<T>(tiles + 3 * kTileM);
  MT* dH = tiles + (kTC ? 4 : 3) * kTileM;
  MT* dHlo = LoPart<T>(tiles + 5 * kTileM);
  constexpr int kThr = kDqkThreads;
  TileRuns<T, kThr> dor, vr;
  TileRuns<float, kThr> hr, dhr;
  auto fetch = [&](int64_t j0) {
    const int cols = TileSize(s.Dv, j0);
    dor.Fetch([&](int r, int c8, uint32_t* w) { ChunkRunBits(dout, s, p, r, j0, c8, s.Dv, vec_do, w); });
    vr.Fetch([&](int r, int c8, uint32_t* w) { ChunkRunBits(v, s, p, r, j0, c8, s.Dv, vec_v, w); });
    hr.Fetch([&](int r, int c8, uint32_t* w) {
      BlockRunBits(hstore + state0 + j0, s.Dv, rows, cols, r, c8, vec_h, w);
    });
    dhr.Fetch([&](int r, int c8, uint32_t* w) {
      BlockRunBits(dhstore + state0 + j0, s.Dv, rows, cols, r, c8, vec_dh, w);
    });
  };
  {
    DecayRuns<T, kThr> gr;
    gr.Fetch(g, s, p, c0);
    fetch(0);
    ZeroF(dA, 3 * kTileF);
    gr.Cumsum(Gc);
  }
  for (int64_t j0 = 0; j0 < s.Dv; j0 += kChunk) {
    __syncthreads();
    dor.Put(dOt, kNone, RawValue());
    vr.Put(Vt, kNone, RawValue());
    hr.Put(H, Hlo, RawValue());
    dhr.Put(dH, dHlo, RawValue());
    __syncthreads();
    if (j0 + kChunk < s.Dv) {
      fetch(j0 + kChunk);
    } else {  // into the registers of dO and V, written to Kr and Qr after the products
      dor.Fetch([&](int r, int c8, uint32_t* w) { ChunkRunBits(k, s, p, r, c0, c8, s.Dk, vec_k, w); });
      vr.Fetch([&](int r, int c8, uint32_t* w) { ChunkRunBits(q, s, p, r, c0, c8, s.Dk, vec_q, w); });
    }
    BlockGemm<false, true>(kChunk, kChunk, kChunk, dOt, kLdM, Vt, kLdM, dA, kLdF);
    SplitGemm<false, true>(kChunk, kChunk, kChunk, dOt, kNone, kLdM, H, Hlo, kLdM, dQ, kLdF);
    SplitGemm<false, true>(kChunk, kChunk, kChunk, Vt, kNone, kLdM, dH, dHlo, kLdM, dK, kLdF);
  }
  __syncthreads();
  dor.Put(Kr, kNone, RawValue());
  vr.Put(Qr, kNone, RawValue());
  __syncthreads();
  // The inter-chunk decays; the masked, scaled dA.
  for (int e = threadIdx.x; e < kChunk * kChunk; e += blockDim.x) {
    const int r = e >> 6, c = e & 63;
    const Decay G = Gc[r * kLdF + c];
    dQ[r * kLdF + c] *= scale * ExpOf(G);
    // dk's part from the gradient after the chunk goes to dks (read back by this same thread in
    // the last loop, which maps e to (t, c) alike); dK keeps the in-chunk parts alone.
    const float state_part = dK[r * kLdF + c] * ExpOf(Gc[(kChunk - 1) * kLdF + c] - G);
    if (r < p.L && c < rows) dks[(bh * s.T + p.t0 + r) * s.Dk + c0 + c] = state_part;
    dK[r * kLdF + c] = 0.f;
    const float a = (c <= r && r < p.L) ? scale * dA[r * kLdF + c] : 0.f;
    dA[r * kLdF + c] = a;
  }
  __syncthreads();
  FillTile(dAm, dAlo, [&](int r, int c) { return dA[r * kLdF + c]; });
  // Off-diagonal blocks of dq: rows of block blk against the keys before it, relative to the
  // block's first row r0.
  for (int blk = 1; blk < kChunk / kSub; ++blk) {
    const int r0 = blk * kSub;
    __syncthreads();
    FillTile(X, Xlo, [&](int r, int c) {
      return r < r0 ? kat(r, c) * ExpOf(Gc[r0 * kLdF + c] - Gc[r * kLdF + c]) : 0.f;
    });
    ZeroF(Tmp, kSub * kLdF);
    __syncthreads();
    SplitGemm<false, false>(kSub, kChunk, r0, dAm + r0 * kLdM, dAlo ? dAlo + r0 * kLdM : nullptr, kLdM, X, Xlo,
                            kLdM, Tmp, kLdF);
    __syncthreads();
    for (int e = threadIdx.x; e < kSub * kChunk; e += blockDim.x) {
      const int r = e >> 6, c = e & 63;
      dQ[(r0 + r) * kLdF + c] += ExpOf(Gc[(r0 + r) * kLdF + c] - Gc[r0 * kLdF + c]) * Tmp[r * kLdF + c];
    }
  }
  // Off-diagonal blocks of dk: keys of block blk against the later queries, relative to the
  // block's last row r1.
  for (int blk = 0; blk + 1 < kChunk / kSub; ++blk) {
    const int r1 = blk * kSub + kSub - 1;
    __syncthreads();
    FillTile(X, Xlo, [&](int r, int c) {
      return r > r1 ? qat(r, c) * ExpOf(Gc[r * kLdF + c] - Gc[r1 * kLdF + c]) : 0.f;
    });
    ZeroF(Tmp, kSub * kLdF);
    __syncthreads();
    SplitGemm<true, false>(kSub, kChunk, kChunk, dAm + blk * kSub, dAlo ? dAlo + blk * kSub : nullptr, kLdM, X,
                           Xlo, kLdM, Tmp, kLdF);
    __syncthreads();
    for (int e = threadIdx.x; e < kSub * kChunk; e += blockDim.x) {
      const int r = e >> 6, c = e & 63, row = blk * kSub + r;
      dK[row * kLdF + c] += ExpOf(Gc[r1 * kLdF + c] - Gc[row * kLdF + c]) * Tmp[r * kLdF + c];
    }
  }
  __syncthreads();
  // Diagonal blocks element by element; then the outputs and q dq - k dk.
  for (int e = threadIdx.x; e < kChunk * kChunk; e += blockDim.x) {
    const int t = e >> 6, c = e & 63;
    if (t >= p.L || c >= rows) continue;
    const int b0 = t & ~(kSub - 1);
    const Decay Gt = Gc[t * kLdF + c];
    float sq = 0.f, sk = 0.f;
    for (int u = b0; u < t; ++u) {
      sq += dA[t * kLdF + u] * kat(u, c) * ExpOf(Gt - Gc[u * kLdF + c]);
    }
    for (int u = t + 1; u < b0 + kSub && u < p.L; ++u) {
      sk += dA[u * kLdF + t] * qat(u, c) * ExpOf(Gc[u * kLdF + c] - Gt);
    }
    const int64_t off = s.Row(bh, p.t0 + t, s.Dk) + c0 + c;
    const float qv = qat(t, c), kv = kat(t, c), own = dA[t * kLdF + t];
    const int64_t at = (bh * s.T + p.t0 + t) * s.Dk + c0 + c;
    const float dq_other = dQ[t * kLdF + c] + sq, dk_rest = dK[t * kLdF + c] + sk;
    dq[off] = static_cast<T>(dq_other + own * kv);
    dk[off] = static_cast<T>(dks[at] + dk_rest + own * qv);
    // Step t's own terms of q dq and k dk (q k dA[t, t]) cancel exactly: leave them out.
    qdk[at] = qv * dq_other - kv * dk_rest;
  }
}

// kStaged: GlaDqkKernel<T>'s shared memory; else the global-tiles form's (its float32 tiles only).
template <typename T, bool kStaged = true>
constexpr size_t DqkSmem() {
  return kTileF * sizeof(Decay) + (3 * kTileF + kSub * kLdF) * sizeof(float) +
         (kStaged ? DqkTileElems<T>() * sizeof(typename Operand<T>::type) : 0);
}

// ---- gk_grad, one thread per (head, channel), summed within each chunk -------------------------
// For step r of a chunk (B its cumulative gates, Btot their total, h_n the state before it and
// dH_{n+1} the gradient after it, both as stored by the state passes):
//   gk_grad_r = exp(Btot) sum_j (h_n * dH_{n+1})[c, j] + sum_{s < r} k_s dks_s + sum_{s >= r} qdk_s,
// which is exp(gk_r) sum_j h_{r-1} dH_r written out over the chunk (dks: dk's part from dH_{n+1};
// qdk: q dq - k times the rest of dk; GlaDqkKernel). The reverse sum of q dq - k dk carried
// across chunks reaches the same value only through cancellation: the final state's share and
// the last step's k dk, each of the size of k v dH, leave a result exp(gk) times smaller in a
// strongly decayed channel, with their float rounding in every earlier step (docs/spec.md §5).
// Here no part holds such a term, and the sums run in float64 (the CPU's chunked form,
// chunk_cpu.cc, sums the same parts). Where a gate's factor exp(gk_t) is 0 in float (-inf,
// -1e30, any gate whose exp underflows) the in-chunk sum restarts: gk_grad at t is exactly 0, as
// in the recurrent form (recurrent.h), and the other two parts are exactly 0 at and before it
// (their decays span it). gk_grad at t = 0 is sum_j (dh0 * h0)[c, j] (0 without h0).
template <typename T>
__global__ void GlaDgKernel(GlaShape s, const float* qdk, const float* dks, const T* k, const T* g,
                            const float* hstore, const float* dhstore, const float* h0, const float* dh0, T* dg) {
  const int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (idx >= s.heads() * s.Dk) return;
  const int64_t bh = idx / s.Dk, c = idx - bh * s.Dk;
  const int64_t NT = NumChunks(s.T);
  double pre[kChunk];  // pre[r] = sum_{s < r} k_s dks_s of the chunk
  for (int64_t n = NT - 1; n >= 0; --n) {
    const int64_t t0 = n * kChunk;
    const int L = static_cast<int>(s.T - t0 < kChunk ? s.T - t0 : kChunk);
    Decay btot = 0;
    double run = 0.0;
    for (int r = 0; r < L; ++r) {
      const int64_t t = t0 + r, at = (bh * s.T + t) * s.Dk + c;
      btot += RaiseToGateFloor(static_cast<float>(g[s.Row(bh, t, s.Dk) + c]));
      pre[r] = run;
      run += static_cast<double>(static_cast<float>(k[s.Row(bh, t, s.Dk) + c])) * static_cast<double>(dks[at]);
    }
    const int64_t srow = ((bh * NT + n) * s.Dk + c) * s.Dv;
    double dot = 0.0;
    for (int64_t j = 0; j < s.Dv; ++j) dot += static_cast<double>(hstore[srow + j]) * dhstore[srow + j];
    const double base = static_cast<double>(ExpOf(btot)) * dot;
    double sum = 0.0;
    for (int r = L - 1; r >= 0; --r) {
      const int64_t t = t0 + r;
      const float gate = static_cast<float>(g[s.Row(bh, t, s.Dk) + c]);
      sum = GlaExp(gate) == 0.f ? 0.0 : sum + static_cast<double>(qdk[(bh * s.T + t) * s.Dk + c]);
      if (t > 0) dg[s.Row(bh, t, s.Dk) + c] = static_cast<T>(static_cast<float>(base + pre[r] + sum));
    }
  }
  if (s.T > 0) {
    float first = 0.f;
    if (h0) {
      const int64_t srow = (bh * s.Dk + c) * s.Dv;
      for (int64_t j = 0; j < s.Dv; ++j) first += dh0[srow + j] * h0[srow + j];
    }
    dg[s.Row(bh, 0, s.Dk) + c] = static_cast<T>(first);
  }
}

// ---- the recurrent form, one thread per head (float64, and shapes with an empty dim) --------
template <typename T, typename Acc>
__global__ void GlaRecurrentForwardKernel(GlaShape s, const T* q, const T* k, const T* v, const T* g,
                                          const float* h0, Acc scale, T* o, float* final_state, Acc* work) {
  const int64_t bh = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (bh >= s.heads()) return;
  const int64_t st = s.StateSize();
  GlaRecurrentForwardHead<T, Acc>(s, bh, q, k, v, g, h0 ? h0 + bh * st : nullptr, scale, o,
                                  final_state ? final_state + bh * st : nullptr, work + bh * s.ForwardWork());
}

template <typename T, typename Acc>
__global__ void GlaRecurrentBackwardKernel(GlaShape s, const T* q, const T* k, const T* v, const T* g,
                                           const float* h0, const T* dout, const float* dfinal, Acc scale,
                                           T* dq, T* dk, T* dv, T* dg, float* dh0, Acc* work) {
  const int64_t bh = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (bh >= s.heads()) return;
  const int64_t st = s.StateSize();
  GlaRecurrentBackwardHead<T, Acc>(s, bh, q, k, v, g, h0 ? h0 + bh * st : nullptr, dout,
                                   dfinal ? dfinal + bh * st : nullptr, scale, dq, dk, dv, dg,
                                   dh0 ? dh0 + bh * st : nullptr, work + bh * s.BackwardWork());
}

// Whether the chunked kernels take this call (the recurrent form takes the rest).
template <typename T>
inline bool UseChunked(const GlaShape& s) {
  return !std::is_same<T, double>::value && s.heads() > 0 && s.T > 0 && s.Dk > 0 && s.Dv > 0;
}

// ---- shared memory per block, against the device's limit -----------------------------------
// The most dynamic shared memory one block of the chunked forward (state, intra, output) or
// backward (those and dq/dk) kernels asks for, with the intra kernel's q and k staged or not.
// Per-block opt-in limits: 163 KB on sm_80 and sm_87, 99 KB on sm_86 and sm_89, 227 KB on
// sm_90. Everything fits sm_80 and sm_90; on sm_86/sm_89 the intra kernel runs unstaged (87 KB;
// staged: 105 KB in 16 bits, 123 KB in float32) and the dq/dk kernel with its operand tiles in
// global memory (89.25 KB; in shared memory: 143.25 KB in 16 bits, 161.25 KB in float32)
// (docs/architecture.md, "gla"). kStaged = false: both in their smaller form.
template <typename T, bool kBackward, bool kStaged = true>
constexpr size_t ChunkedSmem() {
  constexpr size_t a = StateSmem<T>(), b = IntraSmem<T, kStaged>(), c = OutputSmem<T>(),
                   d = DqkSmem<T, kStaged>();
  constexpr size_t fwd = a > b ? (a > c ? a : c) : (b > c ? b : c);
  return kBackward && d > fwd ? d : fwd;
}

// Whether the chunked kernels of a forward (or, kBackward, a backward) fit a device whose blocks
// may use `limit` bytes of shared memory, the intra and dq/dk kernels in their smaller forms where
// they must be (IntraStaged, DqkStaged); where they do not, the call takes the recurrent form.
template <typename T, bool kBackward>
inline bool ChunkedFits(size_t limit) {
  return ChunkedSmem<T, kBackward, false>() <= limit;
}

// Whether the intra kernel keeps q and k in shared memory on such a device (where they fit).
template <typename T>
inline bool IntraStaged(size_t limit) {
  return IntraSmem<T, true>() <= limit;
}

// Whether the dq/dk kernel keeps its operand tiles in shared memory on such a device
// (GlaDqkKernel<T>) or, where they do not fit, in global memory (GlaDqkKernel<T, unsigned, MT*>).
template <typename T>
inline bool DqkStaged(size_t limit) {
  return DqkSmem<T, true>() <= limit;
}

}  // namespace gla
}  // namespace funcs
}  // namespace phi
