#pragma once
// The rlsim binary started in a CliDir and sent SIGINT (test_sigint, test_fake_redis).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_dir.h"

namespace rlsim::testing {

struct Exit {
  bool exited = false;
  int code = -1;
  double wall_s = 0;  // from SIGINT to exit
};

// Whether process `pid` catches SIGINT (its SigCgt mask in /proc): rlsim installs its handler
// when a run starts (app/interrupt.h), so this says the simulation is under way.
inline bool catches_sigint(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
    return ((mask >> (SIGINT - 1)) & 1ULL) != 0;
  }
  return false;
}

// Starts `rlsim ARGS...` in `dir` (stdout and stderr to .out / .err), waits until it catches
// SIGINT (at most 30 s), sends SIGINT `count` times after `delay` more, and waits at most 60 s for
// it to end (then kills it and reports no exit). Counting the delay from the handler, not from
// fork(), keeps what the run did before the signal the same on a loaded machine.
inline Exit interrupt_rlsim(const CliDir& dir, std::vector<std::string> args,
                            std::chrono::milliseconds delay, int count) {
  // Everything the child needs is built before fork(): the parent may have other threads.
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(RLSIM_BINARY));
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out_path = (dir.path / ".out").string();
  const std::string err_path = (dir.path / ".err").string();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::chdir(dir.path.c_str()) != 0) ::_exit(99);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::dup2(in, 0);
    ::execv(RLSIM_BINARY, argv.data());
    ::_exit(98);
  }
  const auto forked = std::chrono::steady_clock::now();
  while (!catches_sigint(pid) &&
         std::chrono::steady_clock::now() - forked < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(delay);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    ::kill(pid, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Exit result;
  int status = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      result.exited = WIFEXITED(status);
      result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      result.wall_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return result;
}

// A day of traffic (150 requests/s, 4 instances, redis_fixed_window then in_memory): seconds to
// minutes of wall time per run, so SIGINT always comes in the middle of one (test_sigint,
// test_sigint_grid).
inline std::string long_scenario(const std::string& duration) {
  return R"({"name": "long", "seed": 7, "duration": ")" + duration + R"(",
  "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
  "instances": {"count": 4},
  "traffic": [{"name": "t", "users": 50, "rate": "3/s", "arrival": "poisson"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "service_time": "5us", "timeout": "50ms"},
  "strategies": ["redis_fixed_window", "in_memory"],
  "expect": [{"strategy": "redis_fixed_window", "metric": "excess", "equals": 0}]})";
}

}  // namespace rlsim::testing
