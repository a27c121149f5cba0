// Replies of the wrong type to the strategies that read plain commands (not a script): a store
// that runs every command on the embedded Redis but hands back a made-up reply for one command
// name. Such a reply is a failed Redis call (strategy/reply_check.h): the decision counts an error
// and the failure policy (on_error, breaker) decides, never a count read as 0.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "redis/mock_store.h"
#include "strategy_harness.h"

namespace rlsim_test_strategy_bad_replies {

using namespace rlsim;
using rlsim::testing::StrategyHarness;

namespace {

// Runs commands on a MockStore; the reply to every command named `name` is replaced.
class TamperingStore final : public DataStore {
 public:
  TamperingStore(std::string name, Reply replacement)
      : name_(std::move(name)), replacement_(std::move(replacement)) {}

  void execute(std::span<const Command> commands, TimeUs server_now_us,
               std::vector<Reply>& replies) override {
    const std::size_t first = replies.size();
    inner_.execute(commands, server_now_us, replies);
    for (std::size_t i = 0; i < commands.size(); ++i) {
      if (commands[i].front() != name_) continue;
      replies[first + i] = replacement_;
      ++replaced_;
    }
  }
  std::size_t key_count() const override { return inner_.key_count(); }
  void lose_data() override { inner_.lose_data(); }
  int replaced() const { return replaced_; }

 private:
  MockStore inner_;
  std::string name_;
  Reply replacement_;
  int replaced_ = 0;
};

const char* kUser5 = R"({"name": "per_user", "key": "user", "limit": 5, "window": "1m"})";
const char* kGlobal5 = R"({"name": "global", "key": "global", "limit": 5, "window": "1m"})";

// `strategy` with `extra` fields: {"name": "x", "on_error": ...}.
std::string entry(const std::string& name, const std::string& extra) {
  return R"({"name": ")" + name + "\"" + (extra.empty() ? "" : ", " + extra) + "}";
}

struct Case {
  const char* strategy;
  const char* params;  // besides on_error
  const char* limit;
  const char* command;  // whose replies are replaced
};

// Every non-script Redis strategy, at the command whose reply it decides on.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"redis_fixed_window", "", kUser5, "INCR"},
      {"multi_limit", "", kUser5, "INCR"},
      {"multi_limit", R"("pipelined": false)", kUser5, "INCR"},
      {"sharded_global", "", kGlobal5, "INCR"},
      {"sharded_global", "", kGlobal5, "MGET"},
      {"sharded_global", R"("hash_tags": true)", kGlobal5, "GET"},
      {"sharded_global", R"("read": "after_incr")", kGlobal5, "MGET"},
      {"token_reservation", R"("batch": 2)", kUser5, "INCRBY"},
      {"local_budget", R"("batch": 2)", kUser5, "EVALSHA"},
  };
  return all;
}

// Replies no such command returns (the integer 7 is wrong only where a bulk string belongs).
std::vector<Reply> wrong_replies(const std::string& command) {
  std::vector<Reply> out = {Reply::status("OK"), Reply::array({Reply::from_integer(1)})};
  if (command == "GET" || command == "MGET") {
    out.push_back(Reply::from_integer(7));
    out.push_back(Reply::bulk("abc"));
    if (command == "MGET") {
      out.push_back(Reply::array({Reply::bulk("abc")}));  // not a count, and too few values
      out.push_back(Reply::nil());
    }
  } else {
    out.push_back(Reply::bulk("7"));  // a count, but as a string: INCR never answers that
    out.push_back(Reply::nil());
  }
  return out;
}

std::string params_with(const Case& c, const std::string& more) {
  std::string params = c.params;
  if (!more.empty()) params += (params.empty() ? "" : ", ") + more;
  return params;
}

}  // namespace

TEST_CASE("a reply of the wrong type is a Redis error, and on_error decides") {
  for (const Case& c : cases()) {
    for (const Reply& wrong : wrong_replies(c.command)) {
      for (const char* policy : {"fail_open", "fail_closed"}) {
        INFO(c.strategy << " " << c.params << ": " << c.command << " answered " << to_display(wrong)
                        << ", " << policy);
        TamperingStore store(c.command, wrong);
        const std::string on_error = std::string(R"("on_error": ")") + policy + "\"";
        StrategyHarness h(c.limit, entry(c.strategy, params_with(c, on_error)), {0}, 1000, 50'000,
                          ".", &store);
        // Eight requests of one user, over the limit of 5 had they been counted.
        for (int i = 0; i < 8; ++i) h.request(i * 100'000);
        const std::vector<Decision> decisions = h.run();
        CHECK(store.replaced() > 0);
        CHECK(h.strategy().fatal_error().empty());  // never the script-error exit
        for (const Decision& d : decisions) {
          CHECK(d.error);
          CHECK(d.allowed == (std::string(policy) == "fail_open"));
        }
      }
    }
  }
}

TEST_CASE("wrong reply types open the circuit breaker like errors do") {
  // Six requests; the replies replaced per decision, measured without a breaker first.
  const auto replaced = [](const Case& c, const std::string& extra) {
    TamperingStore store(c.command, Reply::status("OK"));
    StrategyHarness h(c.limit, entry(c.strategy, params_with(c, extra)), {0}, 1000, 50'000, ".",
                      &store);
    for (int i = 0; i < 6; ++i) h.request(i * 100'000);
    for (const Decision& d : h.run()) CHECK_FALSE(d.allowed);
    return store.replaced();
  };
  for (const Case& c : cases()) {
    INFO(c.strategy << " " << c.params << ": " << c.command);
    const int without = replaced(c, R"("on_error": "fail_closed")");
    REQUIRE(without % 6 == 0);
    // Two failed decisions open it: the other four do not reach Redis (and are denied).
    CHECK(replaced(c, R"("on_error": "fail_closed", )"
                      R"("breaker": {"failures": 2, "window": "10s", "cooldown": "1h"})") ==
          without / 6 * 2);
  }
}

TEST_CASE("well-typed replies through the tampering store change nothing") {
  // The same harness with the replacement on a command no strategy sends: counts decide.
  TamperingStore store("NO-SUCH-COMMAND", Reply::nil());
  StrategyHarness h(kUser5, entry("redis_fixed_window", ""), {0}, 1000, 50'000, ".", &store);
  for (int i = 0; i < 8; ++i) h.request(i * 100'000);
  CHECK(h.pattern() == "11111000");
  CHECK(store.replaced() == 0);
}

}  // namespace rlsim_test_strategy_bad_replies
