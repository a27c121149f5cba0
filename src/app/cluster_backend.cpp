#include "app/cluster_backend.h"

#include <algorithm>

#include "app/exit_codes.h"
#include "app/run.h"
#include "redis/cluster_slots.h"
#include "redis/real_cluster.h"

namespace rlsim {

std::unique_ptr<RealStore> make_cluster_store(const std::string& seeds, bool keep_keys,
                                              int io_timeout_ms) {
  try {
    return make_real_cluster_store(seeds, keep_keys, io_timeout_ms);
  } catch (const std::invalid_argument& e) {
    throw RunError(e.what(), exit_code::kBadInput);
  } catch (const RedisUnreachable& e) {
    throw RunError(e.what(), exit_code::kRedisUnavailable);
  }
}

ClusterLayout cluster_layout(const RealStore& store) {
  const auto& wire = dynamic_cast<const ClusterWire&>(store.wire());
  std::vector<std::string> addresses;
  ClusterLayout layout;
  layout.slot_owner.assign(kClusterSlots, 0);
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    const std::string owner = wire.owner_of(slot);
    if (owner.empty()) continue;
    auto it = std::find(addresses.begin(), addresses.end(), owner);
    if (it == addresses.end()) it = addresses.insert(addresses.end(), owner);
    layout.slot_owner[static_cast<std::size_t>(slot)] =
        static_cast<std::uint16_t>(it - addresses.begin());
  }
  layout.nodes = std::max<int>(1, static_cast<int>(addresses.size()));
  return layout;
}

int embedded_cluster_nodes(const RealStore& store) {
  const ClusterLayout layout = cluster_layout(store);
  if (layout.nodes > ClusterLayout::kMaxNodes) return 0;
  return ClusterLayout::even(layout.nodes).slot_owner == layout.slot_owner ? layout.nodes : 0;
}

namespace {

// Simulated node `node`'s view of the one routing store: its calls carry the node (each node its
// own script cache, as each master has), and it counts the keys of its own slots at its own
// latest time, as an embedded node counts its keyspace.
class NodeView final : public DataStore {
 public:
  NodeView(RealStore& store, int node, std::shared_ptr<const ClusterLayout> layout)
      : store_(store), node_(node), layout_(std::move(layout)) {}
  void execute(std::span<const Command> commands, TimeUs now_us,
               std::vector<Reply>& replies) override {
    collect(submit(commands, now_us), replies);
  }
  std::size_t key_count() const override {
    return store_.count_keys(
        last_now_us_,
        [](const std::string& key, const void* self) {
          const auto& view = *static_cast<const NodeView*>(self);
          return view.layout_->slot_owner[static_cast<std::size_t>(key_hash_slot(key))] ==
                 view.node_;
        },
        this);
  }
  bool deferred() const override { return true; }
  std::uint64_t submit(std::span<const Command> commands, TimeUs now_us) override {
    last_now_us_ = now_us;
    store_.set_node(node_);
    return store_.submit(commands, now_us);
  }
  void collect(std::uint64_t ticket, std::vector<Reply>& replies) override {
    store_.collect(ticket, replies);
  }
  void abandon(std::uint64_t ticket) override { store_.abandon(ticket); }

 private:
  RealStore& store_;
  int node_;
  std::shared_ptr<const ClusterLayout> layout_;
  TimeUs last_now_us_ = 0;
};

}  // namespace

std::unique_ptr<RedisCluster> make_real_cluster_nodes(DataStore& store, Simulator& sim,
                                                      const RedisTiming& timing,
                                                      std::uint64_t seed) {
  auto& real = dynamic_cast<RealStore&>(store);
  auto layout = std::make_shared<const ClusterLayout>(cluster_layout(real));
  return std::make_unique<RedisCluster>(
      sim, *layout,
      [&real, layout](int node) { return std::make_shared<NodeView>(real, node, layout); }, timing,
      seed);
}

void add_cluster_backend(const RealStore& store, nlohmann::ordered_json& backend) {
  const auto* cluster = dynamic_cast<const ClusterWire*>(&store.wire());
  if (cluster == nullptr) return;
  backend["redis"] = "real_cluster";
  backend["url"] = cluster->seeds_display();
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const auto& node : cluster->node_reports())
    nodes.push_back(
        {{"address", node.address}, {"slots", node.slots}, {"commands", node.commands}});
  backend["nodes"] = std::move(nodes);
  backend["moved"] = cluster->moved();
  backend["ask"] = cluster->asked();
  backend["crossslot"] = cluster->crossslot();
  backend["slot_map_reads"] = cluster->map_refreshes();
}

std::string cluster_seeds_display(const std::string& seeds) {
  std::string error;
  const auto parsed = parse_cluster_seeds(seeds, error);
  if (!parsed) return "(invalid)";
  return ClusterWire(*parsed).seeds_display();
}

Command with_hash_tag(const Command& command, const std::string& tag) {
  if (command.empty()) return command;
  Command out = command;
  std::string name = command.front();
  for (char& c : name) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  for_each_command_key(command, command_key_rule(name), [&](const std::string& key) {
    const auto index = static_cast<std::size_t>(&key - command.data());
    out[index] = "{" + tag + "}" + key;
  });
  return out;
}

}  // namespace rlsim
