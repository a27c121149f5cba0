// HAProxy's stick-table rate limit: `stick-table type ... store http_req_rate(PERIOD) [peers P]`,
// `http-request track-scN SAMPLE` and `http-request deny ... if { sc_http_req_rate(N) gt T }`
// (or `scN_http_req_rate gt T`, or `ge`), as HAProxy's configuration manual defines them (src/
// stick_table.c parses the table line), modelled by the haproxy_stick_table strategy
// (docs/import.md#haproxy).
#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "import/directives.h"
#include "import/formats.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

struct Table {
  DurationUs period_us = 0;
  bool peers = false;
  std::string at;
};

// HAProxy's time units: "10s", "500ms", "1m", "1h", "1d"; a bare number is milliseconds.
std::optional<DurationUs> haproxy_duration(const std::string& text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || value < 1) return std::nullopt;
  const std::string unit(ptr, text.data() + text.size());
  if (unit.empty() || unit == "ms") return value * kUsPerMs;
  if (unit == "s") return value * kUsPerS;
  if (unit == "m") return value * 60 * kUsPerS;
  if (unit == "h") return value * 3600 * kUsPerS;
  if (unit == "d") return value * 86'400 * kUsPerS;
  return std::nullopt;
}

std::optional<Table> read_table(const std::string& path, const Directive& d) {
  Table table;
  table.at = where_directive(path, d);
  for (std::size_t i = 1; i + 1 < d.words.size(); ++i) {
    if (d.words[i] == "peers") table.peers = true;
    if (d.words[i] != "store") continue;
    const std::string& stored = d.words[i + 1];
    const auto at = stored.find("http_req_rate(");
    if (at == std::string::npos) continue;
    const auto close = stored.find(')', at);
    const auto period = haproxy_duration(stored.substr(at + 14, close - at - 14));
    if (close == std::string::npos || !period)
      throw ScenarioError(
          fmt::format("{}: {}: HAProxy expects http_req_rate(<period>)", table.at, stored));
    table.period_us = *period;
  }
  if (table.period_us == 0) return std::nullopt;
  return table;
}

// The key a track-sc rule's sample counts per.
std::optional<std::string> key_of_sample(const std::string& sample) {
  if (sample == "src" || sample.starts_with("src,") ||
      sample.find("x-forwarded-for") != std::string::npos ||
      sample.find("X-Forwarded-For") != std::string::npos)
    return "ip";
  if (sample == "path" || sample == "url" || sample == "base" || sample.starts_with("path,"))
    return "endpoint";
  if (sample.starts_with("req.hdr(") || sample.starts_with("hdr(") ||
      sample.starts_with("req.cook(") || sample.starts_with("url_param("))
    return "user";
  return std::nullopt;
}

// The threshold of a deny rule on the tracked rate: `gt T` denies above T (T admitted per
// period), `ge T` at T (T - 1 admitted).
std::optional<std::int64_t> deny_threshold(const Directive& d) {
  for (std::size_t i = 0; i + 2 < d.words.size(); ++i) {
    const std::string& fetch = d.words[i];
    if (fetch.find("http_req_rate") == std::string::npos) continue;
    const std::string& op = d.words[i + 1];
    std::int64_t value = 0;
    const std::string& number = d.words[i + 2];
    const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || ptr != number.data() + number.size()) return std::nullopt;
    if (op == "gt") return value;
    if (op == "ge") return value - 1;
  }
  return std::nullopt;
}

// Reads one file's table, track rule and deny rule into `table`, `key` and `threshold`.
void read_file(const ConfigFile& file, std::optional<Table>& table, std::optional<std::string>& key,
               std::optional<std::int64_t>& threshold, Imported& imported) {
  for (const Directive& d : haproxy_directives(file.directives, file.path)) {
    const std::string at = where_directive(file.path, d);
    const std::string& name = d.words.front();
    if (name == "stick-table" && !table) {
      table = read_table(file.path, d);
    } else if (name == "stick-table") {
      imported.warn(at, "another stick-table not imported: a scenario models one");
    } else if ((name == "http-request" || name == "tcp-request") && d.words.size() >= 3 &&
               d.words[1].starts_with("track-sc")) {
      const auto mapped = key_of_sample(d.words[2]);
      if (!mapped)
        imported.warn(at, "sample " + d.words[2] +
                              ": says no address, identity or "
                              "path; keyed by user");
      if (!key) key = mapped.value_or("user");
    } else if (name == "http-request" && d.words.size() >= 2 && d.words[1] == "deny") {
      const auto value = deny_threshold(d);
      if (value && !threshold) threshold = *value;
      if (!value) imported.warn(at, "a deny rule on no http_req_rate threshold: not modelled");
    }
  }
}

}  // namespace

Imported import_haproxy(const std::vector<ConfigFile>& files, const ImportSettings& settings) {
  check_setting_names(settings, "haproxy", {});
  Imported imported;
  imported.format = "haproxy";
  imported.product = "HAProxy stick-table rate limit";
  imported.strategy = "haproxy_stick_table";
  imported.uses_redis = false;
  std::optional<Table> table;
  std::optional<std::string> key;
  std::optional<std::int64_t> threshold;
  for (const ConfigFile& file : files) {
    imported.files.push_back(file.path);
    read_file(file, table, key, threshold, imported);
  }
  const std::string path = files.front().path;
  if (!table) throw ScenarioError(path + ": no stick-table storing http_req_rate(<period>)");
  if (!threshold || *threshold < 1)
    throw ScenarioError(path +
                        ": no `http-request deny ... if { sc_http_req_rate(0) gt N }` rule "
                        "with N of at least 1");
  imported.add_limit({"http_req_rate", key.value_or("ip"), *threshold, table->period_us,
                      fmt::format("{} stick-table store http_req_rate({}); deny above {}",
                                  table->at, format_duration(table->period_us), *threshold)});
  if (!key) imported.warn(table->at, "no track-sc rule: keyed by ip (src), HAProxy's usual");
  imported.param("peers", table->peers,
                 table->at + (table->peers ? " peers (replicated between instances)"
                                           : " (no peers: one table per instance)"));
  return imported;
}

}  // namespace rlsim
