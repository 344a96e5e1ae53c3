// FreeBlocks: the freed blocks the CPU caching allocator (core.cc) keeps for reuse, by their
// rounded size: a later allocation of exactly that size takes one back. (The GPU allocator
// uses CUDA's stream-ordered memory pools instead: gpu/gpu_context.cu.) Not locked: the
// allocator calls it under its own mutex, and counts the bytes held itself.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

namespace phi {

class FreeBlocks {
 public:
  // A kept block of `size` bytes, taken off the list; null when there is none.
  void* Take(size_t size) {
    auto it = blocks_.find(size);
    if (it == blocks_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    return p;
  }
  void Put(void* p, size_t size) { blocks_[size].push_back(p); }
  // Hands every kept block to release(p), then forgets them all.
  template <typename Release>
  void Clear(Release release) {
    for (auto& [size, list] : blocks_)
      for (void* p : list) release(p);
    blocks_.clear();
  }

 private:
  std::map<size_t, std::vector<void*>> blocks_;
};

}  // namespace phi
