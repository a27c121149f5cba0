#include "import/imported.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/check.h"
#include "scenario/model.h"

namespace rlsim {

void Imported::add_limit(ImportedLimit limit) {
  if (limits.size() >= static_cast<std::size_t>(ScenarioBounds::kMaxLimits)) {
    warnings.push_back(fmt::format("{}: not imported: a scenario holds at most {} limits",
                                   limit.source, ScenarioBounds::kMaxLimits));
    return;
  }
  limit.name = scenario_name_of(limit.name);
  std::set<std::string> names;
  for (const ImportedLimit& other : limits) names.insert(other.name);
  const std::string base = limit.name.substr(0, 60);
  for (int n = 2; names.contains(limit.name); ++n) limit.name = fmt::format("{}_{}", base, n);
  limits.push_back(std::move(limit));
}

void Imported::warn(std::string where, const std::string& what) {
  warnings.push_back(std::move(where) + ": " + what);
}

void Imported::param(std::string name, nlohmann::json value, std::string source) {
  params.emplace_back(std::move(name), Sourced{std::move(value), std::move(source)});
}

std::string scenario_name_of(const std::string& text) {
  std::string name;
  for (const char c : text) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    name += ok ? c : '_';
    if (name.size() == 64) break;
  }
  if (!name.empty() && name[0] == '.') name[0] = '_';
  return name.empty() ? "import" : name;
}

namespace {

constexpr int kDefaultUsers = 10;
constexpr int kDefaultInstances = 4;
// The default traffic offers at most this many requests (a run of a few seconds).
constexpr double kMaxDefaultRequests = 2'000'000;

// Lines of JSON with a comment each; commas go before the comments.
struct Lines {
  std::vector<std::pair<std::string, std::string>> lines;  // text, comment

  void add(std::string text, std::string comment = "") {
    // A value quoted from a configuration may hold a line break, which would end the comment.
    for (char& c : comment)
      if (c == '\n' || c == '\r') c = ' ';
    lines.emplace_back(std::move(text), std::move(comment));
  }
  // Adds `entries` as members (or elements) at `indent`, comma-separated.
  void members(const std::vector<std::pair<std::string, std::string>>& entries,
               const std::string& indent) {
    for (std::size_t i = 0; i < entries.size(); ++i)
      add(indent + entries[i].first + (i + 1 < entries.size() ? "," : ""), entries[i].second);
  }
  std::string text() const {
    std::string out;
    for (const auto& [text, comment] : lines)
      out += comment.empty() ? text + "\n" : fmt::format("{}  // {}\n", text, comment);
    return out;
  }
};

std::string member(const std::string& name, const nlohmann::json& value) {
  return fmt::format("\"{}\": {}", name, value.dump());
}

// "15/s": a rate rlsim reads, with up to 6 decimals.
std::string rate_text(double per_s) {
  std::string text = fmt::format("{:.6f}", std::clamp(per_s, 0.000001, 1e6));
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text + "/s";
}

// The default traffic: kDefaultUsers users, each at 1.5 x the rate that fills the tightest limit
// (a limit counted per user or IP fills at limit / window per user; one counted per endpoint or
// globally at that over all users), for three windows of the longest limit (at least a minute,
// at most a day).
struct DefaultTraffic {
  double rate_per_s = 0;
  DurationUs duration_us = 0;
};

DefaultTraffic default_traffic(const std::vector<ImportedLimit>& limits) {
  DefaultTraffic traffic{1e9, 0};
  for (const ImportedLimit& limit : limits) {
    double fill = static_cast<double>(limit.limit) * kUsPerS / static_cast<double>(limit.window_us);
    if (limit.key == "global" || limit.key == "endpoint") fill /= kDefaultUsers;
    traffic.rate_per_s = std::min(traffic.rate_per_s, 1.5 * fill);
    traffic.duration_us = std::max(traffic.duration_us, 3 * limit.window_us);
  }
  traffic.duration_us = std::clamp<DurationUs>(traffic.duration_us, kUsPerMin, 24 * kUsPerHour);
  const double offered =
      kDefaultUsers * traffic.rate_per_s * static_cast<double>(traffic.duration_us) / kUsPerS;
  if (offered > kMaxDefaultRequests) {
    const double seconds = kMaxDefaultRequests / (kDefaultUsers * traffic.rate_per_s);
    traffic.duration_us = std::max<DurationUs>(kUsPerS, static_cast<DurationUs>(seconds) * kUsPerS);
  }
  return traffic;
}

void header(Lines& out, const Imported& imported) {
  std::string files;
  for (const std::string& file : imported.files) files += (files.empty() ? "" : ", ") + file;
  out.add(fmt::format("// {} imported by `rlsim import` from {}.", imported.product, files));
  out.add("// Each value's comment says where it came from. \"default:\" marks what the");
  out.add("// configuration does not say (instances, traffic, Redis timing): edit those to match");
  out.add("// your deployment (docs/import.md).");
  for (const std::string& note : imported.notes) out.add("// Note: " + note);
  out.add(fmt::format("// Unmapped: {} item(s){}", imported.warnings.size(),
                      imported.warnings.empty() ? "." : ", not modelled:"));
  for (const std::string& warning : imported.warnings) out.add("//   " + warning);
}

std::vector<std::pair<std::string, std::string>> limit_lines(const Imported& imported) {
  std::vector<std::pair<std::string, std::string>> lines;
  for (const ImportedLimit& limit : imported.limits) {
    const nlohmann::ordered_json object = {{"name", limit.name},
                                           {"key", limit.key},
                                           {"limit", limit.limit},
                                           {"window", format_duration(limit.window_us)}};
    lines.emplace_back(object.dump(), limit.source);
  }
  return lines;
}

void traffic_lines(Lines& out, const Imported& imported, const DefaultTraffic& traffic) {
  out.add(
      fmt::format("  \"duration\": \"{}\",", format_duration(traffic.duration_us)),
      "default: three windows of the longest limit (1m to 24h, about 2,000,000 requests at most)");
  out.add("  \"limits\": [");
  out.members(limit_lines(imported), "    ");
  out.add("  ],");
  out.add(fmt::format("  \"instances\": {{\"count\": {}}},", kDefaultInstances),
          "default: how many app instances (Kong nodes, Envoys) run");
  out.add("  \"load_balancer\": {\"policy\": \"round_robin\"},", "default");
  const nlohmann::ordered_json group = {{"name", "clients"},
                                        {"users", kDefaultUsers},
                                        {"rate", rate_text(traffic.rate_per_s)},
                                        {"arrival", "poisson"}};
  out.add("  \"traffic\": [" + group.dump() + "],",
          "default: each user at 1.5x the rate that fills the tightest limit");
}

void strategy_lines(Lines& out, const Imported& imported) {
  out.add("  \"strategies\": [");
  out.add("    {");
  std::vector<std::pair<std::string, std::string>> members{
      {member("name", imported.strategy), "the rlsim model of the product"}};
  if (!imported.mode.value.is_null())
    members.emplace_back(member("mode", imported.mode.value), imported.mode.source);
  for (const auto& [name, value] : imported.params)
    members.emplace_back(member(name, value.value), value.source);
  out.members(members, "      ");
  out.add("    }");
  out.add("  ]");
}

}  // namespace

std::string scenario_text(const Imported& imported, const std::string& name) {
  RLSIM_CHECK(!imported.limits.empty());
  Lines out;
  header(out, imported);
  out.add("{");
  out.add("  " + member("name", scenario_name_of(name)) + ",");
  out.add("  " +
          member("description",
                 fmt::format("{} imported from {}", imported.product, imported.files.front())) +
          ",");
  out.add("  \"seed\": 1,", "default");
  traffic_lines(out, imported, default_traffic(imported.limits));
  if (imported.uses_redis) {
    std::vector<std::pair<std::string, std::string>> redis{
        {member("rtt", "500us"), "default: a Redis in the same datacenter"}};
    for (const auto& [field, value] : imported.redis)
      redis.emplace_back(member(field, value.value), value.source);
    out.add("  \"redis\": {");
    out.members(redis, "    ");
    out.add("  },");
  }
  strategy_lines(out, imported);
  out.add("}");
  return out.text();
}

}  // namespace rlsim
