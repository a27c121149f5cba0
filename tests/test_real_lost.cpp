// A real Redis lost in the middle of a run of several strategies (docs/real-redis.md#errors):
// kill -9 of a private redis-server while the second strategy runs. `rlsim run` still writes the
// report of the strategies that finished, with the numbers of a full run, marks the others as not
// run with the reason (the server, the strategy, the virtual time, the error) in the terminal,
// report.json and report.html, and exits 5.
#include <hiredis/hiredis.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/exit_codes.h"
#include "cli_dir.h"
#include "private_redis.h"
#include "real_redis_env.h"

namespace rlsim_test_real_lost {

using namespace rlsim;
using Catch::Matchers::Contains;
using rlsim::testing::CliDir;
using rlsim::testing::read_text_file;

namespace {

// Three strategies of 24,000 requests each, long enough (about a second each) to be caught while
// one runs.
const char* const kScenario = R"({"name": "lost", "seed": 4, "duration": "10m",
  "limits": [{"name": "per_user", "key": "user", "limit": 100, "window": "1m"}],
  "instances": {"count": 2},
  "traffic": [{"name": "t", "users": 20, "rate": "2/s", "arrival": "poisson"}],
  "redis": {"rtt": "0.5ms", "timeout": "50ms"},
  "strategies": ["redis_fixed_window_lua", "redis_gcra", "redis_token_bucket"]})";
const std::vector<std::string> kLabels = {"redis_fixed_window_lua", "redis_gcra",
                                          "redis_token_bucket"};

std::string run_command(const std::string& url, const std::string& out) {
  return "NO_COLOR=1 timeout -s KILL 300 '" RLSIM_BINARY "' run s.json --out " + out + " --redis " +
         url;
}

// Connections the server has accepted so far (INFO stats); -1 when it does not answer.
long connections_received(redisContext* context) {
  auto* reply = static_cast<redisReply*>(redisCommand(context, "INFO stats"));
  if (reply == nullptr) return -1;
  long count = -1;
  const std::string field = "total_connections_received:";
  if (reply->type == REDIS_REPLY_STRING) {
    const std::string info(reply->str, reply->len);
    if (const std::size_t at = info.find(field); at != std::string::npos)
      count = std::stol(info.substr(at + field.size()));
  }
  freeReplyObject(reply);
  return count;
}

}  // namespace

TEST_CASE("kill -9 of the real Redis mid-run: the finished strategies reported, exit 5") {
  if (rlsim::testing::real_redis_port() == 0) return;  // redis-server is installed
  rlsim::testing::PrivateRedis server;
  const CliDir dir("lost", kScenario);

  // The full run, for the numbers the finished strategies must have.
  REQUIRE(dir.shell(run_command(server.url(), "full")) == exit_code::kOk);
  const auto full = nlohmann::json::parse(read_text_file(dir.path / "full" / "report.json"));
  REQUIRE(full["strategies"].size() == kLabels.size());

  // Each strategy's store opens one connection: the second one means the second strategy runs.
  redisContext* watch = redisConnect("127.0.0.1", server.port());
  REQUIRE((watch != nullptr && watch->err == 0));
  const long before = connections_received(watch);
  REQUIRE(before > 0);
  int code = -1;
  std::thread run([&] { code = dir.shell(run_command(server.url(), "cut")); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool second_started = false;
  while (!second_started && std::chrono::steady_clock::now() < deadline) {
    second_started = connections_received(watch) >= before + 2;
    if (!second_started) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  redisFree(watch);
  server.kill9();
  run.join();
  REQUIRE(second_started);
  INFO(dir.err());
  CHECK(code == exit_code::kRedisUnavailable);

  REQUIRE(std::filesystem::exists(dir.path / "cut" / "report.json"));
  const auto cut = nlohmann::json::parse(read_text_file(dir.path / "cut" / "report.json"));
  // The strategies that finished come first, with a full run's numbers; the rest did not run.
  const auto& finished = cut["strategies"];
  const auto& not_run = cut["partial"]["not_run"];
  REQUIRE(finished.size() >= 1);
  REQUIRE(not_run.size() >= 1);
  REQUIRE(finished.size() + not_run.size() == kLabels.size());
  for (std::size_t i = 0; i < finished.size(); ++i) {
    CHECK(finished[i]["label"] == kLabels[i]);
    CHECK(finished[i] == full["strategies"][i]);
  }
  for (std::size_t i = 0; i < not_run.size(); ++i)
    CHECK(not_run[i] == kLabels[finished.size() + i]);
  // The reason names the server, the strategy it was lost during (or before), and the error.
  const std::string reason = cut["partial"]["reason"];
  const std::string first_lost = not_run[0];
  CHECK_THAT(reason, Contains("Redis") && Contains("lost") && Contains("strategy " + first_lost) &&
                         Contains(server.url()) && Contains("Connection refused"));
  CHECK_THAT(dir.err(), Contains(reason));
  CHECK_THAT(dir.out(),
             Contains("PARTIAL REPORT: " + reason) && Contains("not run: " + first_lost));
  const std::string html = read_text_file(dir.path / "cut" / "report.html");
  CHECK_THAT(html, Contains("PARTIAL REPORT") && Contains("not run: " + first_lost));
}

}  // namespace rlsim_test_real_lost
