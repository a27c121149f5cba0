#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "redis/lua_heap.h"

namespace rlsim_test_lua_heap {

using rlsim::LuaHeap;

namespace {

void fill(void* block, std::size_t size, unsigned char seed) {
  auto* bytes = static_cast<unsigned char*>(block);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(seed + i);
}

bool holds(const void* block, std::size_t size, unsigned char seed) {
  const auto* bytes = static_cast<const unsigned char*>(block);
  for (std::size_t i = 0; i < size; ++i)
    if (bytes[i] != static_cast<unsigned char>(seed + i)) return false;
  return true;
}

}  // namespace

TEST_CASE("LuaHeap keeps a block's contents through every kind of resize") {
  LuaHeap heap;
  // small -> same class, small -> larger class, small -> large (malloc), large -> large, large ->
  // small, and shrinking: the first min(old, new) bytes survive each step.
  const std::size_t sizes[] = {1, 8, 16, 17, 100, 512, 513, 4096, 70000, 300, 24, 3};
  void* block = heap.resize(nullptr, 0, sizes[0]);
  REQUIRE(block != nullptr);
  fill(block, sizes[0], 7);
  for (std::size_t i = 1; i < std::size(sizes); ++i) {
    const std::size_t old_size = sizes[i - 1], new_size = sizes[i];
    block = heap.resize(block, old_size, new_size);
    REQUIRE(block != nullptr);
    CHECK(holds(block, std::min(old_size, new_size), 7));
    fill(block, new_size, 7);
  }
  heap.release(block, sizes[std::size(sizes) - 1]);
  heap.release(nullptr, 0);  // as free(NULL): nothing
}

TEST_CASE("LuaHeap gives aligned, distinct blocks and reuses freed ones") {
  LuaHeap heap;
  std::vector<void*> blocks;
  std::set<void*> seen;
  for (int i = 0; i < 10000; ++i) {  // several 64 KiB chunks' worth
    const std::size_t size = 1 + static_cast<std::size_t>(i % 200);
    void* block = heap.resize(nullptr, 0, size);
    REQUIRE(block != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(block) % 16 == 0);  // doubles and pointers fit
    CHECK(seen.insert(block).second);                          // no block handed out twice
    fill(block, size, static_cast<unsigned char>(i));
    blocks.push_back(block);
  }
  for (int i = 0; i < 10000; ++i) {  // no write ran into a neighbour
    const std::size_t size = 1 + static_cast<std::size_t>(i % 200);
    CHECK(holds(blocks[static_cast<std::size_t>(i)], size, static_cast<unsigned char>(i)));
  }
  // A freed block of a size class is what the next allocation of that class gets.
  heap.release(blocks[5], 6);
  CHECK(heap.resize(nullptr, 0, 16) == blocks[5]);
  // Growing within the class (17..32 bytes) keeps the block in place.
  void* grown = heap.resize(blocks[20], 21, 32);
  CHECK(grown == blocks[20]);
}

}  // namespace rlsim_test_lua_heap
