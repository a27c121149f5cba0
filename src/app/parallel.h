#pragma once
// Runs independent jobs on a small thread pool (standalone asio). Each job is one whole
// simulation run, single-threaded and deterministic; jobs write only their own result slot, so
// the results do not depend on the number of threads or the order in which jobs finish.
#include <cstddef>
#include <functional>

namespace rlsim {

// The default worker count: the machine's hardware threads (at least 1).
unsigned default_jobs();

// Calls job(0) .. job(count - 1), on `threads` worker threads (1: in the calling thread, in
// order). Waits for every job. If jobs throw, the exception of the lowest-numbered failing job is
// rethrown (the same one whatever the thread count); jobs after a failure still run.
void run_parallel(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& job);

}  // namespace rlsim
