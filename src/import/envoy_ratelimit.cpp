// envoyproxy/ratelimit's configuration YAML (domain, nested descriptors, rate_limit), as
// src/config/config_impl.go loads it, and the service settings of src/settings/settings.go
// (docs/import.md#envoyproxyratelimit).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "import/formats.h"
#include "import/keys.h"
#include "import/settings.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

struct Found {
  const ConfigFile* file;
  YAML::Node descriptor;
  std::vector<DescriptorEntry> chain;
};

// config_impl.go's units (RateLimitResponse_RateLimit_Unit), as windows; 0: longer than 24h.
std::optional<DurationUs> unit_window(const std::string& unit) {
  std::string upper = unit;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "SECOND") return kUsPerS;
  if (upper == "MINUTE") return kUsPerMin;
  if (upper == "HOUR") return kUsPerHour;
  if (upper == "DAY") return 24 * kUsPerHour;
  if (upper == "WEEK" || upper == "MONTH" || upper == "YEAR") return 0;
  return std::nullopt;
}

void walk(const ConfigFile& file, const YAML::Node& list, std::vector<DescriptorEntry> chain,
          std::vector<Found>& out) {
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence())
    fail_at(file, list, "descriptors", "expected a list, got " + text_of(list));
  for (const YAML::Node& descriptor : list) {
    const std::string key = string_field(file, descriptor, "key").value_or("");
    if (key.empty()) fail_at(file, descriptor, "key", "descriptor has empty key");
    chain.push_back({key, string_field(file, descriptor, "value").value_or("")});
    if (field_of(descriptor, "rate_limit").IsDefined()) out.push_back({&file, descriptor, chain});
    walk(file, field_of(descriptor, "descriptors"), chain, out);
    chain.pop_back();
  }
}

struct RateLimit {
  std::string name;
  std::vector<std::string> replaces;
};

RateLimit import_one(const Found& found, Imported& imported, std::size_t& shadowed) {
  const ConfigFile& file = *found.file;
  const YAML::Node rate = field_of(found.descriptor, "rate_limit");
  const std::string at = where(file, rate);
  RateLimit out{string_field(file, rate, "name").value_or(""), {}};
  if (field_of(rate, "replaces").IsSequence())
    for (const YAML::Node& replaced : field_of(rate, "replaces"))
      out.replaces.push_back(string_field(file, replaced, "name").value_or(""));
  const std::string path = descriptor_text(found.chain);
  if (bool_field(file, rate, "unlimited").value_or(false)) {
    imported.notes.push_back(fmt::format("{}: descriptor {} is unlimited (no limit)", at, path));
    return out;
  }
  const std::string unit = string_field(file, rate, "unit").value_or("");
  const auto window = unit_window(unit);
  if (!window) fail_at(file, rate, "unit", fmt::format("invalid rate limit unit '{}'", unit));
  const std::int64_t requests = integer_field(file, rate, "requests_per_unit").value_or(0);
  if (*window == 0 || requests < 1) {
    imported.warn(at,
                  fmt::format("descriptor {}: {} per {} not imported ({})", path, requests, unit,
                              requests < 1 ? "denies every request: rlsim's limits "
                                             "are at least 1"
                                           : "rlsim's windows are at most 24h"));
    return out;
  }
  if (bool_field(file, found.descriptor, "shadow_mode").value_or(false)) ++shadowed;
  imported.add_limit({out.name.empty() ? path : out.name,
                      key_of_descriptor(found.chain, where(file, found.descriptor), imported),
                      requests, *window,
                      fmt::format("{} descriptor {}: {} per {}", at, path, requests, unit)});
  return out;
}

}  // namespace

Imported import_envoy_ratelimit(const std::vector<ConfigFile>& files,
                                const ImportSettings& settings) {
  Imported imported;
  imported.format = "envoy_ratelimit";
  imported.product = "envoyproxy/ratelimit configuration";
  imported.strategy = "envoy_ratelimit";
  std::vector<Found> found;
  std::string domain;
  for (const ConfigFile& file : files) {
    imported.files.push_back(file.path);
    const auto this_domain = string_field(file, file.root, "domain");
    if (!this_domain || this_domain->empty())
      fail_at(file, file.root, "domain", "config file cannot have empty domain");
    if (domain.empty()) {
      domain = *this_domain;
      imported.param("domain", domain, where(file, field_of(file.root, "domain")) + " domain");
    } else if (*this_domain != domain) {
      imported.warn(where(file, field_of(file.root, "domain")),
                    fmt::format("domain {} not imported: a scenario models one domain ({})",
                                *this_domain, domain));
      continue;
    }
    walk(file, field_of(file.root, "descriptors"), {}, found);
  }
  std::size_t shadowed = 0;
  std::set<std::string> replaced;
  for (const Found& one : found)
    for (const std::string& name : import_one(one, imported, shadowed).replaces)
      replaced.insert(scenario_name_of(name));
  const bool all_shadowed = shadowed > 0 && shadowed == imported.limits.size();
  // A request matching both a limit and one that replaces it counts only the latter; rlsim
  // applies every limit to every request, so the replaced limits are left out.
  std::erase_if(imported.limits, [&](const ImportedLimit& limit) {
    if (!replaced.contains(limit.name)) return false;
    imported.notes.push_back(limit.source + ": replaced by another limit, left out");
    return true;
  });
  if (imported.limits.empty())
    throw ScenarioError(
        fmt::format("{}: no rate limit to import (every descriptor is unlimited, "
                    "unmappable or replaced)",
                    files.front().path));
  if (all_shadowed)
    imported.mode = {"shadow", "every descriptor has shadow_mode: true"};
  else if (shadowed > 0)
    imported.warn(files.front().path, fmt::format("{} descriptor(s) in shadow_mode imported as "
                                                  "enforcing (rlsim's mode is per strategy)",
                                                  shadowed));
  apply_ratelimit_settings(settings, imported);
  return imported;
}

}  // namespace rlsim
