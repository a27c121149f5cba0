#include "redis/replicated_store.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <string>
#include <string_view>

#include "core/check.h"

namespace rlsim {

namespace {

// Commands with Redis's `write` flag that rlsim's strategies and scripts use (the command table
// of redis/mock_commands.cpp), lower case.
constexpr std::string_view kReplicatedWriteCommands[] = {"append",
                                                         "decr",
                                                         "decrby",
                                                         "del",
                                                         "expire",
                                                         "expireat",
                                                         "getdel",
                                                         "getset",
                                                         "hdel",
                                                         "hincrby",
                                                         "hincrbyfloat",
                                                         "hmset",
                                                         "hset",
                                                         "hsetnx",
                                                         "incr",
                                                         "incrby",
                                                         "incrbyfloat",
                                                         "lpop",
                                                         "lpush",
                                                         "lrem",
                                                         "ltrim",
                                                         "mset",
                                                         "persist",
                                                         "pexpire",
                                                         "pexpireat",
                                                         "psetex",
                                                         "rename",
                                                         "renamenx",
                                                         "rpop",
                                                         "rpush",
                                                         "sadd",
                                                         "set",
                                                         "setex",
                                                         "setnx",
                                                         "srem",
                                                         "zadd",
                                                         "zincrby",
                                                         "zrem",
                                                         "zremrangebyscore",
                                                         "zremrangebyrank",
                                                         "zpopmin",
                                                         "zpopmax",
                                                         "unlink"};

std::string lower_name(const std::string& name) {
  std::string out = name;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::int64_t integer_argument(const Command& argv, std::size_t index) {
  std::int64_t value = 0;
  if (index >= argv.size()) return 0;
  const std::string& text = argv[index];
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// The counter increment a command made: the amount of INCR/INCRBY/DECR/DECRBY/HINCRBY (signed),
// the members ZADD added; 0 for the others.
std::int64_t replicated_increment(const std::string& name, const Command& argv,
                                  const Reply& reply) {
  if (name == "incr") return 1;
  if (name == "decr") return -1;
  if (name == "incrby") return integer_argument(argv, 2);
  if (name == "decrby") return -integer_argument(argv, 2);
  if (name == "hincrby") return integer_argument(argv, 3);
  if (name == "zadd" && reply.type == Reply::Type::kInteger) return reply.integer;
  return 0;
}

}  // namespace

ReplicatedStore::ReplicatedStore(DurationUs replication_lag_us)
    : replication_lag_us_(replication_lag_us) {
  RLSIM_CHECK(replication_lag_us >= 0);
  primary_.set_watcher(this);
}

ReplicatedStore::~ReplicatedStore() = default;

void ReplicatedStore::executed(const Command& argv, const Reply& reply) {
  const std::string name = lower_name(argv.front());
  if (std::find(std::begin(kReplicatedWriteCommands), std::end(kReplicatedWriteCommands), name) ==
      std::end(kReplicatedWriteCommands))
    return;
  ++current_.commands;
  current_.increments += replicated_increment(name, argv, reply);
}

void ReplicatedStore::replicate_until(TimeUs until_us) {
  while (!backlog_.empty() && backlog_.front().at_us <= until_us) {
    scratch_.clear();
    replica_.execute(backlog_.front().commands, backlog_.front().at_us, scratch_);
    backlog_.pop_front();
  }
}

void ReplicatedStore::execute(std::span<const Command> commands, TimeUs server_now_us,
                              std::vector<Reply>& replies) {
  if (failed_over()) {
    replica_.execute(commands, server_now_us, replies);
    return;
  }
  replicate_until(server_now_us - replication_lag_us_);
  current_ = FailoverLoss{};
  primary_.execute(commands, server_now_us, replies);
  if (current_.commands > 0) current_.writes = 1;
  // Every call goes to the replica, reads and SCRIPT LOAD included, so that its EVALSHA finds
  // the script the primary had and its expiry follows the same clock.
  backlog_.push_back(Pending{server_now_us, {commands.begin(), commands.end()}, current_});
}

void ReplicatedStore::lose_data() {
  serving_->lose_data();
  if (failed_over()) return;
  replica_.lose_data();
  backlog_.clear();
}

std::optional<FailoverLoss> ReplicatedStore::fail_over(TimeUs server_now_us) {
  RLSIM_CHECK(!failed_over());
  replicate_until(server_now_us - replication_lag_us_);
  FailoverLoss lost;
  for (const Pending& pending : backlog_) {
    lost.writes += pending.effect.writes;
    lost.increments += pending.effect.increments;
    lost.commands += pending.effect.commands;
  }
  backlog_.clear();
  // A promoted replica starts with an empty script cache (the next EVALSHA answers NOSCRIPT).
  scratch_.clear();
  const Command flush = {"SCRIPT", "FLUSH"};
  replica_.execute(std::span<const Command>(&flush, 1), server_now_us, scratch_);
  primary_.set_watcher(nullptr);
  primary_.lose_data();  // the old primary is gone; its memory is not needed any more
  serving_ = &replica_;
  return lost;
}

}  // namespace rlsim
