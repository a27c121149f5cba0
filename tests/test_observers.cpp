// Decision observers (oracle/observer.h): the run tells every observer of every arrival and
// decision, in order, hands each observer's arrival mark back with its decision, and an added
// observer changes no decision.
#include <catch2/catch.hpp>
#include <set>

#include "engine/run.h"
#include "scenario/load.h"

namespace rlsim_test_observers {

using namespace rlsim;

namespace {

const char* const kScenario = R"({
  "name": "observed", "seed": 3, "duration": "2s",
  "limits": [{"name": "per_user", "key": "user", "limit": 10, "window": "1s"}],
  "instances": {"count": 3},
  "traffic": [{"name": "g", "users": 2, "rate": "200/s"}],
  "redis": {"rtt": {"p50": "0.5ms", "p99": "2ms"}, "timeout": "20ms"},
  "strategies": ["redis_fixed_window"]
})";

// Counts arrivals and decisions; marks every other arrival and checks the mark comes back with the
// same request's decision.
class CountingObserver final : public DecisionObserver {
 public:
  explicit CountingObserver(const StrategySession& session) : session_(session) {}

  bool on_arrival(const Request& request) override {
    ++arrivals;
    const bool mark = arrivals % 2 == 0;
    if (mark) marked_.insert(request.id);
    return mark;
  }
  void on_decided(const DecidedRequest& decided) override {
    ++decisions;
    if (decided.outcome.allowed) ++allowed;
    if (decided.arrival_mark != (marked_.erase(decided.request.id) == 1)) ++wrong_marks;
    if (decided.decided_us < decided.request.arrival_us || decided.decided_us < last_us_)
      ++out_of_order;
    last_us_ = decided.decided_us;
    // The oracle is earlier in the list: it has counted this decision already.
    if (session_.totals().offered != decisions) ++oracle_behind;
  }

  std::int64_t arrivals = 0, decisions = 0, allowed = 0, wrong_marks = 0, out_of_order = 0,
               oracle_behind = 0;

 private:
  const StrategySession& session_;
  std::set<std::uint64_t> marked_;
  TimeUs last_us_ = 0;
};

}  // namespace

TEST_CASE("observers: an added observer sees every arrival and decision, in order") {
  const Scenario scenario = parse_scenario(kScenario, "s.json");
  const ResolvedStrategy strategy = resolve_strategies(scenario, "s.json").at(0);
  const StrategyResult plain = run_strategy(scenario, strategy, 3);

  StrategySession session(scenario, strategy, 3);
  CountingObserver counter(session);
  session.add_observer(counter);
  const StrategyResult observed = session.finish();

  CHECK(counter.decisions > 300);
  CHECK(counter.arrivals == counter.decisions);
  CHECK(counter.decisions == observed.totals.offered);
  CHECK(counter.allowed == observed.totals.allowed);
  CHECK(counter.wrong_marks == 0);
  CHECK(counter.out_of_order == 0);
  CHECK(counter.oracle_behind == 0);
  // Observing changes nothing.
  CHECK(observed.decision_digest == plain.decision_digest);
  CHECK(observed.totals.allowed == plain.totals.allowed);
}

}  // namespace rlsim_test_observers
