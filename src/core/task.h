#pragma once
// Task<T>: a lazily started coroutine that produces a T. A strategy's decision is a Task so that it
// can co_await Redis replies in virtual time and still read top to bottom like the lesson's code.
//
// Ownership: the Task object owns the frame until it is either co_awaited (the awaiting coroutine
// resumes when it finishes) or handed to start_detached (the frame destroys itself after calling
// the completion callback).
#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

#include "core/check.h"
#include "core/frame_pool.h"

namespace rlsim {

template <typename T>
class Task {
 public:
  using Callback = void (*)(void* context, T&& value);

  struct promise_type {
    std::optional<T> value;
    std::coroutine_handle<> continuation;
    Callback on_done = nullptr;
    void* on_done_context = nullptr;

    // Frames come from a free list: one is made per request, malloc would be on the hot path.
    static void* operator new(std::size_t size) { return frame_pool::allocate(size); }
    static void operator delete(void* frame, std::size_t size) noexcept {
      frame_pool::release(frame, size);
    }

    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    struct FinalAwaiter {
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> self) noexcept {
        promise_type& promise = self.promise();
        if (promise.continuation) return promise.continuation;
        // Detached: report the value, then free the frame (legal: the coroutine is suspended).
        promise.on_done(promise.on_done_context, std::move(*promise.value));
        self.destroy();
        return std::noop_coroutine();
      }
      void await_resume() noexcept {}
    };
    FinalAwaiter final_suspend() noexcept { return {}; }
    void return_value(T v) { value.emplace(std::move(v)); }
    void unhandled_exception() { std::terminate(); }
  };

  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  // Awaiting a Task runs it; the awaiting coroutine resumes when it returns.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  T await_resume() { return std::move(*handle_.promise().value); }

  // Starts the task; `on_done(context, value)` is called when it finishes (possibly before this
  // returns, if the task never suspends). The frame frees itself afterwards.
  void start_detached(Callback on_done, void* context) && {
    RLSIM_CHECK(handle_ && on_done != nullptr);
    handle_.promise().on_done = on_done;
    handle_.promise().on_done_context = context;
    std::exchange(handle_, {}).resume();
  }

 private:
  explicit Task(std::coroutine_handle<promise_type> handle) : handle_(handle) {}
  std::coroutine_handle<promise_type> handle_;
};

}  // namespace rlsim
