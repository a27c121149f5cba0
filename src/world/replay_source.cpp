#include "world/replay_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/check.h"

namespace rlsim {
namespace {

constexpr std::int64_t kUsPerSecond = 1'000'000;

}  // namespace

ReplaySource::ReplaySource(Simulator& sim, const TrafficGroup& group, std::uint32_t group_index,
                           Catalog& catalog, std::uint64_t seed, RequestSink& sink,
                           const LogOpener& open)
    : sim_(sim),
      group_(group),
      spec_(*group.replay),
      group_index_(group_index),
      catalog_(catalog),
      sink_(sink),
      spread_rng_(seed, "replay", group_index) {
  result_.group = group.name;
  result_.file = spec_.file;
  std::string error;
  auto stream = open ? open(spec_.file, error) : nullptr;
  if (stream == nullptr) {
    failure_ = fmt::format("cannot read the log \"{}\": {}", spec_.file,
                           error.empty() ? "no opener was given" : error);
    return;
  }
  auto parser = make_line_parser(spec_.log, error);
  RLSIM_CHECK(parser != nullptr);  // the loader checked the format
  reader_ = std::make_unique<LogReader>(std::move(stream), std::move(parser), spec_.max_bad_lines);
  if (!reader_->start()) failure_ = reader_->failure();
}

void ReplaySource::start() {
  RLSIM_CHECK(!started_);
  started_ = true;
  if (!failure_.empty()) return;
  fill();
  if (!pending_.empty()) sim_.schedule(pending_.front().first, this);
}

void ReplaySource::on_event(std::uint64_t) {
  const TimeUs now_us = sim_.now();
  while (!pending_.empty() && pending_.front().first == now_us) {
    const Request request = pending_.front().second;
    pending_.pop_front();
    ++result_.requests;
    sink_.on_request(request);
    if (pending_.empty()) fill();
  }
  if (!pending_.empty()) sim_.schedule(pending_.front().first, this);
}

bool ReplaySource::intern(Names& names, std::string_view name, std::size_t limit, const char* what,
                          std::uint32_t& id) {
  if (const auto it = names.find(name); it != names.end()) {
    id = it->second;
    return true;
  }
  if (names.size() >= limit) {
    failure_ = fmt::format("more than {} distinct {} in the log (line {})", limit, what,
                           line_.line_number);
    return false;
  }
  id = static_cast<std::uint32_t>(names.size());
  names.emplace(std::string(name), id);
  return true;
}

bool ReplaySource::to_request(const LogLine& line, Request& request) {
  constexpr auto kMaxKeys = static_cast<std::size_t>(ScenarioBounds::kMaxUsersPerGroup);
  std::uint32_t user = 0, ip = 0;
  if (!intern(users_, line.value(LogSlot::kUser), kMaxKeys, "users", user)) return false;
  const std::string_view ip_text = line.value(LogSlot::kIp);
  if (ip_text.empty()) {
    ip = user;  // no IP in the log: each user is its own client
  } else if (!intern(ips_, ip_text, kMaxKeys, "IPs", ip)) {
    return false;
  }
  request.user = catalog_.first_user(group_index_) + user;
  request.ip = catalog_.first_ip(group_index_) + ip;
  request.endpoint = catalog_.endpoint_id(group_index_, 0);
  if (const std::string_view endpoint = line.value(LogSlot::kEndpoint); !endpoint.empty()) {
    const auto id = catalog_.intern_endpoint(endpoint);
    if (!id) {
      failure_ = fmt::format("more than {} distinct endpoints in the log (line {})",
                             ScenarioBounds::kMaxReplayEndpoints, line.line_number);
      return false;
    }
    request.endpoint = *id;
  }
  if (const std::string_view instance = line.value(LogSlot::kInstance); !instance.empty()) {
    // A number is the instance's id (start order); any other text names one: the n-th distinct
    // name is instance n.
    std::uint32_t id = 0;
    const auto [end, error] =
        std::from_chars(instance.data(), instance.data() + instance.size(), id);
    const bool number = error == std::errc() && end == instance.data() + instance.size();
    constexpr auto kMaxInstances = static_cast<std::size_t>(ScenarioBounds::kMaxInstances);
    if (!number && !intern(instances_, instance, kMaxInstances, "instance names", id)) return false;
    request.instance = id < kMaxInstances ? id : Request::kAnyInstance;
  }
  if (const std::string_view verdict = line.value(LogSlot::kVerdict); !verdict.empty()) {
    request.logged = logged_denied(verdict, spec_.denied) ? Request::Logged::kDenied
                                                          : Request::Logged::kAdmitted;
  }
  request.group = group_index_;
  request.region = group_.region;
  return true;
}

bool ReplaySource::read_entry(Entry& entry) {
  if (!failure_.empty() || !reader_->next(line_)) {
    if (failure_.empty()) failure_ = reader_->failure();
    return false;
  }
  entry = Entry{line_.time_us, line_.whole_second, Request{}};
  return to_request(line_, entry.request);
}

// The lines of one second of a log with second-resolution times: k lines get the k sorted draws
// of a uniform time in the second, in log order (the arrival times of a Poisson process that
// sent k requests in that second), from the group's own stream "replay".
void ReplaySource::spread(std::vector<Entry>& second) {
  std::vector<std::int64_t> offsets_us(second.size());
  for (auto& offset : offsets_us)
    offset = static_cast<std::int64_t>(spread_rng_.below(static_cast<std::uint64_t>(kUsPerSecond)));
  std::sort(offsets_us.begin(), offsets_us.end());
  for (std::size_t i = 0; i < second.size(); ++i) second[i].log_us += offsets_us[i];
  ++result_.spread_seconds;
}

void ReplaySource::end(const char* why) {
  if (!ended_) result_.ended_by = why;
  ended_ = true;
}

// Maps one line's log time onto virtual time and queues it, or ends the replay at the window's
// or the group's end.
void ReplaySource::enqueue(Entry& entry) {
  if (ended_) return;
  if (spec_.from_log_us && entry.log_us < *spec_.from_log_us) {
    ++result_.before_window;
    return;
  }
  if (to_log_us_ && entry.log_us >= *to_log_us_) return end("replay.to");
  const double after_us = static_cast<double>(entry.log_us - origin_log_us_) / spec_.speedup;
  if (after_us < 0) {  // before the origin (a from offset): not sent
    ++result_.before_window;
    return;
  }
  const double at_us = static_cast<double>(group_.start_us) + std::floor(after_us);
  if (at_us >= static_cast<double>(group_.end_us)) return end("group end");
  auto time_us = static_cast<TimeUs>(at_us);
  if (time_us < last_us_) {
    ++result_.reordered;
    time_us = last_us_;
  }
  last_us_ = time_us;
  entry.request.arrival_us = time_us;
  entry.request.id = (static_cast<std::uint64_t>(group_index_) << 40) | sequence_++;
  pending_.emplace_back(time_us, entry.request);
}

void ReplaySource::fill() {
  while (pending_.empty() && !ended_ && failure_.empty()) {
    Entry entry;
    if (lookahead_) {
      entry = *lookahead_;
      lookahead_.reset();
    } else if (!read_entry(entry)) {
      if (failure_.empty()) end("end of log");
      return;
    }
    if (!origin_set_) {
      origin_set_ = true;
      // The first line fixes the origin (docs/replay.md#time).
      origin_log_us_ = spec_.from_log_us.value_or(entry.log_us + spec_.from_offset_us);
      if (spec_.to_log_us) to_log_us_ = spec_.to_log_us;
      if (spec_.to_offset_us) to_log_us_ = entry.log_us + *spec_.to_offset_us;
      result_.origin_log_us = origin_log_us_;
    }
    if (!entry.whole_second) {
      enqueue(entry);
      continue;
    }
    // Gather the rest of this second, then spread it.
    const std::int64_t second_us = entry.log_us - entry.log_us % kUsPerSecond;
    second_.clear();
    second_.push_back(entry);
    Entry next;
    while (read_entry(next)) {
      if (!next.whole_second || next.log_us - next.log_us % kUsPerSecond != second_us) {
        lookahead_ = next;
        break;
      }
      if (second_.size() >= static_cast<std::size_t>(ScenarioBounds::kMaxReplayLinesPerSecond)) {
        failure_ = fmt::format(
            "more than {} lines in one second (line {}); log sub-second "
            "times ($msec) to replay this log",
            ScenarioBounds::kMaxReplayLinesPerSecond, line_.line_number);
        return;
      }
      second_.push_back(next);
    }
    if (!failure_.empty()) return;
    spread(second_);
    for (Entry& e : second_) enqueue(e);
  }
}

ReplayGroupResult ReplaySource::result() const {
  ReplayGroupResult out = result_;
  if (reader_ != nullptr) {
    out.lines = reader_->lines();
    out.bad_lines = reader_->bad_lines();
    out.bad_examples = reader_->bad_examples();
  }
  return out;
}

}  // namespace rlsim
