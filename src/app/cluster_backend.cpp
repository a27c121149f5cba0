#include "app/cluster_backend.h"

#include "app/exit_codes.h"
#include "app/run.h"
#include "redis/cluster_slots.h"
#include "redis/real_cluster.h"

namespace rlsim {

std::unique_ptr<RealStore> make_cluster_store(const std::string& seeds, bool keep_keys) {
  try {
    return make_real_cluster_store(seeds, keep_keys);
  } catch (const std::invalid_argument& e) {
    throw RunError(e.what(), exit_code::kBadInput);
  } catch (const RedisUnreachable& e) {
    throw RunError(e.what(), exit_code::kRedisUnavailable);
  }
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
