#include "real/cluster_backend.h"

#include <algorithm>

#include "engine/run_error.h"
#include "real/real_cluster.h"
#include "redis/cluster_slots.h"

namespace rlsim {

std::unique_ptr<RealStore> make_cluster_store(const std::string& seeds, bool keep_keys,
                                              int io_timeout_ms) {
  try {
    return make_real_cluster_store(seeds, keep_keys, io_timeout_ms);
  } catch (const std::invalid_argument& e) {
    throw RunError(e.what(), RunErrorKind::kBadInput);
  } catch (const RedisUnreachable& e) {
    throw RunError(e.what(), RunErrorKind::kRedisUnavailable);
  }
}

ClusterLayout cluster_layout(const DataStore& store) {
  std::vector<std::string> addresses;
  ClusterLayout layout;
  layout.slot_owner.assign(kClusterSlots, 0);
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    const std::string owner = store.slot_owner(slot);
    if (owner.empty()) continue;
    auto it = std::find(addresses.begin(), addresses.end(), owner);
    if (it == addresses.end()) it = addresses.insert(addresses.end(), owner);
    layout.slot_owner[static_cast<std::size_t>(slot)] =
        static_cast<std::uint16_t>(it - addresses.begin());
  }
  layout.nodes = std::max<int>(1, static_cast<int>(addresses.size()));
  return layout;
}

int embedded_cluster_nodes(const DataStore& store) {
  const ClusterLayout layout = cluster_layout(store);
  if (layout.nodes > ClusterLayout::kMaxNodes) return 0;
  return ClusterLayout::even(layout.nodes).slot_owner == layout.slot_owner ? layout.nodes : 0;
}

std::unique_ptr<RedisCluster> make_real_cluster_nodes(DataStore& store, Simulator& sim,
                                                      const RedisTiming& timing,
                                                      std::uint64_t seed) {
  auto layout = std::make_shared<const ClusterLayout>(cluster_layout(store));
  return std::make_unique<RedisCluster>(
      sim, *layout,
      [&store, layout](int node) {
        return store.node_view(node, [layout, node](const std::string& key) {
          return layout->slot_owner[static_cast<std::size_t>(key_hash_slot(key))] == node;
        });
      },
      timing, seed);
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
