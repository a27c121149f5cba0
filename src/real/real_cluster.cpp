#include "real/real_cluster.h"

#include <fmt/format.h>
#include <hiredis/sds.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "core/ascii.h"
#include "core/sha1.h"

namespace rlsim {

namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  return out;
}

// "MOVED 3999 127.0.0.1:7102" / "ASK 3999 127.0.0.1:7102": the slot and the node's host and port.
bool parse_redirect(const std::string& text, int& slot, std::string& host, int& port) {
  const std::size_t first = text.find(' ');
  const std::size_t second = text.find(' ', first + 1);
  if (first == std::string::npos || second == std::string::npos) return false;
  const std::string_view slot_text = std::string_view(text).substr(first + 1, second - first - 1);
  if (std::from_chars(slot_text.data(), slot_text.data() + slot_text.size(), slot).ec !=
          std::errc() ||
      slot < 0 || slot >= kClusterSlots)
    return false;
  const std::string address = text.substr(second + 1);
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  host = address.substr(0, colon);
  const std::string_view port_text = std::string_view(address).substr(colon + 1);
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  return ec == std::errc() && end != port_text.data();
}

}  // namespace

std::optional<std::vector<RedisUrl>> parse_cluster_seeds(const std::string& text,
                                                         std::string& error) {
  std::vector<RedisUrl> seeds;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    std::string entry = text.substr(begin, end - begin);
    begin = end + 1;
    if (entry.empty()) continue;
    if (!entry.starts_with("redis://")) entry.insert(0, "redis://");
    std::string why;
    auto url = parse_redis_url(entry, why);
    if (!url) {
      error = fmt::format("bad --redis-cluster node '{}': expected host:port[,host:port...]",
                          entry.substr(8));
      return std::nullopt;
    }
    if (url->db != 0) {
      error =
          "bad --redis-cluster node '" + entry.substr(8) + "': a Redis Cluster has only database 0";
      return std::nullopt;
    }
    if (!seeds.empty() && url->password.empty()) {
      url->user = seeds.front().user;
      url->password = seeds.front().password;
    }
    seeds.push_back(std::move(*url));
  }
  if (seeds.empty()) {
    error = "bad --redis-cluster: expected host:port[,host:port...]";
    return std::nullopt;
  }
  return seeds;
}

ClusterWire::ClusterWire(std::vector<RedisUrl> seeds) : seeds_(std::move(seeds)) {
  owner_.fill(-1);
}

std::string ClusterWire::seeds_display() const {
  std::string out;
  for (const RedisUrl& seed : seeds_)
    out += (out.empty() ? "" : ",") + seed.host + ":" + std::to_string(seed.port);
  return out;
}

int ClusterWire::node_index(const std::string& host, int port) {
  const std::string address = host + ":" + std::to_string(port);
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i]->address == address) return static_cast<int>(i);
  auto node = std::make_unique<Node>();
  node->host = host;
  node->port = port;
  node->address = address;
  nodes_.push_back(std::move(node));
  return static_cast<int>(nodes_.size() - 1);
}

bool ClusterWire::ensure_connected(Node& node, std::string& error) {
  if (node.context != nullptr) return true;
  // Every node takes the first seed's credentials (a cluster shares its ACL configuration).
  node.context = open_connection(node.host, node.port, seeds_.front(), false, error);
  if (node.context == nullptr) error = node.address + ": " + error;
  return node.context != nullptr;
}

bool ClusterWire::load_slots_from(const std::string& host, int port, std::string& error) {
  redisContext* context = open_connection(host, port, seeds_.front(), false, error);
  if (context == nullptr) {
    error = fmt::format("{}:{}: {}", host, port, error);
    return false;
  }
  const char* argv[] = {"CLUSTER", "SLOTS"};
  auto* raw = static_cast<redisReply*>(redisCommandArgv(context, 2, argv, nullptr));
  if (raw == nullptr) {
    error = fmt::format("{}:{}: {}", host, port, context->errstr);
    redisFree(context);
    return false;
  }
  const Reply reply = reply_from_hiredis(raw);
  freeReplyObject(raw);
  redisFree(context);
  if (reply.is_error()) {
    error = fmt::format("{}:{}: CLUSTER SLOTS: {}", host, port, reply.text);
    return false;
  }
  std::array<int, kClusterSlots> owners{};
  owners.fill(-1);
  int first_master = -1;
  for (const Reply& range : reply.elements) {
    // [start, end, [ip, port, id, ...] (the master), replicas...]
    if (range.elements.size() < 3 || range.elements[2].elements.size() < 2) continue;
    const std::int64_t start = range.elements[0].integer;
    const std::int64_t end = range.elements[1].integer;
    const Reply& master = range.elements[2];
    // An empty or "?" address means "the node you asked" (Redis answers so for itself).
    std::string ip = master.elements[0].text;
    if (ip.empty() || ip == "?") ip = host;
    const int index = node_index(ip, static_cast<int>(master.elements[1].integer));
    if (first_master < 0) first_master = index;
    for (std::int64_t slot = std::max<std::int64_t>(start, 0); slot <= end && slot < kClusterSlots;
         ++slot)
      owners[static_cast<std::size_t>(slot)] = index;
  }
  if (first_master < 0) {
    error = fmt::format("{}:{}: the cluster has no slots assigned", host, port);
    return false;
  }
  owner_ = owners;
  any_master_ = first_master;
  ++refreshes_;
  return true;
}

bool ClusterWire::refresh_map(std::string& error) {
  // The masters we know first (a seed may have left the cluster), then the seeds.
  std::vector<std::pair<std::string, int>> candidates;
  for (const int index : owner_)
    if (index >= 0) {
      const Node& node = *nodes_[static_cast<std::size_t>(index)];
      if (std::find(candidates.begin(), candidates.end(), std::pair(node.host, node.port)) ==
          candidates.end())
        candidates.emplace_back(node.host, node.port);
    }
  for (const RedisUrl& seed : seeds_) candidates.emplace_back(seed.host, seed.port);
  for (const auto& [host, port] : candidates)
    if (load_slots_from(host, port, error)) return true;
  return false;
}

bool ClusterWire::connect(std::string& error) {
  disconnect();
  bool loaded = false;
  for (const RedisUrl& seed : seeds_)
    if (load_slots_from(seed.host, seed.port, error)) {
      loaded = true;
      break;
    }
  if (!loaded) return false;
  std::unordered_set<int> masters(owner_.begin(), owner_.end());
  masters.erase(-1);
  for (const int index : masters)
    if (!ensure_connected(*nodes_[static_cast<std::size_t>(index)], error)) {
      disconnect();
      return false;
    }
  connected_ = true;
  return true;
}

void ClusterWire::disconnect() {
  for (auto& node : nodes_) {
    if (node->context != nullptr) redisFree(node->context);
    node->context = nullptr;
    node->pending.clear();
    node->scripts.clear();
  }
  entries_.clear();
  error_.clear();
  connected_ = false;
  refresh_due_ = false;
}

int ClusterWire::route(const Command& command, const std::string& upper_name) const {
  int slot = command_slot(command);
  if (slot == kCrossSlot) {
    // The server answers CROSSSLOT whichever node gets it: send it where its first key lives.
    for_each_command_key(command, command_key_rule(upper_name), [&](const std::string& key) {
      if (slot == kCrossSlot) slot = key_hash_slot(key);
    });
  }
  if (slot < 0) return any_master_;
  const int owner = owner_[static_cast<std::size_t>(slot)];
  return owner >= 0 ? owner : any_master_;  // an unowned slot: the server says CLUSTERDOWN
}

void ClusterWire::send(int index, const Command& command, Entry* entry, bool asking) {
  Node& node = *nodes_[static_cast<std::size_t>(index)];
  if (entry != nullptr) entry->node = index;
  // A node we cannot reach: every read now fails, and the store reconnects with its backoff.
  if (error_.empty() && !ensure_connected(node, error_)) return;
  if (node.context == nullptr) return;
  const auto put = [&](const Command& argv, Entry* owner) {
    append_argv(node.context, argv);
    node.pending.push_back(owner);
    ++node.commands;
  };
  if (command.size() >= 2) {
    const std::string name = upper(command[0]);
    if (name == "EVAL") {
      const std::string sha = sha1_hex(command[1]);
      script_text_.try_emplace(sha, command[1]);
      node.scripts.insert(sha);
    } else if (name == "EVALSHA") {
      // The store loads a script once (EVAL or SCRIPT LOAD); this node may not have it yet.
      const std::string sha = ascii_lower(command[1]);
      if (node.scripts.count(sha) == 0) {
        if (const auto it = script_text_.find(sha); it != script_text_.end()) {
          put({"SCRIPT", "LOAD", it->second}, nullptr);
          node.scripts.insert(sha);
        }
      }
    }
  }
  // ASKING lets exactly the next command in, so it goes right before it.
  if (asking) put({"ASKING"}, nullptr);
  put(command, entry);
}

void ClusterWire::append(const Command& command) {
  if (refresh_due_) {
    // A MOVED said the map changed: read it again before routing more (on failure the old map,
    // corrected slot by slot by MOVED, stays). First read every reply still due under the old
    // map: a command that went to a node that no longer owns its slot is then sent again to the
    // new owner now, ahead of any command routed by the new map, so two calls on one key still
    // run in the order they were submitted.
    std::string error;
    if (error_.empty() && !drain(error)) error_ = error;
    refresh_due_ = false;
    refresh_map(error);
  }
  Entry& entry = entries_.emplace_back();
  entry.command = command;
  const std::string name = command.empty() ? "" : upper(command[0]);
  if (name == "SCRIPT" && command.size() == 3 && upper(command[1]) == "LOAD") {
    // Every master gets the script; the first one's reply is the reply.
    const std::string sha = sha1_hex(command[2]);
    script_text_.try_emplace(sha, command[2]);
    std::unordered_set<int> masters(owner_.begin(), owner_.end());
    masters.erase(-1);
    masters.erase(any_master_);
    send(any_master_, command, &entry);
    nodes_[static_cast<std::size_t>(any_master_)]->scripts.insert(sha);
    for (const int index : masters) {
      send(index, command, nullptr);
      nodes_[static_cast<std::size_t>(index)]->scripts.insert(sha);
    }
    return;
  }
  send(route(command, name), command, &entry);
}

bool ClusterWire::redirect(Entry& entry, const std::string& text, bool ask) {
  int slot = 0, port = 0;
  std::string host;
  if (!parse_redirect(text, slot, host, port)) return false;
  const int target = node_index(host, port);
  ++entry.redirects;
  if (ask) {
    // One command, once, at the importing node; the map is unchanged.
    ++asked_;
  } else {
    ++moved_;
    owner_[static_cast<std::size_t>(slot)] = target;
    refresh_due_ = true;
  }
  send(target, entry.command, &entry, ask);
  return true;
}

bool ClusterWire::read_one(Node& node, std::string& error) {
  if (node.pending.empty() || node.context == nullptr) {
    error = node.address + ": connection closed";
    return false;
  }
  redisReply* raw = nullptr;
  if (redisGetReply(node.context, reinterpret_cast<void**>(&raw)) != REDIS_OK || raw == nullptr) {
    error = node.address + ": " + io_error_text(node.context, seeds_.front().io_timeout_ms);
    return false;
  }
  Entry* entry = node.pending.front();
  node.pending.pop_front();
  if (entry == nullptr) {
    freeReplyObject(raw);
    return true;
  }
  Reply reply = reply_from_hiredis(raw);
  freeReplyObject(raw);
  if (reply.is_error()) {
    const std::string& text = reply.text;
    // Five redirections of one command at most: a map that keeps moving is the server's answer.
    const bool moved = text.starts_with("MOVED "), ask = text.starts_with("ASK ");
    if ((moved || ask) && entry->redirects < 5 && redirect(*entry, text, ask)) {
      if (!error_.empty()) {
        error = error_;
        return false;
      }
      return true;
    }
    if (text.starts_with("CROSSSLOT")) ++crossslot_;
  }
  entry->reply = std::move(reply);
  return true;
}

bool ClusterWire::read(Reply& reply, std::string& error) {
  if (!error_.empty()) {
    error = error_;
    return false;
  }
  if (entries_.empty()) {
    error = "no reply expected";
    return false;
  }
  Entry& entry = entries_.front();
  if (!entry.reply) {
    // About to wait for one node: hand every other node its queued commands first, so that all
    // masters work while we wait (hiredis sends a connection's buffer only when it reads it).
    for (auto& node : nodes_) {
      if (node->context == nullptr || sdslen(node->context->obuf) == 0) continue;
      int done = 0;
      while (!done)
        if (redisBufferWrite(node->context, &done) != REDIS_OK) {
          error_ = error =
              node->address + ": " + io_error_text(node->context, seeds_.front().io_timeout_ms);
          return false;
        }
    }
  }
  while (!entry.reply) {
    if (!read_one(*nodes_[static_cast<std::size_t>(entry.node)], error)) {
      error_ = error;
      return false;
    }
  }
  reply = std::move(*entry.reply);
  entries_.pop_front();
  return true;
}

bool ClusterWire::flush_if_large(std::string& error) {
  for (auto& node : nodes_)
    if (node->context != nullptr && !flush_large_buffer(node->context)) {
      error = node->address + ": " + io_error_text(node->context, seeds_.front().io_timeout_ms);
      return false;
    }
  return true;
}

bool ClusterWire::drain(std::string& error) {
  for (auto& node : nodes_)
    while (!node->pending.empty())
      if (!read_one(*node, error)) return false;
  return true;
}

std::vector<std::string> ClusterWire::scan(const std::string& pattern) {
  std::vector<std::string> keys;
  std::string error;
  if (!drain(error)) {
    error_ = error;
    return keys;
  }
  // Every node we have a connection to: the masters, and any node a redirection named.
  for (auto& node : nodes_) {
    if (node->context == nullptr) continue;
    for (std::string& key : scan_keys(node->context, pattern)) keys.push_back(std::move(key));
  }
  // Two entries for one server (a seed and a redirection naming it differently) list its keys
  // twice.
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<ClusterWire::NodeReport> ClusterWire::node_reports() const {
  std::vector<NodeReport> out;
  for (const auto& node : nodes_) out.push_back({node->address, node->commands, 0});
  for (const int index : owner_)
    if (index >= 0) ++out[static_cast<std::size_t>(index)].slots;
  return out;
}

std::string ClusterWire::owner_of(int slot) const {
  const int index = owner_.at(static_cast<std::size_t>(slot));
  return index >= 0 ? nodes_[static_cast<std::size_t>(index)]->address : "";
}

std::optional<ClusterReport> ClusterWire::cluster_report() const {
  return ClusterReport{seeds_display(), node_reports(), moved_, asked_, crossslot_, refreshes_};
}

void ClusterWire::set_owner(int slot, const std::string& address) {
  const std::size_t colon = address.rfind(':');
  owner_.at(static_cast<std::size_t>(slot)) =
      node_index(address.substr(0, colon), std::stoi(address.substr(colon + 1)));
}

std::unique_ptr<RealStore> make_real_cluster_store(const std::string& seeds, bool keep_keys,
                                                   int io_timeout_ms) {
  std::string error;
  auto parsed = parse_cluster_seeds(seeds, error);
  if (!parsed) throw std::invalid_argument(error);
  // Every node connection is opened with the first seed's settings (ClusterWire::connect_node).
  for (RedisUrl& seed : *parsed) seed.io_timeout_ms = io_timeout_ms;
  RealStoreOptions options;
  options.io_timeout_ms = io_timeout_ms;
  options.url = parsed->front();
  options.keep_keys = keep_keys;
  return std::make_unique<RealStore>(options, std::make_unique<ClusterWire>(std::move(*parsed)));
}

}  // namespace rlsim
