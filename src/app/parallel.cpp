#include "app/parallel.h"

#include <asio.hpp>
#include <exception>
#include <thread>
#include <vector>

namespace rlsim {

unsigned default_jobs() {
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : hardware;
}

void run_parallel(std::size_t count, unsigned threads,
                  const std::function<void(std::size_t)>& job) {
  std::vector<std::exception_ptr> errors(count);
  if (threads <= 1 || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  } else {
    asio::thread_pool pool(threads);
    for (std::size_t i = 0; i < count; ++i) {
      asio::post(pool, [&job, &errors, i] {
        try {
          job(i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
    pool.join();
  }
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace rlsim
