#include "redis/node_stats.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace rlsim {

NodeStats::NodeStats()
    : queue_length_(std::make_unique<Histogram>()),
      call_latency_us_(std::make_unique<Histogram>()) {}

namespace {

// Strategies send command names in upper case; only other spellings are copied.
const std::string& upper(const std::string& text, std::string& scratch) {
  if (std::none_of(text.begin(), text.end(),
                   [](char c) { return std::islower(static_cast<unsigned char>(c)); }))
    return text;
  scratch = text;
  for (char& c : scratch) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return scratch;
}

// Which arguments of `argv` are keys, as Redis's key specs say for the commands strategies send:
// EVAL / EVALSHA name theirs with numkeys, MGET / DEL / EXISTS take only keys, MSET alternates key
// and value, commands without keys (SCRIPT, TIME, PING, ...) have none, the rest have one.
template <typename Fn>
void for_each_key(const Command& argv, const std::string& name, Fn&& fn) {
  if (argv.size() < 2) return;
  if (name == "EVAL" || name == "EVALSHA") {
    std::size_t keys = 0;
    if (argv.size() < 3) return;
    const std::string& text = argv[2];
    std::from_chars(text.data(), text.data() + text.size(), keys);
    for (std::size_t i = 3; i < argv.size() && i < 3 + keys; ++i) fn(argv[i]);
  } else if (name == "MGET" || name == "DEL" || name == "EXISTS" || name == "UNLINK" ||
             name == "TOUCH") {
    for (std::size_t i = 1; i < argv.size(); ++i) fn(argv[i]);
  } else if (name == "MSET") {
    for (std::size_t i = 1; i < argv.size(); i += 2) fn(argv[i]);
  } else if (name != "SCRIPT" && name != "TIME" && name != "PING" && name != "ECHO" &&
             name != "DBSIZE" && name != "FLUSHALL" && name != "FLUSHDB" && name != "INFO") {
    fn(argv[1]);
  }
}

}  // namespace

void NodeStats::on_execute(const std::vector<Command>& commands, TimeUs start_us,
                           DurationUs busy_us, std::int64_t commands_ahead) {
  busy_us_ += busy_us;
  queue_length_->record(commands_ahead);
  const auto bucket = static_cast<std::size_t>(start_us / bucket_us_);
  if (bucket < kMaxBuckets) {
    if (ops_per_bucket_.size() <= bucket) ops_per_bucket_.resize(bucket + 1, 0);
    ops_per_bucket_[bucket] += commands.size();
  }
  for (const Command& argv : commands) {
    if (argv.empty()) continue;
    std::string scratch;
    const std::string& name = upper(argv.front(), scratch);
    auto it = std::find_if(commands_.begin(), commands_.end(),
                           [&](const auto& entry) { return entry.first == name; });
    if (it == commands_.end()) {
      commands_.emplace_back(name, 1);
    } else {
      ++it->second;
    }
    for_each_key(argv, name, [this](const std::string& key) { count_key(key); });
  }
}

void NodeStats::count_key(const std::string& key) {
  const auto found = key_slot_of_.find(key);
  if (found != key_slot_of_.end()) {
    ++key_slots_[found->second].second;
    return;
  }
  if (key_slots_.size() < kHotKeySlots) {
    key_slot_of_.emplace(key, key_slots_.size());
    key_slots_.emplace_back(key, 1);
    return;
  }
  // Space-Saving: the new key takes over the smallest counter (the first one, on ties).
  std::size_t smallest = 0;
  for (std::size_t i = 1; i < key_slots_.size(); ++i)
    if (key_slots_[i].second < key_slots_[smallest].second) smallest = i;
  key_slot_of_.erase(key_slots_[smallest].first);
  key_slot_of_.emplace(key, smallest);
  key_slots_[smallest].first = key;
  ++key_slots_[smallest].second;
}

std::vector<std::pair<std::string, std::uint64_t>> NodeStats::commandstats() const {
  auto out = commands_;
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> NodeStats::hot_keys(std::size_t n) const {
  auto out = key_slots_;
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace rlsim
