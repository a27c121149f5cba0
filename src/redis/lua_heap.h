#pragma once
// The memory behind the embedded Lua state. Lua allocates and frees a small block for almost
// every value a script makes (each new string, each table and its parts), and glibc's malloc /
// free were about a tenth of a rate-limit script's cost. Small blocks come from per-size free
// lists carved out of large chunks instead, so that most allocations are a pop and most frees a
// push; larger blocks go to malloc. Freed small blocks stay in the heap for reuse until the heap
// is destroyed (with its Lua state). The memory cap and its accounting stay in LuaEngine, by the
// sizes Lua asks for, so this changes no script's behaviour.
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

namespace rlsim {

class LuaHeap {
 public:
  LuaHeap() = default;
  LuaHeap(const LuaHeap&) = delete;
  LuaHeap& operator=(const LuaHeap&) = delete;

  // As C's realloc for Lua's allocator contract: `ptr` null (with `old_size` 0) allocates,
  // otherwise the block of `old_size` bytes is resized to `new_size` (> 0) and its contents kept
  // up to the smaller size. nullptr when memory is exhausted; `ptr` is then untouched.
  void* resize(void* ptr, std::size_t old_size, std::size_t new_size);
  // Frees a block of `size` bytes (null: nothing).
  void release(void* ptr, std::size_t size);

 private:
  // Sizes up to kMaxSmall bytes, rounded up to kGranule (which keeps every block aligned for any
  // Lua value: doubles and pointers).
  static constexpr std::size_t kGranule = 16;
  static constexpr std::size_t kMaxSmall = 512;
  static constexpr std::size_t kClasses = kMaxSmall / kGranule;
  static constexpr std::size_t kChunkBytes = 64 * 1024;

  static std::size_t class_of(std::size_t size) { return (size - 1) / kGranule; }
  void* take(std::size_t size_class);

  struct FreeBlock {
    FreeBlock* next;
  };
  std::array<FreeBlock*, kClasses> free_{};
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::byte* bump_ = nullptr;  // the unused rest of the newest chunk
  std::byte* bump_end_ = nullptr;
};

}  // namespace rlsim
