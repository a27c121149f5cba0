#include "core/frame_pool.h"

#include <new>
#include <vector>

namespace rlsim::frame_pool {
namespace {

constexpr std::size_t kGranule = 64;
constexpr std::size_t kClasses = 64;  // frames up to 4 KiB are pooled; larger ones use new/delete

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooling = false;
#else
constexpr bool kPooling = true;
#endif

struct FreeLists {
  std::vector<void*> lists[kClasses];
  ~FreeLists() {
    for (std::size_t c = 0; c < kClasses; ++c) {
      for (void* frame : lists[c]) ::operator delete(frame, (c + 1) * kGranule);
    }
  }
};

FreeLists& free_lists() {
  thread_local FreeLists lists;
  return lists;
}

}  // namespace

void* allocate(std::size_t size) {
  const std::size_t size_class = (size + kGranule - 1) / kGranule - 1;
  if (!kPooling || size_class >= kClasses) return ::operator new(size);
  std::vector<void*>& list = free_lists().lists[size_class];
  if (list.empty()) return ::operator new((size_class + 1) * kGranule);
  void* frame = list.back();
  list.pop_back();
  return frame;
}

void release(void* frame, std::size_t size) noexcept {
  const std::size_t size_class = (size + kGranule - 1) / kGranule - 1;
  if (!kPooling || size_class >= kClasses) {
    ::operator delete(frame, size);
    return;
  }
  std::vector<void*>& list = free_lists().lists[size_class];
  try {
    list.push_back(frame);
  } catch (...) {
    ::operator delete(frame, (size_class + 1) * kGranule);
  }
}

}  // namespace rlsim::frame_pool
