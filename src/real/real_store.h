#pragma once
// The data store seam over a real Redis (>= 7.0) through hiredis: the same simulation with every
// command and script executed by a real server (docs/real-redis.md).
//
// Virtual time stays the only time. Commands are appended to one connection in the order they
// reach the simulated server and their replies are read when the simulation needs them
// (pipelined). The run's keys carry a per-run prefix (the store prefixes command key arguments and
// script KEYS) and are deleted at the end. Real Redis expires keys on its wall clock, which has
// nothing to do with the run's clock, so the store maps every TTL to the virtual clock: expiry
// times are written as PEXPIREAT (virtual microseconds + an offset a day ahead of the wall clock),
// so real Redis never expires a key during the run, and a key whose virtual expiry has passed is
// deleted just before a call touches it (Redis's own lazy expiry, on the virtual clock, in whole
// milliseconds as Redis counts: alive through its expiry's millisecond). TTL and
// PTTL read the virtual TTL back, TIME answers the virtual clock.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "real/redis_wire.h"
#include "redis/mock_store.h"
#include "redis/store.h"

namespace rlsim {

// Parses `text`; nullopt with `error` set when it is not a redis:// URL of that form. A password
// given by neither the URL nor here is taken from REDISCLI_AUTH (as redis-cli does).
std::optional<RedisUrl> parse_redis_url(const std::string& text, std::string& error);

// The server cannot be reached at the start (connection refused, authentication failed, too old):
// the run stops with exit code 5.
class RedisUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RealStoreOptions {
  RedisUrl url;
  bool keep_keys = false;  // leave the run's keys behind (they still expire, a day later)
  // How long to wait for a reply (or a write) before the connection counts as failed: a server
  // that stops answering must not hang the run (RLSIM_REDIS_IO_TIMEOUT_MS, real/backend.cpp).
  int io_timeout_ms = 10'000;
};

// After this many connection failures in a row (no good reply in between) the store stops
// reconnecting: every later call fails at once, so a dead server cannot stretch a run.
constexpr int kMaxFailuresInARow = 3;

class RealStore final : public DataStore {
 public:
  // Connects to options.url; throws RedisUnreachable.
  explicit RealStore(const RealStoreOptions& options);
  // Over `wire` (e.g. a Redis Cluster, real/real_cluster.h); options.url is then unused.
  RealStore(const RealStoreOptions& options, std::unique_ptr<RedisWire> wire);
  // Deletes the run's keys (unless keep_keys) and disconnects.
  ~RealStore() override;
  RealStore(const RealStore&) = delete;
  RealStore& operator=(const RealStore&) = delete;

  void execute(std::span<const Command> commands, TimeUs server_now_us,
               std::vector<Reply>& replies) override;
  // Live keys of this run (by the virtual clock); reads them from the server.
  std::size_t key_count() const override { return count_keys(last_now_us_, nullptr); }
  // Live keys at `now_us` for which `keep(key)` holds (every key when it is null).
  std::size_t count_keys(TimeUs now_us, bool (*keep)(const std::string&, const void*),
                         const void* context = nullptr) const;
  // The simulated node the next calls come from, when several simulated cluster nodes share this
  // store: each node has its own script cache, as each master has (real/cluster_backend.h).
  void set_node(int node) { node_ = node; }
  std::shared_ptr<DataStore> node_view(
      int node, const std::function<bool(const std::string&)>& owns) override;

  bool deferred() const override { return true; }
  std::uint64_t submit(std::span<const Command> commands, TimeUs server_now_us) override;
  void collect(std::uint64_t ticket, std::vector<Reply>& replies) override;
  void abandon(std::uint64_t ticket) override;

  // Runs one command at `server_now_us`. Convenience for tests and the conformance check.
  Reply run(const Command& command, TimeUs server_now_us);

  // The run's key prefix ("rlsim:<16 hex>:"): every key the run writes starts with it.
  const std::string& key_prefix() const { return prefix_; }
  std::string url_display() const { return options_.url.display(); }
  const RedisWire& wire() const { return *wire_; }
  RedisWire& wire() { return *wire_; }
  // Deletes the run's keys now (SCAN + UNLINK), those for which `keep_deleting` holds when it is
  // set; returns how many.
  std::size_t delete_own_keys(const std::function<bool(const std::string&)>& keep_deleting = {});
  // The run's keys on simulated node `node` (those `owns` says, all when unset) and the scripts
  // that node loaded are forgotten: the next EVALSHA there answers NOSCRIPT, as after a restart.
  void lose_node_data(int node, const std::function<bool(const std::string&)>& owns = {});
  void lose_data() override { lose_node_data(0); }

  // Backend health, for the report: calls that failed because the connection was lost (their
  // replies are errors, so the strategy's failure policy decides), and the first failure.
  std::uint64_t backend_errors() const { return backend_errors_; }
  std::uint64_t reconnects() const { return reconnects_; }
  const std::string& backend_failure() const { return failure_; }
  std::optional<BackendReport> backend_report() const override;
  std::string slot_owner(int slot) const override { return wire_->owner_of(slot); }

 private:
  struct Script {
    std::string sha;          // of the text the strategy sent (what the mock knows it by)
    std::string wrapped;      // the text sent to the server (the virtual-clock prelude + text)
    std::string wrapped_sha;  // the server's name for it
    bool on_server = false;   // loaded through this connection
  };
  enum class Fix : std::uint8_t {
    kNone,
    kHidden,
    kTtl,
    kPttl,
    kExpireTime,
    kPexpireTime,
    kScript,
    kScriptLoad
  };
  struct Op {
    Reply reply;        // the local reply, or the real one once read
    bool real = false;  // one real reply to read
    Fix fix = Fix::kNone;
    Script* script = nullptr;
    Command retry;  // EVAL with the full text, sent again if the server lost the script
  };
  struct Batch {
    std::vector<Op> ops;
    TimeUs now_us = 0;
    bool read = false;       // every real reply read into ops
    bool abandoned = false;  // nobody collects it
    bool failed = false;     // the connection failed during it (counted once)
    bool lost = false;       // sent on a connection that failed before its replies came
    int node = 0;            // the simulated node it came from (set_node)
  };

  void connect_or_throw();
  bool connect(std::string& error);
  void disconnect();
  void fail(const std::string& reason);
  // Why the last hiredis call failed, in words ("no reply within 300 ms" for a timeout).
  void reconnect_if_due();
  void translate_script_command(const Command& command, TimeUs now_us, Op& op,
                                std::vector<Command>& sent);
  void map_ttl_command(const std::string& name, const Command& command, TimeUs now_us, Op& op,
                       Command& out) const;
  void map_expiry_option(const Command& command, std::size_t from, TimeUs now_us,
                         Command& out) const;
  std::optional<std::int64_t> mapped_expiry_ms(const std::string& amount_text, bool seconds,
                                               bool relative, TimeUs now_us,
                                               bool at_now_lives = false) const;
  void append_sweeps(std::vector<std::string> sweep_keys, TimeUs now_us, Batch& batch);
  void translate(const Command& command, TimeUs now_us, Batch& batch,
                 std::vector<std::string>& sweep_keys, std::vector<Command>& sent);
  void add_script_call(const Command& command, bool by_sha, std::size_t numkeys, TimeUs now_us,
                       Op& op, Command& sent);
  Script& register_script(const std::string& text);
  void append(const Command& command) { wire_->append(command); }
  // The next reply; false when the connection failed. `running`: the reply is that of a call of
  // this script, which may run away on the server (stop_runaway).
  bool read_reply(Reply& reply, const Script* running = nullptr);
  bool stop_runaway(const Script& script, const std::string& timeout, Reply& reply);
  void answer_busy(Reply& reply);
  // SCRIPT KILL on a connection of its own; the server's answer ("OK", "NOTBUSY ...",
  // "UNKILLABLE ..."), or nullopt with `error` when it gave none within the I/O timeout.
  std::optional<Reply> kill_script(std::string& error);
  void stop_run(std::string why);
  void read_batch(Batch& batch);
  void read_until(std::uint64_t ticket);
  void finish_reply(Batch& batch, Op& op);
  void retry_script(Op& op, TimeUs now_us);
  void pop_done();
  Reply local_reply(const Command& command, TimeUs now_us);
  std::string with_prefix(const std::string& key) const;
  std::int64_t threshold(TimeUs now_us) const { return now_us + offset_ms_; }

  RealStoreOptions options_;
  std::unique_ptr<RedisWire> wire_;
  std::string prefix_;
  // real expiry time (Unix ms on the server) = virtual expiry time (Unix us) + offset_ms_.
  std::int64_t offset_ms_ = 0;
  std::unordered_map<std::string, std::unique_ptr<Script>> scripts_;  // by lower-case sha
  // Shas this run loaded (its own script cache), per simulated node (one without a cluster).
  std::vector<std::unordered_set<std::string>> known_{1};
  int node_ = 0;
  std::unordered_set<std::string>& known(int node) {
    if (static_cast<std::size_t>(node) >= known_.size()) known_.resize(node + 1);
    return known_[static_cast<std::size_t>(node)];
  }
  std::string sweep_sha_;
  bool sweep_on_server_ = false;
  std::deque<Batch> batches_;               // submitted, not yet collected or abandoned
  std::vector<std::vector<Op>> spare_ops_;  // op vectors of finished batches, for reuse
  std::uint64_t first_ticket_ = 0;
  std::size_t unread_ = 0;  // index in batches_ of the first batch not read
  TimeUs last_now_us_ = 0;
  MockStore scratch_;  // the reply of a command that is refused locally (unknown, bad arity)
  // Connection state.
  bool broken_ = false;
  int retry_after_calls_ = 0;
  int backoff_calls_ = 1;
  std::uint64_t backend_errors_ = 0;
  std::uint64_t reconnects_ = 0;
  int failures_in_a_row_ = 0;
  std::string failure_;
  // Why the last reconnect attempt failed ("" once one succeeds), and when the connection failed.
  std::string unreachable_;
  TimeUs failed_at_us_ = 0;
  std::string stopped_;  // a runaway script stopped the run (BackendReport::stopped)
};

}  // namespace rlsim
