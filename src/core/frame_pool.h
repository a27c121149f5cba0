#pragma once
// Coroutine frames are allocated once per request (every strategy decision is a coroutine), so
// malloc and free would be on the hot path. FramePool keeps freed frames on a free list per size
// class and hands them out again. Memory is bounded by the most frames alive at once (requests in
// flight), not by the number of requests. Single-threaded use per thread (thread_local lists).
// Under ASan the pool is bypassed so that use-after-free is still caught.
#include <cstddef>

namespace rlsim::frame_pool {

// Returns at least `size` bytes aligned for any coroutine frame.
void* allocate(std::size_t size);
// REQUIRES: `frame` came from allocate(size) with the same size.
void release(void* frame, std::size_t size) noexcept;

}  // namespace rlsim::frame_pool
