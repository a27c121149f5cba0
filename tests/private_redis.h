#pragma once
// A redis-server of the test's own, on a free port, for the real-Redis tests that must stop it in
// ways the shared test server cannot take (kill -9 mid-run, SHUTDOWN NOSAVE after a script that
// cannot be killed). Started only when the shared server is there (RLSIM_REDIS_PORT, so the
// redis-server binary is installed: tests/real_redis_env.h); stopped (kill -9) when it goes away.
#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace rlsim::testing {

// A TCP port nobody listens on now (the kernel's choice for port 0).
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

class PrivateRedis {
 public:
  PrivateRedis() : port_(free_port()) {
    dir_ = std::filesystem::temp_directory_path() /
           ("rlsim-private-redis-" + std::to_string(::getpid()) + "-" + std::to_string(port_));
    std::filesystem::create_directories(dir_);
    const std::string command =
        "redis-server --port " + std::to_string(port_) +
        " --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir '" + dir_.string() +
        "' --pidfile '" + pid_file().string() + "' --logfile '" + (dir_ / "log").string() + "'";
    REQUIRE(std::system(command.c_str()) == 0);
    for (int i = 0; i < 200 && !answers_ping(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(answers_ping());
  }
  ~PrivateRedis() {
    kill9();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PrivateRedis(const PrivateRedis&) = delete;
  PrivateRedis& operator=(const PrivateRedis&) = delete;

  int port() const { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

  // kill -9 of the server (no reply, no shutdown: as a crash), and waits until it is gone.
  void kill9() {
    std::ifstream in(pid_file());
    long pid = 0;
    if (!(in >> pid) || pid <= 0) return;
    const std::string command = "kill -9 " + std::to_string(pid) + " 2>/dev/null";
    [[maybe_unused]] const int status = std::system(command.c_str());
    for (int i = 0; i < 200 && answers_ping(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::error_code ignored;
    std::filesystem::remove(pid_file(), ignored);
  }

  bool answers_ping() const {
    redisContext* context = redisConnect("127.0.0.1", port_);
    bool pong = false;
    if (context != nullptr && context->err == 0) {
      auto* reply = static_cast<redisReply*>(redisCommand(context, "PING"));
      pong = reply != nullptr && reply->type == REDIS_REPLY_STATUS &&
             std::string(reply->str, reply->len) == "PONG";
      if (reply != nullptr) freeReplyObject(reply);
    }
    if (context != nullptr) redisFree(context);
    return pong;
  }

 private:
  std::filesystem::path pid_file() const { return dir_ / "redis.pid"; }

  int port_;
  std::filesystem::path dir_;
};

}  // namespace rlsim::testing
