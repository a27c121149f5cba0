#pragma once
// A primary and its replica fed by asynchronous replication, for the redis_failover fault
// (docs/faults.md#redis_failover). Every call runs on the primary at once and reaches the replica
// `replication_lag` later (Redis acknowledges a write before it is replicated: replication.c feeds
// the replication backlog and the replicas after the command ran). When the primary goes away,
// the replica is promoted with what it had received: the calls of the last replication_lag are
// lost, and are counted. The replica replays each call at the primary's time, so its dataset is
// exactly the primary's as of that time (the embedded store is deterministic), as Redis's
// effects replication makes it.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "redis/mock_store.h"
#include "redis/store.h"

namespace rlsim {

class ReplicatedStore final : public DataStore, private CommandWatcher {
 public:
  // REQUIRES: replication_lag_us >= 0.
  explicit ReplicatedStore(DurationUs replication_lag_us);
  ReplicatedStore(const ReplicatedStore&) = delete;
  ReplicatedStore& operator=(const ReplicatedStore&) = delete;
  ~ReplicatedStore() override;

  void execute(std::span<const Command> commands, TimeUs server_now_us,
               std::vector<Reply>& replies) override;
  std::size_t key_count() const override { return serving_->key_count(); }
  // A restart without persistence: the replica resynchronises from the empty primary, so both
  // are empty (and so is the backlog).
  void lose_data() override;
  // The replica takes over with every call replicated by `server_now_us`; the others are lost.
  // After it no replica is left (the model fails over once). REQUIRES: not failed over yet.
  std::optional<FailoverLoss> fail_over(TimeUs server_now_us) override;

  // Calls sent to the replica but not yet applied (bounded by the calls of one replication lag).
  std::size_t backlog_size() const { return backlog_.size(); }
  bool failed_over() const { return serving_ == &replica_; }

 private:
  // One call the primary ran, on its way to the replica.
  struct Pending {
    TimeUs at_us = 0;  // the primary's time when it ran
    std::vector<Command> commands;
    FailoverLoss effect;  // what it changed, were it lost
  };
  void executed(const Command& argv, const Reply& reply) override;
  // Applies to the replica every call that ran at or before `until_us`.
  void replicate_until(TimeUs until_us);

  DurationUs replication_lag_us_;
  MockStore primary_;
  MockStore replica_;
  MockStore* serving_ = &primary_;
  std::deque<Pending> backlog_;
  FailoverLoss current_;  // what the call being run on the primary changed so far
  std::vector<Reply> scratch_;
};

}  // namespace rlsim
