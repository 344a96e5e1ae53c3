// pscan's one-pass column scan (kernels/gpu/pscan_onepass.cuh) as host/device code without
// CUDA: which tile does what, where its status lives, which aggregates it folds and in what
// order. Shared by the kernel and its host emulation (tools/dev/harness/pscan/onepass_emu.cc),
// so that the emulation checks the kernel's own decomposition.
//
// x [N, T, D] with a [N, T] broadcast over D: a tile is kCols consecutive columns of one n
// (a "group") times kSteps consecutive steps of T (a "chunk"). The gates of a chunk are the
// same for every column, so a chunk's aggregate (A, B) has one A and a B per column.
//
// Deterministic look-back (as scan_onepass.cuh's rows): the chunk aggregates are the leaves of
// a binary tree of aligned blocks; the block of 2^b chunks [k 2^b, (k+1) 2^b) is at level b,
// index k. Only left children (even k) are ever read, and each is published by its last chunk:
// chunk i, with k trailing one bits, publishes the block at level k, index i >> k, as
// S_low (+) agg_i, where S_low folds the blocks (i >> c) - 1 at the levels c < k (published by
// chunks i - 2^c, which have c trailing ones), level 0 first: L_{k-1} (+) (... (+) L_0). Its
// carry-in is P_high (+) S_low, P_high the blocks of i's other set bits, largest first, from the
// identity. Every expression depends on i alone, never on timing; a chunk's publication waits
// only on its k left siblings (a chain of at most log2(chunks) publications), its carry on
// blocks published by chunks of smaller tickets.
#pragma once

#include <cstdint>

#include "paddle_ops/common/macros.h"

namespace phi {
namespace funcs {
namespace pscan_onepass {

// The highest set bit of v (v != 0).
HOSTDEVICE inline int TopBit(uint64_t v) {
#ifdef __CUDA_ARCH__
  return 63 - __clzll(static_cast<long long>(v));
#else
  return 63 - __builtin_clzll(v);
#endif
}

HOSTDEVICE inline int TrailingOnes(int64_t i) {
  int k = 0;
  while ((i >> k) & 1) ++k;
  return k;
}

struct Plan {
  int64_t outer, length, inner;  // N, T, D of x's [N, T, D] view
  int64_t steps;                 // steps per chunk (kSteps)
  int64_t cols;                  // columns per tile (kCols, the block's threads)
  // Derived once on the host (the kernel asks for them per status slot: no division there).
  int64_t col_blocks, groups, chunks, slots_per_group;

  Plan() = default;
  HOSTDEVICE Plan(int64_t n, int64_t t, int64_t d, int64_t l, int64_t c)
      : outer(n), length(t), inner(d), steps(l), cols(c) {
    col_blocks = (inner + cols - 1) / cols;
    groups = outer * col_blocks;
    chunks = (length + steps - 1) / steps;
    slots_per_group = 0;
    for (int64_t m = chunks; m > 0; m >>= 1) slots_per_group += m;
  }
  HOSTDEVICE int64_t ColBlocks() const { return col_blocks; }
  HOSTDEVICE int64_t Groups() const { return groups; }
  HOSTDEVICE int64_t Chunks() const { return chunks; }
  HOSTDEVICE int64_t Tiles() const { return groups * chunks; }
  // Tickets chunk-major (every group's chunk c before any group's chunk c + 1): a tile waits
  // only on tiles of smaller tickets, which already run.
  HOSTDEVICE void TileOf(int64_t ticket, int64_t* chunk, int64_t* group) const {
    *chunk = ticket / groups;
    *group = ticket - *chunk * groups;
  }
  // Status slots of a group: the engine's layout (level b holds chunks >> b blocks).
  HOSTDEVICE int64_t SlotsPerGroup() const { return slots_per_group; }
  HOSTDEVICE int64_t Slot(int64_t group, int level, int64_t k) const {
    int64_t off = 0;
    for (int l = 0; l < level; ++l) off += chunks >> l;
    return group * slots_per_group + off + k;
  }
};

// Chunk i's blocks (level b, index (i >> b) - 1) for the set bits b of `mask` (a subset of
// i's bits): the low ones (bits below TrailingOnes(i)) and the high ones (the others).
HOSTDEVICE inline uint64_t LowBits(int64_t i) { return (uint64_t{1} << TrailingOnes(i)) - 1; }
HOSTDEVICE inline uint64_t HighBits(int64_t i) { return static_cast<uint64_t>(i) & ~LowBits(i); }

// A chunk's aggregate: item(k) for k < n, folded left to right from the identity.
template <int kSteps, typename Op, typename Item>
HOSTDEVICE typename Op::State FoldChunk(const Op& op, int n, Item item) {
  typename Op::State agg = op.Identity();
#pragma unroll
  for (int k = 0; k < kSteps; ++k) {
    if (k < n) agg = op.Combine(agg, item(k));
  }
  return agg;
}

// S_low of chunk i (k = TrailingOnes(i) > 0): L_{k-1} (+) (... (+) (L_1 (+) L_0)), get(level,
// index) reading a published block; kBatch reads issued before they are folded.
template <int kBatch, typename Op, typename Get>
HOSTDEVICE typename Op::State FoldLow(const Op& op, int64_t i, Get get) {
  using State = typename Op::State;
  const int k = TrailingOnes(i);
  State s = op.Identity();
  for (int c0 = 0; c0 < k; c0 += kBatch) {
    State v[kBatch];
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      if (c0 + q < k) v[q] = get(c0 + q, (i >> (c0 + q)) - 1);
    }
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      if (c0 + q < k) s = c0 + q == 0 ? v[q] : op.Combine(v[q], s);
    }
  }
  return s;
}

// P_high of chunk i: its high blocks folded largest first from the identity (the identity
// itself when i has none).
template <int kBatch, typename Op, typename Get>
HOSTDEVICE typename Op::State FoldHigh(const Op& op, int64_t i, Get get) {
  using State = typename Op::State;
  uint64_t bits = HighBits(i);
  State acc = op.Identity();
  bool first = true;
  while (bits != 0) {
    State v[kBatch];
    bool have[kBatch];
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      have[q] = bits != 0;
      if (have[q]) {
        const int b = TopBit(bits);
        bits &= ~(uint64_t{1} << b);
        v[q] = get(b, (i >> b) - 1);
      }
    }
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      if (have[q]) {
        acc = first ? v[q] : op.Combine(acc, v[q]);
        first = false;
      }
    }
  }
  return acc;
}

// The block chunk i publishes (level TrailingOnes(i), index i >> that) and its carry-in.
template <typename Op>
HOSTDEVICE typename Op::State BlockValue(const Op& op, int64_t i, const typename Op::State& s_low,
                                         const typename Op::State& agg) {
  return LowBits(i) != 0 ? op.Combine(s_low, agg) : agg;
}
template <typename Op>
HOSTDEVICE typename Op::State CarryIn(const Op& op, int64_t i, const typename Op::State& p_high,
                                      const typename Op::State& s_low) {
  if (LowBits(i) == 0) return p_high;  // the identity when i == 0
  return HighBits(i) != 0 ? op.Combine(p_high, s_low) : s_low;
}

}  // namespace pscan_onepass
}  // namespace funcs
}  // namespace phi
