#pragma once
// The names behind request ids: endpoint strings, IP addresses, and the value a limit is keyed on.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scenario/model.h"
#include "world/request.h"

namespace rlsim {

// Appends the decimal digits of `value` to `out` (the hot path's key builder; no format parsing).
void append_decimal(std::string& out, std::int64_t value);

class Catalog {
 public:
  explicit Catalog(const Scenario& scenario);

  // The id a limit keyed on `key` counts this request under (user id, ip id, endpoint id, or 0).
  static std::uint64_t key_id(const Request& request, LimitKey key) {
    switch (key) {
      case LimitKey::kUser:
        return request.user;
      case LimitKey::kIp:
        return request.ip;
      case LimitKey::kEndpoint:
        return request.endpoint;
      case LimitKey::kGlobal:
        return 0;
    }
    return 0;
  }
  // Appends the key's text as real code would build it: "42", "10.0.0.42", "/search", "all".
  void append_key_text(std::string& out, const Request& request, LimitKey key) const;

  const std::vector<std::string>& endpoints() const { return endpoints_; }
  std::uint32_t endpoint_id(std::uint32_t group, std::uint32_t index_in_group) const {
    return group_endpoints_[group][index_in_group];
  }
  std::uint32_t first_user(std::uint32_t group) const { return first_user_[group]; }
  std::uint32_t first_ip(std::uint32_t group) const { return first_ip_[group]; }
  // The id of a replayed request's endpoint (docs/replay.md): a name seen before keeps its id, a
  // new one is added; nullopt once a replay added ScenarioBounds::kMaxReplayEndpoints names.
  std::optional<std::uint32_t> intern_endpoint(std::string_view name);

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const {
      return std::hash<std::string_view>{}(name);
    }
  };
  std::vector<std::string> endpoints_;  // distinct endpoint names over all groups
  std::vector<std::vector<std::uint32_t>> group_endpoints_;
  std::vector<std::uint32_t> first_user_;
  std::vector<std::uint32_t> first_ip_;
  std::ptrdiff_t synthetic_endpoints_ = 0;  // the first entries of endpoints_: the groups' own
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> replayed_endpoints_;
};

}  // namespace rlsim
