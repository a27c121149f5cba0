// A Redis server that misbehaves must not crash or hang rlsim (issue 9): a small fake RESP server
// on loopback (a thread, plain sockets) that never answers, answers late, closes the connection
// mid-run, replies with the wrong type or breaks the protocol. RealStore and `rlsim run --redis`
// are run against each mode and must end in bounded time with a clear message or an
// error-counted report and the documented exit code.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/exit_codes.h"
#include "cli_dir.h"
#include "core/sha1.h"
#include "real/real_store.h"
#include "signal_run.h"

namespace rlsim_test_fake_redis {

using namespace rlsim;
using Catch::Contains;
using rlsim::testing::CliDir;
using rlsim::testing::read_text_file;

namespace {

// What the fake server answers to one command (its arguments), or nullopt for no answer at all.
using Responder = std::function<std::optional<std::string>(const std::vector<std::string>&)>;

// Parses one RESP request (an array of bulk strings, as hiredis sends) from the front of
// `buffer`; removes it and returns its arguments, or nullopt when it is not complete yet.
std::optional<std::vector<std::string>> take_request(std::string& buffer) {
  if (buffer.empty() || buffer[0] != '*') return std::nullopt;
  std::size_t at = buffer.find("\r\n");
  if (at == std::string::npos) return std::nullopt;
  const int count = std::atoi(buffer.c_str() + 1);
  std::size_t pos = at + 2;
  std::vector<std::string> args;
  for (int i = 0; i < count; ++i) {
    if (pos >= buffer.size() || buffer[pos] != '$') return std::nullopt;
    at = buffer.find("\r\n", pos);
    if (at == std::string::npos) return std::nullopt;
    const auto length = static_cast<std::size_t>(std::atol(buffer.c_str() + pos + 1));
    pos = at + 2;
    if (pos + length + 2 > buffer.size()) return std::nullopt;
    args.push_back(buffer.substr(pos, length));
    pos += length + 2;
  }
  buffer.erase(0, pos);
  return args;
}

// The fake server: one connection at a time, each served until the client or the responder
// closes it. `close_after` > 0 closes every connection after that many answered commands.
class FakeRedis {
 public:
  FakeRedis(int port, Responder responder, int close_after = 0)
      : port_(port), responder_(std::move(responder)), close_after_(close_after) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listener_ >= 0);
    const int yes = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(listener_, 8) == 0);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeRedis() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }
  FakeRedis(const FakeRedis&) = delete;
  FakeRedis& operator=(const FakeRedis&) = delete;

  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }
  int commands() const { return commands_; }

 private:
  // Waits up to 50 ms for `fd` to be readable (so the thread notices stop_).
  static bool readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 50) > 0;
  }

  void serve() {
    while (!stop_) {
      if (!readable(listener_)) continue;
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      ++connections_;
      serve_connection(fd);
      ::close(fd);
    }
  }

  void serve_connection(int fd) {
    std::string buffer;
    int answered = 0;
    while (!stop_) {
      if (!readable(fd)) continue;
      char chunk[65536];
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n <= 0) return;  // the client closed it
      buffer.append(chunk, static_cast<std::size_t>(n));
      while (auto request = take_request(buffer)) {
        ++commands_;
        const std::optional<std::string> reply = responder_(*request);
        if (!reply) continue;
        if (!reply->empty() && ::write(fd, reply->data(), reply->size()) < 0) return;
        if (close_after_ > 0 && ++answered >= close_after_) return;
      }
    }
  }

  int port_;
  Responder responder_;
  int close_after_;
  int listener_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> commands_{0};
  std::thread thread_;
};

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// A server that answers like Redis for what rlsim's start needs (the PEXPIRETIME probe) and
// `script` to every EVAL / EVALSHA of a strategy (the store's own expiry sweep gets 0).
Responder script_replies(std::string script) {
  auto sweep_sha = std::make_shared<std::string>();
  return [script, sweep_sha](const std::vector<std::string>& args) -> std::optional<std::string> {
    const std::string name = upper(args.at(0));
    if (name == "PEXPIRETIME") return std::string(":-2\r\n");
    if (name == "SCAN") return std::string("*2\r\n$1\r\n0\r\n*0\r\n");
    if (name == "SCRIPT") return script;
    if (name == "EVAL" || name == "EVALSHA") {
      // The store's own expiry sweep (sent before plain commands: a short EVAL ending in
      // "return 0", then by its SHA1) answers 0 as the real one does.
      if (name == "EVAL" && args.at(1).size() < 400 && args.at(1).ends_with("return 0"))
        *sweep_sha = args.size() > 1 ? rlsim::sha1_hex(args.at(1)) : "";
      const bool sweep =
          !sweep_sha->empty() &&
          (name == "EVAL" ? rlsim::sha1_hex(args.at(1)) == *sweep_sha : args.at(1) == *sweep_sha);
      if (sweep) return std::string(":0\r\n");
      return script;
    }
    return std::string(":1\r\n");
  };
}

RealStoreOptions options_for(const FakeRedis& fake, int io_timeout_ms) {
  std::string error;
  auto url = parse_redis_url(fake.url(), error);
  REQUIRE(url);
  RealStoreOptions options{*url, false};
  options.io_timeout_ms = io_timeout_ms;
  return options;
}

// A short scenario: 2 users at 5/s for 10 s of virtual time (about 100 requests), one Lua
// strategy (which fails open on errors by default).
std::string scenario(const std::string& strategy) {
  return R"({"name": "fake", "seed": 3, "duration": "10s",
  "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
  "instances": {"count": 2},
  "traffic": [{"name": "t", "users": 2, "rate": "5/s", "arrival": "poisson"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "service_time": "5us", "timeout": "50ms"},
  "strategies": [)" +
         strategy + "]}";
}

struct CliRun {
  int code = -1;
  double wall_s = 0;
  nlohmann::json report;  // null when no report was written
};

CliRun run_cli(const CliDir& dir, const FakeRedis& fake) {
  const auto start = std::chrono::steady_clock::now();
  CliRun out;
  // The store waits 300 ms for a reply before it treats the connection as failed.
  out.code = dir.shell("RLSIM_REDIS_IO_TIMEOUT_MS=300 NO_COLOR=1 timeout -s KILL 60 '" RLSIM_BINARY
                       "' run s.json --out r --redis " +
                       fake.url());
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (std::filesystem::exists(dir.path / "r" / "report.json"))
    out.report = nlohmann::json::parse(read_text_file(dir.path / "r" / "report.json"));
  return out;
}

const nlohmann::json& backend_of(const CliRun& run) {
  return run.report["strategies"][0]["backend"];
}

}  // namespace

TEST_CASE("fake Redis: the RESP request parser reads what hiredis sends") {
  std::string buffer = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPI";
  const auto first = take_request(buffer);
  REQUIRE(first);
  CHECK(*first == std::vector<std::string>{"GET", "k"});
  CHECK_FALSE(take_request(buffer));  // incomplete: kept
  buffer += "NG\r\n";
  CHECK(*take_request(buffer) == std::vector<std::string>{"PING"});
  CHECK(buffer.empty());
}

TEST_CASE("a server that never answers: exit 5 at the start, within the timeout") {
  const FakeRedis fake(6410, [](const auto&) { return std::nullopt; });
  const CliDir dir("fake-silent", scenario(R"("redis_fixed_window_lua")"));
  const CliRun run = run_cli(dir, fake);
  INFO(dir.err());
  CHECK(run.code == exit_code::kRedisUnavailable);
  CHECK(run.wall_s < 20);
  CHECK_THAT(dir.err(), Contains("cannot use Redis at redis://127.0.0.1:6410"));
  CHECK_THAT(dir.err(), Contains("no reply within 300 ms"));
}

TEST_CASE("a server that stops answering mid-run: errors counted, the store gives up, no hang") {
  std::atomic<int> calls{0};
  const FakeRedis fake(6411,
                       [&](const std::vector<std::string>& args) -> std::optional<std::string> {
                         if (upper(args.at(0)) == "PEXPIRETIME") return std::string(":-2\r\n");
                         if (++calls > 10) return std::nullopt;  // silent from the 11th command on
                         return std::string(":1\r\n");
                       });
  const CliDir dir("fake-stall", scenario(R"("redis_fixed_window_lua")"));
  const CliRun run = run_cli(dir, fake);
  INFO(dir.err());
  REQUIRE(run.code == exit_code::kOk);
  CHECK(run.wall_s < 20);
  REQUIRE(run.report.is_object());
  const auto& strategy = run.report["strategies"][0];
  CHECK(strategy["errors"].get<int>() > 0);
  CHECK(backend_of(run)["failed"] == true);
  CHECK_THAT(backend_of(run)["failure"].get<std::string>(), Contains("no reply within 300 ms"));
  CHECK(backend_of(run)["calls_failed"].get<int>() > 0);
  CHECK_THAT(dir.out(), Contains("backend"));
}

TEST_CASE("a slow server: every reply late in wall time, the same virtual-time run, no errors") {
  const FakeRedis fake(6412, [](const std::vector<std::string>& args) {
    std::this_thread::sleep_for(std::chrono::milliseconds(
        upper(args.at(0)) == "EVAL" || upper(args.at(0)) == "EVALSHA" ? 5 : 0));
    return script_replies(":1\r\n")(args);
  });
  const CliDir dir("fake-slow", scenario(R"("redis_fixed_window_lua")"));
  const CliRun run = run_cli(dir, fake);
  INFO(dir.err());
  REQUIRE(run.code == exit_code::kOk);
  const auto& strategy = run.report["strategies"][0];
  CHECK(strategy["errors"] == 0);
  CHECK(strategy["allowed"] == strategy["offered"]);
  CHECK(backend_of(run)["failed"] == false);
}

TEST_CASE("a server that closes the connection mid-run: reconnects, errors counted, report") {
  const FakeRedis fake(6413, script_replies(":1\r\n"), 25);
  const CliDir dir("fake-close", scenario(R"("redis_fixed_window_lua")"));
  const CliRun run = run_cli(dir, fake);
  INFO(dir.err());
  REQUIRE(run.code == exit_code::kOk);
  CHECK(run.wall_s < 20);
  const auto& strategy = run.report["strategies"][0];
  CHECK(strategy["errors"].get<int>() > 0);
  CHECK(strategy["errors"].get<int>() < strategy["offered"].get<int>());
  CHECK(backend_of(run)["failed"] == true);
  CHECK(backend_of(run)["reconnects"].get<int>() > 0);
  CHECK(fake.connections() > 1);
}

TEST_CASE("wrong reply types: a bulk string or an array where a count is expected") {
  for (const char* reply : {"$3\r\nabc\r\n", "*2\r\n:1\r\n:2\r\n", "+OK\r\n", "$-1\r\n"}) {
    INFO(reply);
    const FakeRedis fake(6414, script_replies(reply));
    for (const char* strategy :
         {R"("redis_fixed_window_lua")", R"("redis_gcra")", R"("redis_sliding_log")",
          R"("local_budget")",
          R"({"name": "redis_fixed_window_lua", "label": "closed", "on_error": "fail_closed"})"}) {
      INFO(strategy);
      const CliDir dir("fake-type", scenario(strategy));
      const CliRun run = run_cli(dir, fake);
      INFO(dir.err());
      // Never a crash, never the script-error exit (the built-in scripts are not the user's): a
      // report whose every decision is counted as an error.
      REQUIRE(run.code == exit_code::kOk);
      const auto& s = run.report["strategies"][0];
      CHECK(s["errors"] == s["offered"]);
    }
  }
}

TEST_CASE("wrong reply types to plain commands: errors, and on_error decides") {
  for (const char* reply : {"$1\r\n7\r\n", "*1\r\n:1\r\n", "+OK\r\n", "$-1\r\n"}) {
    INFO(reply);
    // INCR and INCRBY (the counts) answered wrongly; everything else as Redis would.
    const FakeRedis fake(6420, [reply](const std::vector<std::string>& args) {
      const std::string name = upper(args.at(0));
      if (name == "INCR" || name == "INCRBY") return std::optional<std::string>(reply);
      return script_replies(":0\r\n")(args);
    });
    for (const char* strategy :
         {R"("redis_fixed_window")", R"("multi_limit")", R"("sharded_global")",
          R"("token_reservation")",
          R"({"name": "redis_fixed_window", "label": "closed", "on_error": "fail_closed"})"}) {
      INFO(strategy);
      const CliDir dir("fake-plain-type", scenario(strategy));
      const CliRun run = run_cli(dir, fake);
      INFO(dir.err());
      REQUIRE(run.code == exit_code::kOk);
      const auto& s = run.report["strategies"][0];
      CHECK(s["offered"].get<int>() > 0);
      CHECK(s["errors"] == s["offered"]);
      // fail_open (the default) admits every request, fail_closed none: not a count of 0.
      CHECK(s["allowed"] == (s["label"] == "closed" ? nlohmann::json(0) : s["offered"]));
    }
  }
}

TEST_CASE("a RESP error to every script: counted as errors, or the script-error exit") {
  const FakeRedis fake(6415, script_replies("-ERR something is wrong\r\n"));
  const CliDir dir("fake-error", scenario(R"("redis_fixed_window_lua")"));
  const CliRun run = run_cli(dir, fake);
  INFO(dir.err());
  REQUIRE(run.code == exit_code::kOk);
  const auto& s = run.report["strategies"][0];
  CHECK(s["errors"] == s["offered"]);
  CHECK(s["allowed"] == s["offered"]);  // fail_open, the default on_error
  CHECK(s["strategy_metrics"]["script_errors"] == s["offered"]);

  // SCRIPT LOAD answered with an error: the reply is the server's, and the script is not cached.
  RealStore store(options_for(fake, 300));
  const Reply load = store.run({"SCRIPT", "LOAD", "return 1"}, 0);
  CHECK(load.is_error());
  CHECK(store.run({"EVALSHA", load.text, "0"}, 0).text.starts_with("NOSCRIPT"));
  CHECK(store.run({"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"}, 0)
            .elements.at(0)
            .integer == 0);
}

TEST_CASE("a malformed protocol line: the connection fails, errors counted, no crash") {
  const FakeRedis fake(6416, script_replies("?what is this\r\n"));
  const CliDir dir("fake-garbage", scenario(R"("redis_fixed_window_lua")"));
  const CliRun run = run_cli(dir, fake);
  INFO(dir.err());
  REQUIRE(run.code == exit_code::kOk);
  CHECK(run.wall_s < 20);
  const auto& s = run.report["strategies"][0];
  CHECK(s["errors"] == s["offered"]);
  CHECK(backend_of(run)["failed"] == true);
  CHECK_THAT(backend_of(run)["failure"].get<std::string>(), Contains("rotocol"));
}

TEST_CASE("RealStore against wrong replies to its own commands (SCAN, PEXPIRETIME, probe)") {
  SECTION("the start-up probe answered with a string: exit-5 error naming Redis 7.0") {
    const FakeRedis fake(6417, [](const auto&) { return std::string("+PONG\r\n"); });
    CHECK_THROWS_WITH(RealStore(options_for(fake, 300)), Contains("Redis 7.0"));
  }
  SECTION("SCAN with integers where strings belong, and a non-array key list") {
    for (const char* scan : {"*2\r\n:5\r\n*1\r\n:7\r\n", "*2\r\n$1\r\n0\r\n:3\r\n",
                             "*2\r\n$1\r\n0\r\n*2\r\n$1\r\nk\r\n*0\r\n", "*1\r\n$1\r\n0\r\n"}) {
      INFO(scan);
      const FakeRedis fake(6418, [scan](const std::vector<std::string>& args) {
        if (upper(args.at(0)) == "SCAN") return std::optional<std::string>(scan);
        return script_replies(":-2\r\n")(args);
      });
      RealStore store(options_for(fake, 300));
      CHECK(store.run({"INCR", "k"}, 0).integer == 1);
      CHECK(store.key_count() <= 1);
      CHECK(store.delete_own_keys() <= 1);
    }
  }
}

TEST_CASE("Ctrl-C twice while rlsim waits on a silent server: exit 130 at once") {
  const FakeRedis fake(6419,
                       [](const std::vector<std::string>& args) -> std::optional<std::string> {
                         if (upper(args.at(0)) == "PEXPIRETIME") return std::string(":-2\r\n");
                         return std::nullopt;  // then silent: rlsim blocks on its first reply
                       });
  const CliDir dir("fake-sigint", scenario(R"("redis_fixed_window_lua")"));
  ::setenv("RLSIM_REDIS_IO_TIMEOUT_MS", "30000", 1);
  const rlsim::testing::Exit exit =
      rlsim::testing::interrupt_rlsim(dir, {"run", "s.json", "--out", "r", "--redis", fake.url()},
                                      std::chrono::milliseconds(1500), 2);
  ::unsetenv("RLSIM_REDIS_IO_TIMEOUT_MS");
  INFO(dir.err());
  REQUIRE(exit.exited);
  CHECK(exit.code == exit_code::kInterrupted);
  CHECK(exit.wall_s < 5);  // not the 30 s the read would wait
  CHECK_THAT(dir.err(), Contains("interrupted again: exiting without a report"));
  CHECK_FALSE(std::filesystem::exists(dir.path / "r" / "report.json"));
}

}  // namespace rlsim_test_fake_redis
