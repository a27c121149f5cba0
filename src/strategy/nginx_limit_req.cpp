// nginx_limit_req: nginx's limit_req module (src/http/modules/ngx_http_limit_req_module.c, nginx
// 1.22), as its source computes it: a leaky bucket per key in integer milli-requests ("excess"),
// drained at the zone's rate on nginx's millisecond monotonic clock (ngx_current_msec), one
// zone per limit_req_zone in the shared memory of one nginx (its workers share it), separate
// between nginx instances: N nginx instances admit N x the rate. burst, nodelay and delay=N are
// the directive's; a request over `delay` waits (added latency) before it is admitted.
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <coroutine>
#include <unordered_map>

#include "strategy/registry.h"

namespace rlsim {
namespace {

// The rate of limit_req_zone in nginx's unit, milli-requests per second (ctx->rate = rate * 1000
// / scale, scale 1 for r/s and 60 for r/m: integer division, 1r/m is 16 milli-requests a
// second). nullopt when `text` is not "<positive integer>r/s" or "...r/m" (at most 1000000, so
// that rate * ms stays far inside 64 bits).
std::optional<std::int64_t> parse_nginx_rate(const std::string& text) {
  if (text.size() < 4) return std::nullopt;
  const std::string unit = text.substr(text.size() - 3);
  if (unit != "r/s" && unit != "r/m") return std::nullopt;
  std::int64_t rate = 0;
  const char* end = text.data() + text.size() - 3;
  const auto [ptr, ec] = std::from_chars(text.data(), end, rate);
  if (ec != std::errc() || ptr != end || rate <= 0 || rate > 1'000'000) return std::nullopt;
  return rate * 1000 / (unit == "r/m" ? 60 : 1);
}

// limit_req_zone's rate and limit_req's burst / delay, in nginx's units (milli-requests).
struct NginxParams {
  std::optional<std::int64_t> rate_milli_per_s;  // nullopt: each limit's limit per window
  std::int64_t burst_milli = 0;                  // burst * 1000
  std::int64_t delay_milli = 0;                  // delay * 1000; nodelay: no delay at all
  bool nodelay = false;

  // ctx->rate for `limit`: the given rate, or the limit per window in milli-requests a second.
  std::int64_t rate_for(const Limit& limit) const {
    if (rate_milli_per_s) return *rate_milli_per_s;
    return std::max<std::int64_t>(1, limit.limit * 1000 * kUsPerS / limit.window_us);
  }
};

NginxParams parse_nginx_params(const ParamReader& params) {
  NginxParams out;
  const std::string& rate = params.string("rate");
  if (!rate.empty()) out.rate_milli_per_s = parse_nginx_rate(rate);
  out.burst_milli = params.integer("burst") * 1000;
  out.delay_milli = params.integer("delay") * 1000;
  out.nodelay = params.boolean("nodelay");
  return out;
}

// Resumes the awaiting coroutine at a later virtual time: a delayed request's wait.
struct WaitUntil {
  Simulator& sim;
  TimeUs at_us;
  bool await_ready() const noexcept { return at_us <= sim.now(); }
  void await_suspend(std::coroutine_handle<> handle) const { sim.resume_at(at_us, handle); }
  void await_resume() const noexcept {}
};

class NginxLimitReq final : public Strategy {
 public:
  explicit NginxLimitReq(StrategyEnv env)
      : env_(std::move(env)), params_(parse_nginx_params(ParamReader(env_.params))) {
    for (const Limit& limit : env_.limits) rates_.push_back(params_.rate_for(limit));
  }

  Task<Decision> decide(Request request, const Instance& instance) override {
    const auto [decision, delay_ms] = decide_now(request, instance);
    if (delay_ms > 0) {
      ++delayed_;
      co_await WaitUntil{env_.sim, env_.sim.now() + delay_ms * kUsPerMs};
    }
    co_return decision;
  }

  // One nginx's zones live in its shared memory: gone with the process, empty in a new one.
  void on_instance_start(const Instance& instance) override {
    if (zones_.size() <= instance.id) zones_.resize(instance.id + 1);
    zones_[instance.id].assign(env_.limits.size(), {});
  }
  void on_instance_stop(const Instance& instance) override { zones_[instance.id] = {}; }

  void write_metrics(nlohmann::ordered_json& out) const override {
    out["delayed_requests"] = delayed_;
  }

 private:
  // ngx_http_limit_req_node_t's two numbers.
  struct Node {
    std::int64_t excess = 0;   // milli-requests above the drained level
    std::int64_t last_ms = 0;  // ngx_current_msec of the last accounted request
    // Never accounted: a new node, or one created by a directive before the one that rejected
    // (nginx leaves it at last = 0, which reads as drained).
    bool fresh = true;
  };
  using Zone = std::unordered_map<std::uint64_t, Node>;  // key id -> node

  // now - last as nginx clamps it: a clock gone back a little counts as no time, more than a
  // minute back as 1 ms.
  static std::int64_t elapsed_ms(const Node& node, std::int64_t now_ms) {
    const std::int64_t ms = now_ms - node.last_ms;
    if (ms < -60000) return 1;
    return std::max<std::int64_t>(ms, 0);
  }

  // The excess a request at `now_ms` would leave on `node` (ngx_http_limit_req_lookup /
  // _account): drained by rate * ms / 1000 (integer), plus this request's 1000.
  static std::int64_t excess_at(const Node& node, std::int64_t rate, std::int64_t now_ms) {
    if (node.fresh) return 0;
    return std::max<std::int64_t>(0, node.excess - rate * elapsed_ms(node, now_ms) / 1000 + 1000);
  }

  // The handler's loop over the limit_req directives (one per limit, in order): the first whose
  // excess passes burst rejects, and nothing is written; else every zone keeps its new excess
  // and the request waits for the largest (excess - delay) / rate. A key's first request creates
  // its node at excess 0.
  std::pair<Decision, std::int64_t> decide_now(const Request& request, const Instance& instance) {
    const std::int64_t now_ms = instance.monotonic_us(env_.sim.now()) / kUsPerMs;
    auto& zones = zones_[instance.id];
    std::array<std::int64_t, ScenarioBounds::kMaxLimits> excess{};
    std::array<Node*, ScenarioBounds::kMaxLimits> nodes{};
    Decision decision;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      nodes[i] = &zones[i][Catalog::key_id(request, env_.limits[i].key)];
      excess[i] = excess_at(*nodes[i], rates_[i], now_ms);
      if (i == 0) decision.counted_before = excess[i] / 1000;
      if (excess[i] > params_.burst_milli) {
        decision.deny_for(i);
        return {decision, 0};
      }
    }
    std::int64_t delay_ms = 0;
    for (std::size_t i = 0; i < env_.limits.size(); ++i) {
      // nginx moves `last` only when time counted ("if (ms) lr->last = now").
      if (nodes[i]->fresh || elapsed_ms(*nodes[i], now_ms) != 0) nodes[i]->last_ms = now_ms;
      nodes[i]->excess = excess[i];
      nodes[i]->fresh = false;
      if (params_.nodelay || excess[i] <= params_.delay_milli) continue;
      delay_ms = std::max(delay_ms, (excess[i] - params_.delay_milli) * 1000 / rates_[i]);
    }
    return {decision, delay_ms};
  }

  StrategyEnv env_;
  NginxParams params_;
  std::vector<std::int64_t> rates_;       // ctx->rate per limit, milli-requests a second
  std::vector<std::vector<Zone>> zones_;  // [instance id][limit index]
  std::int64_t delayed_ = 0;              // admitted after a wait
};

BucketShape nginx_shape(const ParamReader& params, const Limit& limit) {
  const NginxParams parsed = parse_nginx_params(params);
  // burst_milli is burst * 1000: exact.
  return {static_cast<double>(parsed.burst_milli) / 1000 + 1,
          static_cast<double>(parsed.rate_for(limit)) / 1000};
}

bool check_nginx(const ParamReader& params, const std::string&, std::string& field,
                 std::string& error) {
  const std::string& rate = params.string("rate");
  if (!rate.empty() && !parse_nginx_rate(rate)) {
    field = "rate";
    error = fmt::format(
        "expected nginx's rate, a positive integer then r/s or r/m (\"10r/s\"), "
        "got \"{}\"",
        rate);
    return false;
  }
  if (params.boolean("nodelay") && params.integer("delay") > 0) {
    field = "delay";
    error = "expected delay or nodelay, not both (nginx keeps the last one given)";
    return false;
  }
  return true;
}

StrategyInfo declare_nginx_limit_req() {
  StrategyInfo info{
      "nginx_limit_req",
      "nginx's limit_req: a leaky bucket in milli-requests per nginx instance (N nginx admit N x "
      "the rate), with burst, nodelay and delay",
      "Models ngx_http_limit_req_module.c (nginx 1.22) as its source computes it. Each limit is "
      "one limit_req_zone with its limit_req directive; the zone lives in the shared memory of "
      "one nginx (its worker processes share it) and never leaves it: each instance is an nginx "
      "with zones of its own, so N instances behind a balancer admit N x the rate. Per key the "
      "zone keeps `excess` in milli-requests and the millisecond of the last request on nginx's "
      "monotonic clock. A request at `now` computes excess - rate * (now - last) / 1000 + 1000 "
      "(integer arithmetic, rate in milli-requests a second: 10r/s is 10000, 1r/m is 16), floored "
      "at 0; above burst * 1000 it is rejected and nothing changes, else the excess is stored. A "
      "key's first request starts at excess 0, so burst + 1 requests pass at once. With several "
      "limits the first that rejects decides and the others keep their state. An admitted "
      "request whose excess passes delay * 1000 waits (excess - delay * 1000) / rate seconds "
      "before it goes on (added latency; delay defaults to 0: every request above the rate "
      "waits); nodelay never waits. Simplified: no zone size and no eviction (nginx drops up to "
      "two nodes idle for 60 s whose excess has drained to 0 when it creates a node; a dropped "
      "node's next request starts at 0, where the model's kept node can still hold up to 1000 "
      "when 60 s drain little, at rates of a few per minute), never the 'could not allocate "
      "node' error; no dry_run; ngx_current_msec is read per request (nginx caches it once per "
      "event-loop iteration).",
      {param("rate", ParamType::kString, "",
             "limit_req_zone's rate, \"10r/s\" or \"30r/m\" (default: each limit's limit per "
             "window)"),
       param("burst", ParamType::kInt, 0, "limit_req's burst: requests above the rate queued"),
       param("nodelay", ParamType::kBool, false, "limit_req's nodelay: burst requests never wait"),
       param("delay", ParamType::kInt, 0,
             "limit_req's delay=N: the first N requests of a burst do not wait (0: all wait)")},
      Algorithm::kGcra,
      construct<NginxLimitReq>,
      nginx_shape,
      check_nginx};
  info.per_instance_limit = true;
  return info;
}

const StrategyRegistration kNginxLimitReqRegistration(290, declare_nginx_limit_req);

}  // namespace
}  // namespace rlsim
