#include "redis/lua_heap.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace rlsim {

void* LuaHeap::take(std::size_t size_class) {
  if (FreeBlock* block = free_[size_class]) {
    free_[size_class] = block->next;
    return block;
  }
  const std::size_t bytes = (size_class + 1) * kGranule;
  if (static_cast<std::size_t>(bump_end_ - bump_) < bytes) {
    // A new chunk; what is left of the old one (less than one block of this class) is dropped.
    auto* chunk = new (std::nothrow) std::byte[kChunkBytes];
    if (chunk == nullptr) return nullptr;
    chunks_.emplace_back(chunk);
    bump_ = chunk;
    bump_end_ = chunk + kChunkBytes;
  }
  void* out = bump_;
  bump_ += bytes;
  return out;
}

void* LuaHeap::resize(void* ptr, std::size_t old_size, std::size_t new_size) {
  if (ptr == nullptr) old_size = 0;
  const bool old_small = old_size > 0 && old_size <= kMaxSmall;
  if (new_size <= kMaxSmall) {
    // Within one size class the block already fits.
    if (old_small && class_of(old_size) == class_of(new_size)) return ptr;
    void* out = take(class_of(new_size));
    if (out == nullptr) return nullptr;
    if (old_size > 0) {
      std::memcpy(out, ptr, std::min(old_size, new_size));
      release(ptr, old_size);
    }
    return out;
  }
  if (old_size == 0 || !old_small) return std::realloc(old_size == 0 ? nullptr : ptr, new_size);
  void* out = std::malloc(new_size);
  if (out == nullptr) return nullptr;
  std::memcpy(out, ptr, old_size);
  release(ptr, old_size);
  return out;
}

void LuaHeap::release(void* ptr, std::size_t size) {
  if (ptr == nullptr) return;
  if (size == 0 || size > kMaxSmall) {
    std::free(ptr);
    return;
  }
  auto* block = static_cast<FreeBlock*>(ptr);
  const std::size_t size_class = class_of(size);
  block->next = free_[size_class];
  free_[size_class] = block;
}

}  // namespace rlsim
