// BlockPool: the bookkeeping of the GPU caching allocator (gpu_context.cu), without CUDA so
// that its logic is tested on the CPU (unittests/cpp/test_block_pool.cc).
//
// Memory comes from the device in segments and goes to tensors as blocks cut from them:
//   - a request is rounded up to 512 B; one of 1 MiB or less is a small request, served from
//     2 MiB segments; a larger one from a segment of its size rounded up to 2 MiB;
//   - a request takes the smallest free block of its pool that holds it (best fit) and the
//     block is split when the rest is worth keeping (512 B in the small pool, 1 MiB in the
//     large); a freed block merges with its free neighbours of the same segment;
//   - a new segment is asked for only when no free block fits; the segments that are wholly
//     free are given back to the device first when keeping them would make the pool hold more
//     than 1.5x the most ever in use, so the memory held stays near what the tensors in use
//     (and the holes in the segments they occupy) need, while a loop of changing sizes keeps
//     its segments. When the device refuses a segment, the allocator gives every free
//     segment back and asks once more.
//   - every segment belongs to one stream (an opaque tag, 0 for the allocator's own stream)
//     and its blocks serve requests of that stream only: a freed block is reused only by work
//     queued after the free on the same stream, so no event is needed (as in PyTorch's
//     allocator). Work of another stream that used the block is the caller's to order
//     (gpu_context.cu's RecordStream).
//   - when a request misses and a new segment would pass the 1.5x bound, a wholly free
//     segment of another stream that holds the request moves to the requesting stream
//     first (the smallest such), if the caller can order the new stream after the old one
//     (SegmentMove: an event, no host wait); only then are free segments given back. Calls
//     that alternate between two streams (our own and torch's) would otherwise give back and
//     ask again for a segment, a cudaFree and a cudaMalloc, at each switch.
// Not locked: the allocator calls it under its own mutex.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace phi {

struct BlockPoolStats {
  size_t reserved = 0;        // bytes in segments held from the device
  size_t allocated = 0;       // bytes in blocks handed out (rounded sizes)
  size_t peak_reserved = 0;   // since start or the last ResetPeaks
  size_t peak_allocated = 0;
  size_t segments = 0;        // segments held
  size_t device_allocs = 0;   // segments asked for, in all
  size_t device_frees = 0;    // segments given back, in all
  size_t stream_moves = 0;    // wholly free segments moved to another stream, in all
};

class BlockPool {
 public:
  static constexpr size_t kRound = 512;                // every block size is a multiple
  static constexpr size_t kSmallRequest = 1 << 20;     // at most this: the small pool
  static constexpr size_t kSmallSegment = 2 << 20;     // the small pool's segment size
  static constexpr size_t kLargeGranule = 2 << 20;     // large segments are multiples
  static constexpr size_t kLargeMinRemainder = 1 << 20;  // split a large block if this is left

  using SegmentAlloc = std::function<void*(size_t)>;  // null when the device has no memory
  using SegmentFree = std::function<void(void*)>;
  // Orders the later work of stream `to` after the work queued so far on stream `from`; false
  // when it cannot (the segment then stays with `from`).
  using SegmentMove = std::function<bool(uintptr_t from, uintptr_t to)>;

  BlockPool(SegmentAlloc alloc, SegmentFree release, SegmentMove move = nullptr)
      : alloc_(std::move(alloc)), free_(std::move(release)), move_(std::move(move)) {}
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool() {
    for (auto& kv : live_) delete kv.second;  // the segments stay with the device (exit)
    for (Block* b : small_free_) delete b;
    for (Block* b : large_free_) delete b;
  }

  static size_t RoundSize(size_t bytes) { return bytes == 0 ? kRound : (bytes + kRound - 1) / kRound * kRound; }
  static size_t SegmentSizeFor(size_t rounded) {
    return rounded <= kSmallRequest ? kSmallSegment : (rounded + kLargeGranule - 1) / kLargeGranule * kLargeGranule;
  }

  // A block of at least `bytes`; null when the device cannot give a new segment (the caller
  // may then wait for queued work, ReleaseFreeSegments() and try again). On a miss, the wholly
  // free segments are given back first only when keeping them would make the pool hold more
  // than 1.5x the most ever in use (peak_allocated): a loop of changing sizes does not pay a
  // cudaFree + cudaMalloc per iteration, and what is held stays bounded.
  // `stream`: the tag of the stream the block will be used on (only a free block of that
  // stream is reused; a new segment belongs to it).
  void* Allocate(size_t bytes, uintptr_t stream = 0) {
    const size_t size = RoundSize(bytes);
    const bool small = size <= kSmallRequest;
    FreeSet& pool = small ? small_free_ : large_free_;
    Block* b = BestFit(pool, size, stream);
    if (!b) {
      const size_t seg = SegmentSizeFor(size);
      const size_t most_in_use = std::max(stats_.peak_allocated, stats_.allocated + size);
      const bool over = stats_.reserved + seg > most_in_use + most_in_use / 2;
      if (over) b = MoveFreeSegment(pool, size, stream);
      if (!b) {
        if (over) ReleaseFreeSegments();
        void* p = alloc_(seg);
        if (!p) return nullptr;
        stats_.reserved += seg;
        stats_.segments += 1;
        stats_.device_allocs += 1;
        if (stats_.reserved > stats_.peak_reserved) stats_.peak_reserved = stats_.reserved;
        b = new Block{p, seg, stream, small, false, nullptr, nullptr};
      }
    } else {
      pool.erase(b);
    }
    const size_t rest = b->size - size;
    if (rest >= (small ? kRound : kLargeMinRemainder)) {
      Block* r = new Block{static_cast<char*>(b->ptr) + size, rest, stream, small, false, b, b->next};
      if (b->next) b->next->prev = r;
      b->next = r;
      b->size = size;
      pool.insert(r);
    }
    b->allocated = true;
    live_.emplace(b->ptr, b);
    stats_.allocated += b->size;
    if (stats_.allocated > stats_.peak_allocated) stats_.peak_allocated = stats_.allocated;
    return b->ptr;
  }

  // Returns a block from Allocate to its pool, merged with its free neighbours.
  void Free(void* p) {
    auto it = live_.find(p);
    if (it == live_.end()) return;
    Block* b = it->second;
    live_.erase(it);
    stats_.allocated -= b->size;
    b->allocated = false;
    FreeSet& pool = b->small ? small_free_ : large_free_;
    if (b->prev && !b->prev->allocated) {
      pool.erase(b->prev);
      b = Merge(b->prev, b);
    }
    if (b->next && !b->next->allocated) {
      pool.erase(b->next);
      b = Merge(b, b->next);
    }
    pool.insert(b);
  }

  // The stream tag of the block `p` from Allocate (false when `p` is not one in use).
  bool StreamOf(void* p, uintptr_t* stream) const {
    auto it = live_.find(p);
    if (it == live_.end()) return false;
    *stream = it->second->stream;
    return true;
  }

  // Gives every wholly free segment back to the device; returns the bytes released.
  size_t ReleaseFreeSegments() { return Release(small_free_) + Release(large_free_); }

  const BlockPoolStats& stats() const { return stats_; }
  void ResetPeaks() {
    stats_.peak_reserved = stats_.reserved;
    stats_.peak_allocated = stats_.allocated;
  }

 private:
  struct Block {
    void* ptr;
    size_t size;
    uintptr_t stream;  // the tag of its segment's stream
    bool small;      // its pool
    bool allocated;
    Block* prev;     // neighbours in the same segment (null at its ends)
    Block* next;
  };
  struct ByStreamSizeAddress {
    bool operator()(const Block* a, const Block* b) const {
      return std::make_tuple(a->stream, a->size, a->ptr) < std::make_tuple(b->stream, b->size, b->ptr);
    }
  };
  using FreeSet = std::set<Block*, ByStreamSizeAddress>;

  // `right` (the block after `left` in their segment) joins `left`; returns `left`.
  static Block* Merge(Block* left, Block* right) {
    left->size += right->size;
    left->next = right->next;
    if (right->next) right->next->prev = left;
    delete right;
    return left;
  }

  static Block* BestFit(const FreeSet& pool, size_t size, uintptr_t stream) {
    Block key{nullptr, size, stream, false, false, nullptr, nullptr};
    auto it = pool.lower_bound(&key);
    return it == pool.end() || (*it)->stream != stream ? nullptr : *it;
  }

  // The smallest wholly free segment of another stream that holds `size`, taken out of `pool`
  // and given to `stream` once move_ has ordered `stream` after its old one; else null.
  Block* MoveFreeSegment(FreeSet& pool, size_t size, uintptr_t stream) {
    if (!move_) return nullptr;
    Block* best = nullptr;
    for (Block* b : pool)
      if (b->stream != stream && !b->prev && !b->next && b->size >= size && (!best || b->size < best->size)) best = b;
    if (!best || !move_(best->stream, stream)) return nullptr;
    pool.erase(best);
    best->stream = stream;
    stats_.stream_moves += 1;
    return best;
  }

  size_t Release(FreeSet& pool) {
    size_t released = 0;
    for (auto it = pool.begin(); it != pool.end();) {
      Block* b = *it;
      if (b->prev || b->next) {  // part of a segment in use
        ++it;
        continue;
      }
      free_(b->ptr);
      released += b->size;
      stats_.reserved -= b->size;
      stats_.segments -= 1;
      stats_.device_frees += 1;
      it = pool.erase(it);
      delete b;
    }
    return released;
  }

  SegmentAlloc alloc_;
  SegmentFree free_;
  SegmentMove move_;
  FreeSet small_free_, large_free_;
  std::unordered_map<void*, Block*> live_;
  BlockPoolStats stats_;
};

}  // namespace phi
