// Fuzzing the GPU caching allocator's bookkeeping (paddle_ops/core/gpu/block_pool.h) on the
// CPU: a fake device of a fuzzed capacity hands out address ranges that are never touched; the
// input is a sequence of allocations (sizes from 0 to 512 MiB, small ones often), frees and
// releases. After each step: live blocks lie inside held segments and never overlap, each at
// least its request; the counts match the blocks and segments; at the end every segment goes
// back.
#include <map>

#include "paddle_ops/core/gpu/block_pool.h"
#include "unittests/fuzz/fuzz_util.h"

namespace {

using namespace paddle_ops_fuzz;  // NOLINT: the fuzzer's shared vocabulary

void CheckPool(const phi::BlockPool& pool, const std::map<uintptr_t, size_t>& held,
               const std::map<uintptr_t, size_t>& live) {
  size_t reserved = 0, allocated = 0;
  for (const auto& [p, n] : held) reserved += n;
  uintptr_t end_of_last = 0;
  for (const auto& [p, n] : live) {
    if (p < end_of_last) Fail("two live blocks overlap");
    auto seg = held.upper_bound(p);
    if (seg == held.begin()) Fail("a live block outside every segment");
    --seg;
    if (p + phi::BlockPool::RoundSize(n) > seg->first + seg->second) Fail("a live block runs past its segment");
    end_of_last = p + phi::BlockPool::RoundSize(n);
    allocated += phi::BlockPool::RoundSize(n);
  }
  if (pool.stats().reserved != reserved) Fail("reserved differs from the segments held");
  if (pool.stats().segments != held.size()) Fail("segment count differs");
  if (pool.stats().allocated < allocated) Fail("allocated is less than the live blocks");
  if (pool.stats().peak_reserved < reserved || pool.stats().peak_allocated < pool.stats().allocated) {
    Fail("a peak below the present count");
  }
}

void FuzzBlockPool(Fdp& f) {
  std::map<uintptr_t, size_t> held;  // segments of the fake device
  const size_t capacity = size_t{1} << f.ConsumeIntegralInRange<int>(20, 31);
  uintptr_t next = uintptr_t{1} << 32;
  size_t in_use = 0;
  phi::BlockPool pool(
      [&](size_t n) -> void* {
        if (in_use + n > capacity) return nullptr;
        const uintptr_t p = next;
        next += n + (uintptr_t{1} << 20);
        held[p] = n;
        in_use += n;
        return reinterpret_cast<void*>(p);
      },
      [&](void* p) {
        auto it = held.find(reinterpret_cast<uintptr_t>(p));
        if (it == held.end()) Fail("gave back a segment the device did not give");
        in_use -= it->second;
        held.erase(it);
      });
  std::map<uintptr_t, size_t> live;  // block -> the bytes asked for
  std::vector<uintptr_t> order;
  g_case = "block_pool capacity " + std::to_string(capacity);
  for (int step = 0; step < 200 && f.remaining_bytes() > 0; ++step) {
    const int action = f.ConsumeIntegralInRange<int>(0, 9);
    if (action < 6) {
      const int scale = f.ConsumeIntegralInRange<int>(0, 29);
      const size_t bytes = f.ConsumeIntegralInRange<size_t>(0, size_t{1} << scale);
      g_case += " a" + std::to_string(bytes);
      void* p = pool.Allocate(bytes);
      if (!p) {
        if (phi::BlockPool::SegmentSizeFor(phi::BlockPool::RoundSize(bytes)) + in_use <= capacity) {
          Fail("refused although the device had room after giving back the free segments");
        }
        continue;
      }
      const uintptr_t u = reinterpret_cast<uintptr_t>(p);
      if (live.count(u)) Fail("a live block handed out twice");
      live[u] = bytes;
      order.push_back(u);
    } else if (action < 9) {
      if (order.empty()) continue;
      const size_t k = f.ConsumeIntegralInRange<size_t>(0, order.size() - 1);
      g_case += " f" + std::to_string(k);
      pool.Free(reinterpret_cast<void*>(order[k]));
      live.erase(order[k]);
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      g_case += " r";
      pool.ReleaseFreeSegments();
    }
    CheckPool(pool, held, live);
  }
  for (uintptr_t u : order) pool.Free(reinterpret_cast<void*>(u));
  live.clear();
  if (pool.stats().allocated != 0) Fail("bytes still allocated after every block was freed");
  pool.ReleaseFreeSegments();
  if (!held.empty()) Fail("segments still held after every block was freed and the cache released");
}

}  // namespace

REGISTER_FUZZ_OP(block_pool, FuzzBlockPool);
