// Kong declarative configuration (kong.yml, YAML or JSON): its rate-limiting plugins, as
// kong/plugins/rate-limiting/schema.lua and handler.lua (get_identifier) define them, and the
// Redis block of kong/tools/redis/schema.lua (Kong master 22246ef2; docs/import.md#kong).
#include <fmt/format.h>

#include <cmath>

#include "import/formats.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

struct KongPlugin {
  const ConfigFile* file = nullptr;
  YAML::Node node;
  std::string scope;  // "global", "service orders", "route r1", "consumer alice"
};

// The name of an entity a top-level plugin refers to: `service: orders` or `service: {name: x}`.
std::string reference_of(const YAML::Node& value) {
  if (value.IsScalar()) return value.Scalar();
  if (value.IsMap())
    for (const char* field : {"name", "username", "id"})
      if (field_of(value, field).IsScalar()) return field_of(value, field).Scalar();
  return "?";
}

std::string top_level_scope(const YAML::Node& plugin) {
  std::string scope;
  for (const char* entity : {"consumer", "route", "service"}) {
    if (!field_of(plugin, entity).IsDefined() || field_of(plugin, entity).IsNull()) continue;
    scope += (scope.empty() ? "" : ", ") + std::string(entity) + " " +
             reference_of(field_of(plugin, entity));
  }
  return scope.empty() ? "global" : scope;
}

void collect(const ConfigFile& file, const YAML::Node& list, const std::string& scope,
             std::vector<KongPlugin>& out, Imported& imported) {
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) fail_at(file, list, "plugins", "expected a list, got " + text_of(list));
  for (const YAML::Node& plugin : list) {
    const std::string name = string_field(file, plugin, "name").value_or("");
    if (name == "rate-limiting") {
      out.push_back({&file, plugin, scope.empty() ? top_level_scope(plugin) : scope});
    } else if (name.find("ratelimit") != std::string::npos ||
               name.find("rate-limit") != std::string::npos) {
      imported.warn(where(file, plugin),
                    fmt::format("plugin {} not imported (rlsim models Kong's open-source "
                                "rate-limiting plugin)",
                                name));
    }
  }
}

// Each entity of `list` (services, routes, consumers) with its plugins and its routes'.
void collect_entities(const ConfigFile& file, const YAML::Node& list, const std::string& kind,
                      std::vector<KongPlugin>& out, Imported& imported) {
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) fail_at(file, list, kind + "s", "expected a list, got " + text_of(list));
  for (const YAML::Node& entity : list) {
    const std::string name = reference_of(entity);
    collect(file, field_of(entity, "plugins"), fmt::format("{} {}", kind, name), out, imported);
    if (kind == "service")
      collect_entities(file, field_of(entity, "routes"), "route", out, imported);
  }
}

std::vector<KongPlugin> rate_limiting_plugins(const std::vector<ConfigFile>& files,
                                              Imported& imported) {
  std::vector<KongPlugin> plugins;
  for (const ConfigFile& file : files) {
    if (!file.root.IsMap())
      fail_at(file, file.root, "", "expected a map (Kong's declarative configuration)");
    const auto version = string_field(file, file.root, "_format_version");
    if (!version)
      fail_at(file, file.root, "_format_version",
              "missing (Kong's declarative configuration starts with _format_version: \"3.0\")");
    if (*version != "3.0" && *version != "2.1" && *version != "1.1")
      fail_at(file, field_of(file.root, "_format_version"), "_format_version",
              fmt::format("expected \"3.0\", \"2.1\" or \"1.1\", got \"{}\"", *version));
    collect(file, field_of(file.root, "plugins"), "", plugins, imported);
    collect_entities(file, field_of(file.root, "services"), "service", plugins, imported);
    collect_entities(file, field_of(file.root, "routes"), "route", plugins, imported);
    collect_entities(file, field_of(file.root, "consumers"), "consumer", plugins, imported);
  }
  return plugins;
}

struct Period {
  const char* name;
  DurationUs window_us;  // 0: longer than a scenario's windows (24 h)
};
constexpr Period kPeriods[] = {{"second", kUsPerS},  {"minute", kUsPerMin},
                               {"hour", kUsPerHour}, {"day", 24 * kUsPerHour},
                               {"month", 0},         {"year", 0}};

void import_periods(const ConfigFile& file, const YAML::Node& config, const std::string& key,
                    const std::string& limit_by_text, Imported& imported) {
  for (const Period& period : kPeriods) {
    const auto value = number_field(file, config, period.name);
    if (!value) continue;
    const YAML::Node node = field_of(config, period.name);
    const std::string at = where(file, node);
    if (*value <= 0)
      fail_at(file, node, std::string("config.") + period.name,
              "Kong: a period's limit must be greater than 0, got " + text_of(node));
    if (period.window_us == 0 || *value < 1) {
      imported.warn(at, fmt::format("config.{}: {} not imported ({})", period.name, text_of(node),
                                    *value < 1 ? "a limit below 1 request"
                                               : "rlsim's windows are at most 24h"));
      continue;
    }
    if (*value != std::floor(*value))
      imported.warn(at, fmt::format("config.{}: {} rounded down to {} (whole requests)",
                                    period.name, *value, std::floor(*value)));
    imported.add_limit({period.name, key, static_cast<std::int64_t>(std::floor(*value)),
                        period.window_us,
                        fmt::format("{} config.{}: {} per {} ({})", at, period.name, node.Scalar(),
                                    period.name, limit_by_text)});
  }
  if (imported.limits.empty())
    fail_at(file, config, "config",
            "no second, minute, hour or day limit to import (Kong needs at least one period)");
}

// limit_by as the limits' key (handler.lua get_identifier); "" for header, which has none.
struct LimitBy {
  std::string key;
  std::string text;  // for the comments: "limit_by consumer -> key user"
};

LimitBy limit_by_of(const ConfigFile& file, const YAML::Node& config, Imported& imported) {
  const std::string value = string_field(file, config, "limit_by").value_or("consumer");
  const YAML::Node node = field_of(config, "limit_by");
  const std::string at = node.IsDefined() ? where(file, node) : "default";
  std::string key;
  if (value == "consumer" || value == "credential") key = "user";
  if (value == "ip") key = "ip";
  if (value == "service") key = "global";
  if (value == "path") key = "endpoint";
  if (value == "header") {
    key = "user";
    imported.warn(at, fmt::format("config.limit_by: header ({}) keyed by user: rlsim's requests "
                                  "carry no headers (an API-key header identifies a user)",
                                  string_field(file, config, "header_name").value_or("?")));
  }
  if (key.empty())
    fail_at(file, node, "config.limit_by",
            fmt::format("expected one of \"consumer\", \"credential\", \"ip\", \"service\", "
                        "\"header\", \"path\", got \"{}\"",
                        value));
  if (value != "header")
    imported.param("limit_by", value,
                   node.IsDefined() ? fmt::format("{} config.limit_by: {} (key {})", at, value, key)
                                    : "default: Kong's limit_by consumer");
  return {key, fmt::format("limit_by {} -> key {}", value, key)};
}

void import_policy(const ConfigFile& file, const YAML::Node& config, Imported& imported) {
  std::string policy = string_field(file, config, "policy").value_or("local");
  const YAML::Node node = field_of(config, "policy");
  if (policy != "local" && policy != "cluster" && policy != "redis")
    fail_at(file, node, "config.policy",
            fmt::format("expected one of \"local\", \"cluster\", \"redis\", got \"{}\"", policy));
  if (policy == "cluster") {
    imported.warn(where(file, node),
                  "config.policy: cluster (Kong's database counts) modelled as redis, the same "
                  "increment-then-read on one central counter");
    policy = "redis";
  }
  imported.param("policy", policy,
                 node.IsDefined()
                     ? fmt::format("{} config.policy: {}", where(file, node), node.Scalar())
                     : "default: Kong's policy local");
  const auto sync_rate = number_field(file, config, "sync_rate");
  if (sync_rate && *sync_rate != -1) {
    const auto us = static_cast<DurationUs>(std::llround(*sync_rate * kUsPerS));
    if (*sync_rate < 0.02 || policy != "redis")
      fail_at(file, field_of(config, "sync_rate"), "config.sync_rate",
              "Kong: sync_rate must be greater than 0.02, or -1 to disable, and is used with the "
              "redis policy only");
    imported.param(
        "sync_rate", format_duration(us),
        fmt::format("{} config.sync_rate: {} (seconds)", where(file, field_of(config, "sync_rate")),
                    field_of(config, "sync_rate").Scalar()));
  }
  const auto tolerant = bool_field(file, config, "fault_tolerant");
  imported.param("fault_tolerant", tolerant.value_or(true),
                 tolerant ? fmt::format("{} config.fault_tolerant",
                                        where(file, field_of(config, "fault_tolerant")))
                          : "default: Kong's fault_tolerant true");
  if (policy != "redis") return;
  // The redis block's timeout (ms); the deprecated redis_timeout says the same.
  const YAML::Node redis = field_of(config, "redis");
  // (yaml-cpp's Node assignment would rebind the node inside the document: chosen, not assigned.)
  const bool legacy = !number_field(file, redis, "timeout").has_value();
  const char* field = legacy ? "redis_timeout" : "redis.timeout";
  const YAML::Node node_timeout =
      legacy ? field_of(config, "redis_timeout") : field_of(redis, "timeout");
  const auto timeout_ms =
      legacy ? number_field(file, config, "redis_timeout") : number_field(file, redis, "timeout");
  const auto us = static_cast<DurationUs>(std::llround(timeout_ms.value_or(2000) * kUsPerMs));
  if (us < 1 || us > 60 * kUsPerS)
    fail_at(file, node_timeout, std::string("config.") + field,
            "rlsim's redis.timeout is 1us to 60s, got " + text_of(node_timeout));
  imported.redis.emplace_back(
      "timeout",
      Sourced{format_duration(us),
              timeout_ms ? fmt::format("{} config.{}: {} (ms)", where(file, node_timeout), field,
                                       node_timeout.Scalar())
                         : "default: Kong's redis.timeout 2000 ms"});
}

// The fields of the plugin's config that change nothing in a simulation (where Redis is, the
// answer's status and headers) and those read above; any other is reported.
bool known_config_field(const std::string& field) {
  for (const char* known : {"second",
                            "minute",
                            "hour",
                            "day",
                            "month",
                            "year",
                            "limit_by",
                            "header_name",
                            "path",
                            "policy",
                            "fault_tolerant",
                            "redis",
                            "hide_client_headers",
                            "error_code",
                            "error_message",
                            "sync_rate",
                            "redis_host",
                            "redis_port",
                            "redis_password",
                            "redis_username",
                            "redis_ssl",
                            "redis_ssl_verify",
                            "redis_server_name",
                            "redis_timeout",
                            "redis_database"})
    if (field == known) return true;
  return false;
}

void import_kong_config(const KongPlugin& plugin, Imported& imported) {
  const ConfigFile& file = *plugin.file;
  const YAML::Node config = field_of(plugin.node, "config");
  if (!config.IsMap())
    fail_at(file, plugin.node, "config",
            "expected the plugin's config map, got " + text_of(config));
  imported.notes.push_back(
      fmt::format("the rate-limiting plugin at {} ({}); requests outside its "
                  "scope are not modelled",
                  where(file, plugin.node), plugin.scope));
  for (const auto& entry : config)
    if (!known_config_field(entry.first.Scalar()))
      imported.warn(where(file, entry.first),
                    fmt::format("config.{}: not modelled", entry.first.Scalar()));
  const LimitBy limit_by = limit_by_of(file, config, imported);
  if (limit_by.key == "endpoint")
    imported.notes.push_back(fmt::format(
        "limit_by path counts the requests to config.path ({}) by path, others by client IP; "
        "the default traffic sends every request to one endpoint",
        string_field(file, config, "path").value_or("?")));
  import_periods(file, config, limit_by.key, limit_by.text, imported);
  import_policy(file, config, imported);
}

}  // namespace

Imported import_kong(const std::vector<ConfigFile>& files, const ImportSettings& settings) {
  check_setting_names(settings, "kong", {});
  Imported imported;
  imported.format = "kong";
  imported.product = "Kong declarative configuration";
  imported.strategy = "kong";
  for (const ConfigFile& file : files) imported.files.push_back(file.path);
  // Copied into a new list rather than erased in place: moving yaml-cpp nodes by assignment
  // would rebind the nodes inside the document.
  std::vector<KongPlugin> plugins;
  for (const KongPlugin& plugin : rate_limiting_plugins(files, imported)) {
    if (bool_field(*plugin.file, plugin.node, "enabled").value_or(true))
      plugins.push_back(plugin);
    else
      imported.warn(where(*plugin.file, plugin.node), "a disabled rate-limiting plugin, skipped");
  }
  if (plugins.empty())
    throw ScenarioError(fmt::format(
        "{}: no enabled rate-limiting plugin (global, or under a service, route or consumer)",
        files.front().path));
  // rlsim applies every limit to every request; Kong applies one plugin per request.
  for (std::size_t i = 1; i < plugins.size(); ++i)
    imported.warn(where(*plugins[i].file, plugins[i].node),
                  fmt::format("rate-limiting plugin ({}) not imported: a scenario models one "
                              "plugin; import it from a file of its own",
                              plugins[i].scope));
  import_kong_config(plugins.front(), imported);
  return imported;
}

}  // namespace rlsim
