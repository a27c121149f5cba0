#include "redis/cluster.h"

#include <algorithm>
#include <cmath>

#include "core/check.h"
#include "core/task.h"

namespace rlsim {

namespace {

bool is_script_command(const Command& argv) {
  if (argv.empty() || argv.front().size() != 6) return false;
  std::string name = argv.front();
  for (char& c : name) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  return name == "SCRIPT";
}

// The slot of the first key of a command whose keys span slots: the node a cluster client sends
// it to, which answers CROSSSLOT.
int first_key_slot(const Command& argv) {
  std::string name = argv.front();
  for (char& c : name) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  int slot = kNoKeySlot;
  for_each_command_key(argv, command_key_rule(name), [&](const std::string& key) {
    if (slot == kNoKeySlot) slot = key_hash_slot(key);
  });
  return slot;
}

// An embedded node's check in front of its store: a command whose keys span slots is answered
// with Redis Cluster's CROSSSLOT error and never executes; the others run as before, in order and
// within the same call (so still atomically).
class CrossSlotCheck final : public DataStore {
 public:
  explicit CrossSlotCheck(DataStore& inner) : inner_(inner) {}
  void execute(std::span<const Command> commands, TimeUs server_now_us,
               std::vector<Reply>& replies) override {
    // The node still received the call at this time: its clock (and so its lazy expiry, and the
    // keys it counts) advances as a real node's does, even when every command is refused.
    if (!commands.empty() && command_slot(commands.front()) == kCrossSlot)
      inner_.execute({}, server_now_us, replies);
    std::size_t run_start = 0;
    for (std::size_t i = 0; i <= commands.size(); ++i) {
      const bool cross = i < commands.size() && command_slot(commands[i]) == kCrossSlot;
      if (i < commands.size() && !cross) continue;
      if (i > run_start)
        inner_.execute(commands.subspan(run_start, i - run_start), server_now_us, replies);
      if (cross) replies.push_back(Reply::error(RedisCluster::kCrossSlotError));
      run_start = i + 1;
    }
  }
  std::size_t key_count() const override { return inner_.key_count(); }
  void lose_data() override { inner_.lose_data(); }
  std::optional<FailoverLoss> fail_over(TimeUs server_now_us) override {
    return inner_.fail_over(server_now_us);
  }

 private:
  DataStore& inner_;
};

// One node's share of a call: a pipeline on that node's server.
Task<int> run_leg(RedisServer& node, std::vector<Command> commands, std::vector<Reply>* out) {
  *out = co_await node.pipeline(std::move(commands));
  co_return 0;
}

}  // namespace

ClusterLayout ClusterLayout::even(int nodes) {
  RLSIM_CHECK(nodes >= 1 && nodes <= kMaxNodes);
  ClusterLayout layout;
  layout.nodes = nodes;
  layout.slot_owner.resize(kClusterSlots);
  // redis-cli's allocation (clusterManagerCommandCreate): a cursor advancing by 16384 / K, each
  // node ending at the rounded cursor, the last one at 16383.
  const double per_node = static_cast<double>(kClusterSlots) / nodes;
  double cursor = 0;
  int first = 0;
  for (int node = 0; node < nodes; ++node) {
    int last = static_cast<int>(std::lround(cursor + per_node - 1));
    if (last > kClusterSlots - 1 || node == nodes - 1) last = kClusterSlots - 1;
    for (int slot = first; slot <= last; ++slot)
      layout.slot_owner[static_cast<std::size_t>(slot)] = static_cast<std::uint16_t>(node);
    first = last + 1;
    cursor += per_node;
  }
  return layout;
}

std::vector<std::pair<int, int>> ClusterLayout::ranges_of(int node) const {
  std::vector<std::pair<int, int>> ranges;
  for (int slot = 0; slot < static_cast<int>(slot_owner.size()); ++slot) {
    if (slot_owner[static_cast<std::size_t>(slot)] != node) continue;
    if (!ranges.empty() && ranges.back().second == slot - 1) {
      ranges.back().second = slot;
    } else {
      ranges.emplace_back(slot, slot);
    }
  }
  return ranges;
}

RedisCluster::RedisCluster(Simulator& sim, ClusterLayout layout, const NodeStoreFactory& make_store,
                           const RedisTiming& timing, std::uint64_t seed)
    : layout_(std::move(layout)) {
  RLSIM_CHECK(layout_.nodes >= 1 && layout_.nodes <= ClusterLayout::kMaxNodes &&
              layout_.slot_owner.size() == static_cast<std::size_t>(kClusterSlots));
  for (std::uint16_t owner : layout_.slot_owner) RLSIM_CHECK(owner < layout_.nodes);
  nodes_.resize(static_cast<std::size_t>(layout_.nodes));
  for (int i = 0; i < layout_.nodes; ++i) {
    Node& node = nodes_[static_cast<std::size_t>(i)];
    node.store = make_store(i);
    RLSIM_CHECK(node.store != nullptr);
    DataStore* store = node.store.get();
    // A real node answers CROSSSLOT itself; an embedded store needs the check in front of it.
    if (!store->deferred()) {
      node.checked = std::make_unique<CrossSlotCheck>(*store);
      store = node.checked.get();
    }
    node.server = std::make_unique<RedisServer>(
        sim, *store, timing, Rng(seed, "network", static_cast<std::uint64_t>(i)));
  }
  scratch_legs_.resize(nodes_.size());
}

RedisCluster::~RedisCluster() = default;

RedisStats RedisCluster::total_stats() const {
  RedisStats total;
  for (const Node& node : nodes_) {
    const RedisStats& s = node.server->stats();
    total.commands += s.commands;
    total.round_trips += s.round_trips;
    total.timeouts += s.timeouts;
    total.max_queue_wait_us = std::max(total.max_queue_wait_us, s.max_queue_wait_us);
    total.refused += s.refused;
    total.lost += s.lost;
    total.pool_waits += s.pool_waits;
    total.pool_wait_total_us += s.pool_wait_total_us;
    total.max_pool_wait_us = std::max(total.max_pool_wait_us, s.max_pool_wait_us);
    total.error_replies += s.error_replies;
  }
  return total;
}

std::size_t RedisCluster::key_count() const {
  std::size_t keys = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < i; ++j) seen = seen || nodes_[j].store == nodes_[i].store;
    if (!seen) keys += nodes_[i].store->key_count();
  }
  return keys;
}

void RedisCluster::route(RedisCallBase& call, std::coroutine_handle<> waiting, ClientId client) {
  std::vector<Command> commands = take_commands(call);
  Join* join;
  if (!free_joins_.empty()) {
    join = free_joins_.back();
    free_joins_.pop_back();
  } else {
    joins_.push_back(std::make_unique<Join>());
    join = joins_.back().get();
  }
  join->cluster = this;
  join->call = &call;
  join->waiting = waiting;
  join->client = client;
  join->source.assign(commands.size(), {-1, -1});
  for (auto& leg : scratch_legs_) leg.clear();
  const int default_node = node_of_slot(0);
  for (std::size_t i = 0; i < commands.size(); ++i) {
    Command& argv = commands[i];
    int slot = command_slot(argv);
    if (slot == kCrossSlot) {
      slot = first_key_slot(argv);
      ++crossslot_total_;
      ++nodes_[static_cast<std::size_t>(node_of_slot(slot))].crossslot;
    }
    if (slot == kNoKeySlot && is_script_command(argv)) {
      // Script loading goes to every node, so EVALSHA finds the script whichever node a key
      // lands on; the call's reply is the default node's.
      for (int n = 0; n < layout_.nodes; ++n)
        if (n != default_node) scratch_legs_[static_cast<std::size_t>(n)].push_back(argv);
    }
    const int node = slot >= 0 ? node_of_slot(slot) : default_node;
    auto& leg = scratch_legs_[static_cast<std::size_t>(node)];
    join->source[i] = {node, static_cast<int>(leg.size())};
    leg.push_back(std::move(argv));
  }
  // Legs in node order; `source` goes from node index to leg index.
  std::vector<int> leg_of_node(nodes_.size(), -1);
  int legs = 0;
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    if (!scratch_legs_[n].empty()) leg_of_node[n] = legs++;
  for (auto& [leg, position] : join->source) leg = leg_of_node[static_cast<std::size_t>(leg)];
  join->leg_replies.resize(static_cast<std::size_t>(legs));
  join->pending = legs;
  RLSIM_CHECK(legs > 0);
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    if (scratch_legs_[n].empty()) continue;
    RedisServer& server = *nodes_[n].server;
    server.set_current_client(client);
    auto* out = &join->leg_replies[static_cast<std::size_t>(leg_of_node[n])];
    // Every node answers from a simulator event, so no leg finishes inside this loop.
    run_leg(server, std::move(scratch_legs_[n]), out).start_detached(&RedisCluster::leg_done, join);
  }
}

void RedisCluster::leg_done(void* context, int&& /*leg*/) {
  auto* join = static_cast<Join*>(context);
  RLSIM_CHECK(join->pending > 0);
  if (--join->pending == 0) join->cluster->finish(*join);
}

void RedisCluster::finish(Join& join) {
  std::vector<Reply> replies;
  replies.reserve(join.source.size());
  for (const auto& [leg, position] : join.source)
    replies.push_back(std::move(
        join.leg_replies[static_cast<std::size_t>(leg)][static_cast<std::size_t>(position)]));
  RedisCallBase& call = *join.call;
  const std::coroutine_handle<> waiting = join.waiting;
  const ClientId client = join.client;
  for (auto& leg : join.leg_replies) leg.clear();
  join.call = nullptr;
  free_joins_.push_back(&join);
  deliver(call, std::move(replies));
  if (front_ != nullptr) front_->set_current_client(client);
  waiting.resume();
}

}  // namespace rlsim
