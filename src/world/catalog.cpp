#include "world/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace rlsim {

Catalog::Catalog(const Scenario& scenario) {
  std::uint32_t next_user = 0, next_ip = 0;
  for (const auto& group : scenario.traffic) {
    first_user_.push_back(next_user);
    first_ip_.push_back(next_ip);
    next_user += static_cast<std::uint32_t>(group.users);
    next_ip += static_cast<std::uint32_t>(group.ips);
    std::vector<std::uint32_t> ids;
    for (const auto& name : group.endpoints) {
      auto it = std::find(endpoints_.begin(), endpoints_.end(), name);
      if (it == endpoints_.end()) it = endpoints_.insert(endpoints_.end(), name);
      ids.push_back(static_cast<std::uint32_t>(it - endpoints_.begin()));
    }
    group_endpoints_.push_back(std::move(ids));
  }
  synthetic_endpoints_ = static_cast<std::ptrdiff_t>(endpoints_.size());
}

std::optional<std::uint32_t> Catalog::intern_endpoint(std::string_view name) {
  if (const auto it = replayed_endpoints_.find(name); it != replayed_endpoints_.end())
    return it->second;
  // A synthetic group's endpoint of the same name is the same endpoint.
  const auto synthetic =
      std::find(endpoints_.begin(), endpoints_.begin() + synthetic_endpoints_, name);
  if (synthetic != endpoints_.begin() + synthetic_endpoints_)
    return static_cast<std::uint32_t>(synthetic - endpoints_.begin());
  if (replayed_endpoints_.size() >= ScenarioBounds::kMaxReplayEndpoints) return std::nullopt;
  const auto id = static_cast<std::uint32_t>(endpoints_.size());
  endpoints_.emplace_back(name);
  replayed_endpoints_.emplace(std::string(name), id);
  return id;
}

void append_decimal(std::string& out, std::int64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);
  out.append(digits, result.ptr);
}

// Called for every limit of every request: plain to_chars, no format-string parsing.
void Catalog::append_key_text(std::string& out, const Request& request, LimitKey key) const {
  switch (key) {
    case LimitKey::kUser:
      append_decimal(out, request.user);
      return;
    case LimitKey::kIp: {
      // 10.0.0.0/8 gives room for every IP id a scenario can have.
      const std::uint32_t host = request.ip + 1;
      out += "10.";
      append_decimal(out, (host >> 16) & 255);
      out += '.';
      append_decimal(out, (host >> 8) & 255);
      out += '.';
      append_decimal(out, host & 255);
      return;
    }
    case LimitKey::kEndpoint:
      out += endpoints_[request.endpoint];
      return;
    case LimitKey::kGlobal:
      out += "all";
      return;
  }
}

}  // namespace rlsim
