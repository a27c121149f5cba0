#pragma once
// The request-list traffic source (traffic[].replay, docs/replay.md): a traffic group whose
// requests come from a log, read line by line as virtual time advances. It opens the log only
// through the opener it is handed (the scenario's LogOpener, set by the front end) and holds one
// line at a time, or one second's lines when times have one-second resolution: memory follows
// the log's distinct keys and its busiest second, not its length.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "core/simulator.h"
#include "logs/log_reader.h"
#include "scenario/model.h"
#include "world/catalog.h"
#include "world/results.h"
#include "world/traffic.h"

namespace rlsim {

class ReplaySource final : public EventTarget {
 public:
  // REQUIRES: group.replay is set. Opens the log with `open`; a failure to open or to read its
  // header is kept in failure() and the group sends nothing.
  ReplaySource(Simulator& sim, const TrafficGroup& group, std::uint32_t group_index,
               Catalog& catalog, std::uint64_t seed, RequestSink& sink, const LogOpener& open);
  // Schedules the first request. Call once.
  void start();
  void on_event(std::uint64_t arg) override;

  // Why the replay stopped early ("" when it did not): the log could not be opened, more lines
  // were malformed than max_bad_lines, too many distinct keys. The run then fails (docs/replay.md).
  const std::string& failure() const { return failure_; }
  ReplayGroupResult result() const;

 private:
  struct Entry {
    std::int64_t log_us = 0;
    bool whole_second = false;
    Request request;
  };
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const {
      return std::hash<std::string_view>{}(name);
    }
  };
  using Names = std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>>;

  bool read_entry(Entry& entry);  // the next well-formed line as an entry; false at the end
  bool to_request(const LogLine& line, Request& request);
  bool intern(Names& names, std::string_view name, std::size_t limit, const char* what,
              std::uint32_t& id);
  void fill();  // reads until pending_ holds a request or the replay ended
  void spread(std::vector<Entry>& second);
  void enqueue(Entry& entry);
  void end(const char* why);

  Simulator& sim_;
  const TrafficGroup& group_;
  const ReplaySpec& spec_;
  std::uint32_t group_index_;
  Catalog& catalog_;
  RequestSink& sink_;
  Rng spread_rng_;
  std::unique_ptr<LogReader> reader_;
  LogLine line_;
  std::deque<std::pair<TimeUs, Request>> pending_;  // virtual time, request; in time order
  std::vector<Entry> second_;                       // one second's lines, to spread
  std::optional<Entry> lookahead_;  // the first line after the second being gathered
  Names users_, ips_, instances_;
  bool started_ = false, ended_ = false, origin_set_ = false;
  std::int64_t origin_log_us_ = 0;
  std::optional<std::int64_t> to_log_us_;
  TimeUs last_us_ = 0;
  std::uint64_t sequence_ = 0;
  ReplayGroupResult result_;
  std::string failure_;
};

}  // namespace rlsim
