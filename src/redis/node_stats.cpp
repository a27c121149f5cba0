#include "redis/node_stats.h"

#include <algorithm>
#include <cctype>

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

}  // namespace

void NodeStats::on_execute(const std::vector<Command>& commands, TimeUs start_us,
                           DurationUs busy_us, std::int64_t commands_ahead) {
  busy_us_ += busy_us;
  if (start_us < run_end_us_) busy_in_run_us_ += std::min(busy_us, run_end_us_ - start_us);
  free_at_us_ = std::max(free_at_us_, start_us + busy_us);
  queue_length_->record(commands_ahead);
  const auto bucket = static_cast<std::size_t>(start_us / bucket_us_);
  if (bucket < kMaxBuckets) {
    if (ops_per_bucket_.size() <= bucket) {
      ops_per_bucket_.resize(bucket + 1, 0);
      max_queue_per_bucket_.resize(bucket + 1, 0);
    }
    ops_per_bucket_[bucket] += commands.size();
    max_queue_per_bucket_[bucket] = std::max(max_queue_per_bucket_[bucket], commands_ahead);
  }
  // Busy time goes to every bucket the execution overlaps, so that no bucket exceeds 100%.
  for (TimeUs at_us = start_us; at_us < start_us + busy_us;) {
    const auto index = static_cast<std::size_t>(at_us / bucket_us_);
    if (index >= kMaxBuckets) break;
    const TimeUs bucket_end_us = static_cast<TimeUs>(index + 1) * bucket_us_;
    const TimeUs until_us = std::min(start_us + busy_us, bucket_end_us);
    if (busy_per_bucket_.size() <= index) busy_per_bucket_.resize(index + 1, 0);
    busy_per_bucket_[index] += until_us - at_us;
    at_us = until_us;
  }
  for (const Command& argv : commands) {
    if (argv.empty()) continue;
    std::string scratch;
    const std::string& name = upper(argv.front(), scratch);
    auto it = std::find_if(commands_.begin(), commands_.end(),
                           [&](const CommandCount& entry) { return entry.name == name; });
    if (it == commands_.end())
      it = commands_.insert(it, CommandCount{name, 0, command_key_rule(name)});
    ++it->calls;
    for_each_command_key(argv, it->rule, [this](const std::string& key) { count_key(key); });
  }
}

void NodeStats::count_key(const std::string& key) {
  // Slots are found by hash first (a scan of kHotKeySlots integers), so that most operations
  // compare no string and a replaced slot reuses its string's buffer. The same pass finds the
  // smallest counter, which a new key takes over when every slot is in use.
  const std::size_t hash = std::hash<std::string>{}(key);
  std::size_t smallest = 0;
  for (std::size_t i = 0; i < key_slots_.size(); ++i) {
    if (key_hashes_[i] == hash && key_slots_[i].first == key) {
      ++key_slots_[i].second;
      return;
    }
    if (key_slots_[i].second < key_slots_[smallest].second) smallest = i;
  }
  if (key_slots_.size() < kHotKeySlots) {
    key_slots_.emplace_back(key, 1);
    key_hashes_.push_back(hash);
    key_overcounts_.push_back(0);
    return;
  }
  // Space-Saving: the new key takes over the smallest counter (the first one, on ties), and
  // its count may overstate by what the counter held.
  key_slots_[smallest].first.assign(key);
  key_overcounts_[smallest] = key_slots_[smallest].second;
  ++key_slots_[smallest].second;
  key_hashes_[smallest] = hash;
}

std::vector<std::pair<std::string, std::uint64_t>> NodeStats::commandstats() const {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const CommandCount& entry : commands_) out.emplace_back(entry.name, entry.calls);
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

std::uint64_t NodeStats::hot_key_overcount(const std::string& key) const {
  for (std::size_t i = 0; i < key_slots_.size(); ++i)
    if (key_slots_[i].first == key) return key_overcounts_[i];
  return 0;
}

}  // namespace rlsim
