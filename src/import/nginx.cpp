// nginx's limit_req: `limit_req_zone KEY zone=NAME:SIZE rate=Rr/s|Rr/m;` in the http block and
// `limit_req zone=NAME [burst=N] [nodelay | delay=N];` in http, server or location blocks, as
// src/http/modules/ngx_http_limit_req_module.c parses them (ngx_http_limit_req_zone,
// ngx_http_limit_req), modelled by the nginx_limit_req strategy (docs/import.md#nginx).
#include <fmt/format.h>

#include <charconv>
#include <map>
#include <optional>

#include "import/directives.h"
#include "import/formats.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

struct Zone {
  std::string key;  // rlsim's key: user, ip, endpoint or global
  std::string variable;
  std::int64_t rate = 0;  // requests per `per_us`
  DurationUs per_us = kUsPerS;
  std::string at;
};

// What the zone's key variable counts per: the client address, the path, an identity (a header,
// an argument, a cookie, $remote_user), or one key for all ($server_name, a constant).
std::optional<std::string> key_of_variable(const std::string& variable) {
  if (variable == "$binary_remote_addr" || variable == "$remote_addr" ||
      variable == "$http_x_forwarded_for" || variable == "$http_x_real_ip")
    return "ip";
  if (variable == "$uri" || variable == "$request_uri" || variable == "$document_uri")
    return "endpoint";
  if (variable == "$server_name" || variable == "$host" || variable.find('$') == std::string::npos)
    return "global";
  if (variable == "$remote_user" || variable.starts_with("$http_") ||
      variable.starts_with("$arg_") || variable.starts_with("$cookie_"))
    return "user";
  return std::nullopt;
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// "zone=NAME:SIZE" -> NAME, "rate=10r/s" -> (10, 1s); a word's value after `name=`.
std::optional<std::string> option(const std::vector<std::string>& words, const std::string& name) {
  for (std::size_t i = 1; i < words.size(); ++i)
    if (words[i].starts_with(name + "=")) return words[i].substr(name.size() + 1);
  return std::nullopt;
}

Zone read_zone(const std::string& path, const Directive& d, std::string& name) {
  const std::string at = where_directive(path, d);
  const auto zone = option(d.words, "zone");
  const auto rate = option(d.words, "rate");
  if (d.words.size() < 4 || !zone || !rate)
    throw ScenarioError(at +
                        ": limit_req_zone needs a key, zone=NAME:SIZE and rate=R (nginx "
                        "refuses it)");
  name = zone->substr(0, zone->find(':'));
  Zone out;
  out.variable = d.words[1];
  out.at = at;
  const bool per_minute = rate->ends_with("r/m");
  const auto value = whole_number(std::string_view(*rate).substr(0, rate->size() - 3));
  if ((!per_minute && !rate->ends_with("r/s")) || !value || *value < 1)
    throw ScenarioError(fmt::format("{}: rate={}: nginx expects \"Nr/s\" or \"Nr/m\"", at, *rate));
  out.rate = *value;
  out.per_us = per_minute ? 60 * kUsPerS : kUsPerS;
  return out;
}

struct LimitReq {
  std::string zone;
  std::int64_t burst = 0;
  bool nodelay = false;
  std::int64_t delay = 0;
  std::string at;
};

LimitReq read_limit_req(const std::string& path, const Directive& d) {
  LimitReq out;
  out.at = where_directive(path, d);
  for (std::size_t i = 1; i < d.words.size(); ++i) {
    const std::string& word = d.words[i];
    const auto number = [&](std::size_t prefix) {
      const auto value = whole_number(std::string_view(word).substr(prefix));
      if (!value || *value < 0)
        throw ScenarioError(fmt::format("{}: {}: nginx expects a whole number", out.at, word));
      return *value;
    };
    if (word.starts_with("zone="))
      out.zone = word.substr(5);
    else if (word.starts_with("burst="))
      out.burst = number(6);
    else if (word.starts_with("delay="))
      out.delay = number(6);
    else if (word == "nodelay")
      out.nodelay = true;
    else
      throw ScenarioError(fmt::format("{}: limit_req: unknown parameter {}", out.at, word));
  }
  if (out.zone.empty()) throw ScenarioError(out.at + ": limit_req needs zone=NAME");
  return out;
}

// Each limit_req as a limit of its zone's rate and key; the first one's burst, nodelay and delay
// as the strategy's (one set for all: warned when another directive differs).
void add_limits(const std::map<std::string, Zone>& zones, const std::vector<LimitReq>& reqs,
                Imported& imported) {
  for (const LimitReq& req : reqs) {
    const auto zone = zones.find(req.zone);
    if (zone == zones.end())
      throw ScenarioError(
          fmt::format("{}: limit_req zone={}: no limit_req_zone of that name "
                      "(nginx refuses it)",
                      req.at, req.zone));
    const Zone& z = zone->second;
    imported.add_limit({scenario_name_of(req.zone), z.key, z.rate, z.per_us,
                        fmt::format("{} limit_req_zone {} rate={}r/{}; {} limit_req", z.at,
                                    z.variable, z.rate, z.per_us == kUsPerS ? "s" : "m", req.at)});
    const LimitReq& first = reqs.front();
    if (&req != &first &&
        (req.burst != first.burst || req.nodelay != first.nodelay || req.delay != first.delay))
      imported.warn(req.at,
                    "burst, nodelay and delay differ from the first limit_req's: the "
                    "model takes the first's for every limit");
  }
  const LimitReq& first = reqs.front();
  imported.param("burst", first.burst, first.at + " burst");
  imported.param("nodelay", first.nodelay,
                 first.at + (first.nodelay ? " nodelay" : " (no nodelay)"));
  if (first.delay > 0) imported.param("delay", first.delay, first.at + " delay");
}

}  // namespace

Imported import_nginx(const std::vector<ConfigFile>& files, const ImportSettings& settings) {
  check_setting_names(settings, "nginx", {});
  Imported imported;
  imported.format = "nginx";
  imported.product = "nginx limit_req configuration";
  imported.strategy = "nginx_limit_req";
  imported.uses_redis = false;
  imported.notes.push_back("one zone per nginx instance: N instances admit N x the rate");
  std::map<std::string, Zone> zones;
  std::vector<LimitReq> reqs;
  for (const ConfigFile& file : files) {
    imported.files.push_back(file.path);
    for (const Directive& d : nginx_directives(file.directives, file.path)) {
      const std::string& name = d.words.front();
      if (name == "limit_req_zone") {
        std::string zone_name;
        Zone zone = read_zone(file.path, d, zone_name);
        const auto key = key_of_variable(zone.variable);
        if (!key)
          imported.warn(zone.at, fmt::format("key {}: says no client address, identity or path; "
                                             "keyed by user",
                                             zone.variable));
        zone.key = key.value_or("user");
        zones[zone_name] = zone;
      } else if (name == "limit_req") {
        reqs.push_back(read_limit_req(file.path, d));
        for (const std::string& block : d.blocks)
          if (block.starts_with("location"))
            imported.warn(reqs.back().at, "applies to " + block +
                                              " only in nginx: rlsim applies "
                                              "every limit to every request");
      } else if (name == "limit_req_dry_run" || name == "limit_req_status" ||
                 name == "limit_req_log_level") {
        imported.warn(where_directive(file.path, d), name + ": not modelled");
      }
    }
  }
  if (reqs.empty())
    throw ScenarioError(files.front().path + ": no limit_req directive (with its limit_req_zone)");
  add_limits(zones, reqs, imported);
  return imported;
}

}  // namespace rlsim
