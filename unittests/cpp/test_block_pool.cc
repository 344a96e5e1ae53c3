// The GPU caching allocator's bookkeeping (paddle_ops/core/gpu/block_pool.h) on the CPU: a
// fake device hands out address ranges that are never touched, so the size classes,
// splitting, merging and release of free segments are checked without CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "paddle_ops/core/gpu/block_pool.h"

namespace {

using phi::BlockPool;
constexpr size_t KiB = 1024, MiB = 1024 * KiB;

// Address ranges from a counter; records what is held and can refuse beyond a capacity.
struct FakeDevice {
  uintptr_t next = 1 << 20;
  std::map<uintptr_t, size_t> held;
  size_t capacity = SIZE_MAX;
  size_t in_use = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> moves;  // (from, to) of each ordering asked for
  bool can_move = true;
  BlockPool MakePool(bool with_move = false) {
    BlockPool::SegmentMove move = nullptr;
    if (with_move)
      move = [this](uintptr_t from, uintptr_t to) {
        if (!can_move) return false;
        moves.emplace_back(from, to);
        return true;
      };
    return BlockPool(
        [this](size_t n) -> void* {
          if (in_use + n > capacity) return nullptr;
          const uintptr_t p = next;
          next += n + 4096;  // a gap: segments are never adjacent
          held[p] = n;
          in_use += n;
          return reinterpret_cast<void*>(p);
        },
        [this](void* p) {
          auto it = held.find(reinterpret_cast<uintptr_t>(p));
          ASSERT_NE(it, held.end()) << "freed a segment the device did not give";
          in_use -= it->second;
          held.erase(it);
        },
        move);
  }
};

char* At(void* p) { return static_cast<char*>(p); }

TEST(BlockPoolTest, SizeClasses) {
  EXPECT_EQ(BlockPool::RoundSize(0), 512u);
  EXPECT_EQ(BlockPool::RoundSize(1), 512u);
  EXPECT_EQ(BlockPool::RoundSize(512), 512u);
  EXPECT_EQ(BlockPool::RoundSize(513), 1024u);
  EXPECT_EQ(BlockPool::SegmentSizeFor(512), 2 * MiB);
  EXPECT_EQ(BlockPool::SegmentSizeFor(1 * MiB), 2 * MiB);
  EXPECT_EQ(BlockPool::SegmentSizeFor(1 * MiB + 512), 2 * MiB);
  EXPECT_EQ(BlockPool::SegmentSizeFor(2 * MiB + 512), 4 * MiB);
  EXPECT_EQ(BlockPool::SegmentSizeFor(100 * MiB + 1024), 102 * MiB);
}

TEST(BlockPoolTest, SmallRequestsShareOneSegment) {
  FakeDevice dev;
  BlockPool pool = dev.MakePool();
  void* a = pool.Allocate(1000);   // 1024
  void* b = pool.Allocate(4096);
  void* c = pool.Allocate(1);      // 512
  EXPECT_EQ(pool.stats().segments, 1u);
  EXPECT_EQ(pool.stats().reserved, 2 * MiB);
  EXPECT_EQ(pool.stats().allocated, 1024u + 4096u + 512u);
  EXPECT_EQ(At(b), At(a) + 1024);  // cut one after the other from the segment
  EXPECT_EQ(At(c), At(b) + 4096);
  pool.Free(b);
  void* d = pool.Allocate(2000);  // best fit: b's 4096-byte hole, not the segment's tail
  EXPECT_EQ(d, b);
  EXPECT_EQ(pool.stats().segments, 1u);
  pool.Free(a);
  pool.Free(c);
  pool.Free(d);
  EXPECT_EQ(pool.stats().allocated, 0u);
  EXPECT_EQ(pool.ReleaseFreeSegments(), 2 * MiB);  // merged back into one whole segment
  EXPECT_EQ(pool.stats().reserved, 0u);
  EXPECT_TRUE(dev.held.empty());
}

TEST(BlockPoolTest, LargeBlockSplitsAndMerges) {
  FakeDevice dev;
  BlockPool pool = dev.MakePool();
  void* big = pool.Allocate(64 * MiB);
  pool.Free(big);
  void* x = pool.Allocate(10 * MiB);  // cut from the free 64 MiB segment
  void* y = pool.Allocate(20 * MiB);
  void* z = pool.Allocate(30 * MiB);
  EXPECT_EQ(pool.stats().segments, 1u);
  EXPECT_EQ(x, big);
  EXPECT_EQ(At(y), At(x) + 10 * MiB);
  EXPECT_EQ(At(z), At(y) + 20 * MiB);
  // a rest under 1 MiB is not split off a large block
  pool.Free(z);
  void* w = pool.Allocate(33 * MiB + 512 * KiB);  // the 34 MiB tail; 512 KiB stay with it
  EXPECT_EQ(w, z);
  EXPECT_EQ(pool.stats().allocated, 10 * MiB + 20 * MiB + 34 * MiB);
  // freeing the middle, then its neighbours, leaves one free block the whole segment's size
  pool.Free(y);
  pool.Free(x);
  pool.Free(w);
  EXPECT_EQ(pool.stats().allocated, 0u);
  void* again = pool.Allocate(64 * MiB);
  EXPECT_EQ(again, big);
  EXPECT_EQ(pool.stats().device_allocs, 1u);
  pool.Free(again);
}

TEST(BlockPoolTest, SmallAndLargePoolsApart) {
  FakeDevice dev;
  BlockPool pool = dev.MakePool();
  void* large = pool.Allocate(8 * MiB);
  pool.Free(large);
  void* small = pool.Allocate(4 * KiB);  // not cut from the free large segment
  // 8 + 2 MiB held is within 1.5x the 8 MiB once in use: the free large segment is kept
  EXPECT_EQ(pool.stats().segments, 2u);
  EXPECT_EQ(pool.stats().reserved, 10 * MiB);
  EXPECT_EQ(pool.stats().device_frees, 0u);
  EXPECT_NE(small, large);
  pool.Free(small);
  void* again = pool.Allocate(8 * MiB);  // and reused without the device
  EXPECT_EQ(again, large);
  EXPECT_EQ(pool.stats().device_allocs, 2u);
  pool.Free(again);
}

// A segment belongs to the stream it was cut for: a freed block is reused by that stream's
// requests only (another stream gets its own segment), and its split blocks keep the stream.
TEST(BlockPoolTest, BlocksServeTheirStreamOnly) {
  FakeDevice dev;
  BlockPool pool = dev.MakePool();
  const uintptr_t ours = 0, side = 0x7f00;
  void* held = pool.Allocate(64 * MiB, ours);  // in use throughout: no free segment is given back
  void* a = pool.Allocate(8 * MiB, side);
  void* s1 = pool.Allocate(4 * KiB, side);
  uintptr_t tag = 1;
  ASSERT_TRUE(pool.StreamOf(a, &tag));
  EXPECT_EQ(tag, side);
  pool.Free(a);
  pool.Free(s1);
  void* b = pool.Allocate(8 * MiB, ours);  // not a's free block: a new segment
  void* s2 = pool.Allocate(4 * KiB, ours);
  EXPECT_NE(b, a);
  EXPECT_NE(s2, s1);
  EXPECT_EQ(pool.stats().device_allocs, 5u);
  ASSERT_TRUE(pool.StreamOf(s2, &tag));
  EXPECT_EQ(tag, ours);
  void* c = pool.Allocate(3 * MiB, side);  // cut from a's free segment
  EXPECT_EQ(c, a);
  void* d = pool.Allocate(4 * MiB, side);  // the rest of it
  EXPECT_EQ(At(d), At(a) + 3 * MiB);
  ASSERT_TRUE(pool.StreamOf(d, &tag));
  EXPECT_EQ(tag, side);
  EXPECT_EQ(pool.stats().device_allocs, 5u);
  EXPECT_FALSE(pool.StreamOf(At(d) + 512, &tag));  // not the start of a block in use
  for (void* p : {held, b, s2, c, d}) pool.Free(p);
}

TEST(BlockPoolTest, NewSegmentGivesBackFreeSegmentsFirst) {
  FakeDevice dev;
  BlockPool pool = dev.MakePool();
  void* a = pool.Allocate(10 * MiB);
  void* b = pool.Allocate(12 * MiB);
  pool.Free(a);
  pool.Free(b);
  EXPECT_EQ(pool.stats().reserved, 22 * MiB);
  void* c = pool.Allocate(16 * MiB);  // fits neither free segment: both go back first
  EXPECT_EQ(pool.stats().reserved, 16 * MiB);
  EXPECT_EQ(pool.stats().device_frees, 2u);
  EXPECT_EQ(pool.stats().peak_reserved, 22 * MiB);
  pool.Free(c);
}

// Calls that alternate between two streams with one large output each (a direct call on our
// stream, a torch op on torch's): past the 1.5x bound the free segment of the other stream
// moves over, ordered by an event, instead of going back to the device (a cudaFree and a
// cudaMalloc at each switch). Without a way to order the streams, it goes back as before.
TEST(BlockPoolTest, FreeSegmentMovesToTheOtherStreamBeforeGoingBack) {
  const uintptr_t ours = 0, torch_stream = 1;
  for (const bool can_move : {true, false}) {
    FakeDevice dev;
    dev.can_move = can_move;
    BlockPool pool = dev.MakePool(true);
    for (int i = 0; i < 6; ++i) {
      const uintptr_t s = i % 2 ? torch_stream : ours;
      void* p = pool.Allocate(256 * MiB, s);
      ASSERT_NE(p, nullptr);
      uintptr_t tag = 99;
      ASSERT_TRUE(pool.StreamOf(p, &tag));
      EXPECT_EQ(tag, s);
      pool.Free(p);
    }
    EXPECT_EQ(pool.stats().reserved, 256 * MiB);
    if (can_move) {
      EXPECT_EQ(pool.stats().device_allocs, 1u);
      EXPECT_EQ(pool.stats().device_frees, 0u);
      EXPECT_EQ(pool.stats().stream_moves, 5u);
      ASSERT_EQ(dev.moves.size(), 5u);
      EXPECT_EQ(dev.moves[0], std::make_pair(ours, torch_stream));
      EXPECT_EQ(dev.moves[1], std::make_pair(torch_stream, ours));
    } else {
      EXPECT_EQ(pool.stats().device_allocs, 6u);
      EXPECT_EQ(pool.stats().device_frees, 5u);
      EXPECT_EQ(pool.stats().stream_moves, 0u);
    }
  }
  // Under the bound a new segment is asked for (no ordering between the streams is added), and a
  // segment with a block in use never moves.
  FakeDevice dev;
  BlockPool pool = dev.MakePool(true);
  void* big = pool.Allocate(100 * MiB, ours);
  void* small = pool.Allocate(10 * MiB, ours);
  pool.Free(small);
  void* other = pool.Allocate(10 * MiB, torch_stream);  // 120 MiB held <= 1.5 x 110 MiB
  EXPECT_TRUE(dev.moves.empty());
  EXPECT_EQ(pool.stats().device_allocs, 3u);
  pool.Free(other);
  pool.Free(big);
}

TEST(BlockPoolTest, DeviceRefusalReturnsNull) {
  FakeDevice dev;
  dev.capacity = 32 * MiB;
  BlockPool pool = dev.MakePool();
  void* a = pool.Allocate(20 * MiB);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(pool.Allocate(20 * MiB), nullptr);
  EXPECT_EQ(pool.stats().allocated, 20 * MiB);
  pool.Free(a);
  void* b = pool.Allocate(30 * MiB);  // the free 20 MiB segment goes back, then there is room
  EXPECT_NE(b, nullptr);
  pool.Free(b);
}

// The workload the GPU test runs (unittests/python/test_gpu_allocator.py): 1,000 tensors of
// sizes uniform in log from 1 KiB to 256 MiB, at most 8 alive; the most memory ever held
// stays within twice the most ever in use at once (over 20 seeds; an exact-size cache, the
// allocator before, held every size it had seen).
TEST(BlockPoolTest, VaryingSizesStayBounded) {
  double worst = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    FakeDevice dev;
    BlockPool pool = dev.MakePool();
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> log_size(std::log(1.0 * KiB), std::log(256.0 * MiB));
    std::vector<std::pair<void*, size_t>> alive;
    size_t in_use = 0, peak_in_use = 0;
    for (int i = 0; i < 1000; ++i) {
      if (alive.size() == 8) {
        const size_t k = rng() % alive.size();
        pool.Free(alive[k].first);
        in_use -= alive[k].second;
        alive.erase(alive.begin() + k);
      }
      const size_t bytes = static_cast<size_t>(std::exp(log_size(rng)));
      void* p = pool.Allocate(bytes);
      ASSERT_NE(p, nullptr);
      alive.emplace_back(p, bytes);
      in_use += bytes;
      peak_in_use = std::max(peak_in_use, in_use);
      ASSERT_EQ(dev.in_use, pool.stats().reserved);
    }
    EXPECT_LE(pool.stats().peak_reserved, 2 * peak_in_use) << "seed " << seed;
    worst = std::max(worst, double(pool.stats().peak_reserved) / peak_in_use);
    for (auto& a : alive) pool.Free(a.first);
    EXPECT_EQ(pool.stats().allocated, 0u);
    pool.ReleaseFreeSegments();
    EXPECT_TRUE(dev.held.empty());
  }
  std::printf("block pool: worst peak reserved / peak in use over 20 seeds: %.3f\n", worst);
}

}  // namespace
