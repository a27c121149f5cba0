#include "app/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "app/exit_codes.h"
#include "app/interrupt.h"
#include "core/rng.h"
#include "engine/commands.h"

namespace rlsim {

namespace {

// `text` as a JSON string, quotes included. Key texts are digits, addresses or endpoint names from
// the scenario: only a name with a quote, a backslash or a control character takes the slow path.
void append_json_string(std::string& out, std::string_view text) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
  });
  if (plain) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  out += nlohmann::json(std::string(text))
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

// A count, or null when unknown (-1).
void append_count(std::string& out, std::int64_t count) {
  if (count < 0) {
    out += "null";
  } else {
    fmt::format_to(std::back_inserter(out), "{}", count);
  }
}

const char* json_bool(bool value) { return value ? "true" : "false"; }

}  // namespace

const char* to_string(TraceError error) {
  switch (error) {
    case TraceError::kNone:
      return "";
    case TraceError::kRedis:
      return "redis";
    case TraceError::kInstanceCrashed:
      return "instance_crashed";
    case TraceError::kNoInstance:
      return "no_instance";
  }
  return "";
}

TraceFormat::TraceFormat(const std::string& label, const std::vector<Limit>& limits)
    : label_(json_string(label)) {
  for (const Limit& limit : limits) limits_.push_back(json_string(limit.name));
}

void TraceFormat::append(const TraceLine& line, std::string& out) const {
  auto it = std::back_inserter(out);
  fmt::format_to(it, R"({{"t_us":{},"strategy":{},"request":{},"instance":)", line.t_us, label_,
                 line.request);
  if (line.instance < 0) {
    out += "null";
  } else {
    fmt::format_to(it, "{}", line.instance);
  }
  fmt::format_to(it, R"(,"limit":{},"key":)", limits_[line.limit_index]);
  append_json_string(out, line.key);
  fmt::format_to(it, R"(,"allowed":{},"denied_by":{},"observed_count":)", json_bool(line.allowed),
                 line.allowed ? "null" : limits_[static_cast<std::size_t>(line.denied_by)]);
  append_count(out, line.observed_count);
  fmt::format_to(it, R"(,"true_count":{},"error":)", line.true_count);
  if (line.error == TraceError::kNone) {
    out += "null";
  } else {
    fmt::format_to(it, R"("{}")", to_string(line.error));
  }
  fmt::format_to(it, R"(,"fallback":{},"false_denial":{},"latency_us":{},"sampled":{}}})",
                 json_bool(line.fallback), json_bool(line.false_denial), line.latency_us,
                 json_bool(line.sampled));
  out += '\n';
}

TraceFile::TraceFile(TraceOptions options, std::ostream& messages)
    : options_(std::move(options)), messages_(messages) {
  RLSIM_CHECK(options_.sample_every >= 1 && options_.max_bytes > 0);
  file_ = std::fopen(options_.path.c_str(), "w");
  if (file_ == nullptr)
    throw RunError(
        fmt::format("cannot open the trace file {}: {}", options_.path, std::strerror(errno)),
        RunErrorKind::kOutput);
  summary_.path = options_.path;
  summary_.sample_every = options_.sample_every;
  summary_.max_bytes = options_.max_bytes;
}

TraceFile::~TraceFile() {
  if (file_ != nullptr) std::fclose(file_);
}

void TraceFile::stop(std::string reason, const std::string& label, TimeUs t_us) {
  summary_.stopped = std::move(reason);
  summary_.stopped_label = label;
  summary_.stopped_at_us = t_us;
  messages_ << fmt::format(
      "rlsim: trace {}: {}; no more lines are written from {} at {:.6f} s on (the run and its "
      "report go on)\n",
      options_.path, summary_.stopped, label, static_cast<double>(t_us) / kUsPerS);
}

void TraceFile::write(const std::string& text, const std::string& label, TimeUs t_us) {
  if (stopped()) return;
  const auto size = static_cast<std::int64_t>(text.size());
  if (summary_.bytes + size > options_.max_bytes) {
    stop(fmt::format("reached its size cap of {} MB (--trace-max-mb) after {} lines",
                     static_cast<double>(options_.max_bytes) / kBytesPerMb, summary_.lines),
         label, t_us);
    return;
  }
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    stop(fmt::format("cannot be written ({}) after {} lines", std::strerror(errno), summary_.lines),
         label, t_us);
    return;
  }
  summary_.bytes += size;
  ++summary_.lines;
}

TraceSummary TraceFile::close() {
  RLSIM_CHECK(file_ != nullptr);
  const bool failed = std::fflush(file_) != 0 || std::ferror(file_) != 0;
  const int error = errno;
  std::fclose(file_);
  file_ = nullptr;
  if (failed && !stopped())
    stop(fmt::format("could not be written to the end ({})", std::strerror(error)), "the end", 0);
  return summary_;
}

TraceObserver::TraceObserver(const Scenario& scenario, const std::string& label,
                             const Oracle& oracle, std::uint64_t seed, TraceFile& file)
    : scenario_(scenario),
      label_(label),
      oracle_(oracle),
      seed_(seed),
      file_(file),
      catalog_(scenario),
      format_(label, scenario.limits) {}

bool TraceObserver::in_sample(std::uint64_t seed, std::uint64_t sample_every, std::uint64_t id) {
  if (sample_every <= 1) return true;
  // A hash of the request id under a key of its own: no random stream of the run is drawn from.
  const std::uint64_t key = mix64(seed ^ mix64(hash_name("trace")));
  return mix64(key ^ mix64(id)) % sample_every == 0;
}

void TraceObserver::on_decided(const DecidedRequest& decided) {
  file_.count_decision();
  if (file_.stopped()) return;
  const Outcome& outcome = decided.outcome;
  const Oracle::LastVerdict& verdict = oracle_.last_verdict();
  const bool sampled = in_sample(seed_, file_.options().sample_every, decided.request.id);
  if (!sampled && !outcome.error && !outcome.fallback && !verdict.false_denial) return;

  TraceLine& line = line_;
  line.t_us = decided.decided_us;
  line.request = decided.request.id;
  line.instance = outcome.instance;
  line.limit_index = verdict.limit_index;
  line.key.clear();
  catalog_.append_key_text(line.key, decided.request, scenario_.limits[verdict.limit_index].key);
  line.allowed = outcome.allowed;
  line.denied_by = outcome.denied_by;
  // Strategies report what they saw for the first limit's key only.
  const std::int64_t seen = outcome.count_seen();
  line.observed_count = verdict.limit_index == 0 ? seen : -1;
  line.true_count = verdict.true_count;
  line.error = !outcome.error           ? TraceError::kNone
               : !outcome.instance_lost ? TraceError::kRedis
               : outcome.instance < 0   ? TraceError::kNoInstance
                                        : TraceError::kInstanceCrashed;
  line.fallback = outcome.fallback;
  line.false_denial = verdict.false_denial;
  line.latency_us = decided.decided_us - decided.request.arrival_us;
  line.sampled = sampled;
  text_.clear();
  format_.append(line, text_);
  file_.write(text_, label_, decided.decided_us);
}

StrategyResult run_strategy_traced(const Scenario& scenario, const ResolvedStrategy& strategy,
                                   std::uint64_t seed, bool twice, TraceFile& file,
                                   std::string& divergence) {
  divergence.clear();
  StrategySession session(scenario, strategy, seed);
  TraceObserver observer(scenario, strategy.label, session.oracle(), seed, file);
  session.add_observer(observer);
  StrategyResult first = finish_interruptible(session, scenario.duration_us);
  // A run stopped by SIGINT, or during which the real Redis was lost, is not compared.
  if (twice && !first.stopped_at_us && !first.redis_lost) {
    const StrategyResult second = run_strategy(scenario, strategy, seed);
    divergence = first_divergence(scenario, first, second);
  }
  return first;
}

}  // namespace rlsim
