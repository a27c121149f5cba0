#include "scenario/load_replay.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/file_text.h"
#include "logs/log_time.h"
#include "logs/nginx_format.h"
#include "scenario/reader.h"

namespace rlsim {
namespace {

using nlohmann::json;

constexpr std::pair<const char*, LogFormat> kFormats[] = {{"csv", LogFormat::kCsv},
                                                          {"jsonl", LogFormat::kJsonLines},
                                                          {"nginx", LogFormat::kNginx},
                                                          {"envoy", LogFormat::kEnvoy},
                                                          {"haproxy", LogFormat::kHaproxy}};

// Each format's default time field, slot fields and denied verdicts (docs/replay.md).
struct FormatDefaults {
  const char* time;
  std::array<const char*, kLogSlotCount> fields;  // user, ip, endpoint, instance, verdict
  const char* denied;
};

FormatDefaults defaults_of(LogFormat format) {
  switch (format) {
    case LogFormat::kCsv:
    case LogFormat::kJsonLines:
      return {"time", {"key", "ip", "endpoint", "instance", "status"}, "429"};
    case LogFormat::kNginx:
      return {"", {"remote_addr", "remote_addr", "uri", "", "status"}, "429"};
    case LogFormat::kEnvoy:
      return {
          "start_time", {"x_forwarded_for", "", "path", "upstream_host", "response_flags"}, "RL"};
    case LogFormat::kHaproxy:
      return {"", {"client_ip", "client_ip", "uri", "server_name", "status"}, "429"};
  }
  return {"", {"", "", "", "", ""}, ""};
}

// `from` or `to`: a number (log time in seconds), an ISO 8601 date-time (log time) or a
// duration (after the log's first line).
void read_window_bound(ObjectReader& reader, const char* key, std::optional<std::int64_t>& log_us,
                       std::optional<DurationUs>& offset_us) {
  const json* value = reader.find(key);
  if (value == nullptr) return;
  if (value->is_number() && value->get<double>() >= 0) {
    log_us = parse_seconds_us(fmt::format("{:.6f}", value->get<double>()));
  } else if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    if (auto offset = parse_duration(text)) {
      offset_us = *offset;
      return;
    }
    log_us = parse_iso8601_us(text);
  }
  if (!log_us)
    reader.fail(reader.path_of(key),
                fmt::format("expected log time in seconds (1765000000.5), an ISO 8601 date-time "
                            "(\"2026-12-06T10:00:00Z\") or a duration after the first line "
                            "(\"10m\"), got {}",
                            value->dump()));
}

void read_fields(ObjectReader& replay, LogFormatSpec& log) {
  const FormatDefaults defaults = defaults_of(log.format);
  for (std::size_t slot = 0; slot < kLogSlotCount; ++slot) log.fields[slot] = defaults.fields[slot];
  // The CSV and JSON Lines `key` column is the one field those formats must have.
  log.required[0] = log.format == LogFormat::kCsv || log.format == LogFormat::kJsonLines ||
                    log.format == LogFormat::kEnvoy;
  const json* fields = replay.find("fields");
  if (fields == nullptr) return;
  ObjectReader reader(*fields, replay.path_of("fields"), replay.file(),
                      {"user", "ip", "endpoint", "instance", "verdict"});
  for (std::size_t slot = 0; slot < kLogSlotCount; ++slot) {
    const json* name = reader.find(kLogSlotNames[slot]);
    if (name == nullptr) continue;
    if (!name->is_string() || name->get<std::string>().size() > 128)
      reader.fail(reader.path_of(kLogSlotNames[slot]),
                  "expected the name of a field of the log (\"\" to read none)");
    std::string text = name->get<std::string>();
    if (!text.empty() && text.front() == '$') text.erase(0, 1);  // nginx's spelling
    log.fields[slot] = text;
    log.required[slot] = !text.empty();  // named: the log must have it
  }
}

void read_format(ObjectReader& replay, LogFormatSpec& log) {
  log.format = replay.enum_field("format", LogFormat::kCsv, kFormats);
  const FormatDefaults defaults = defaults_of(log.format);
  const std::string default_time = defaults.time;
  const bool has_time_field = log.format == LogFormat::kCsv ||
                              log.format == LogFormat::kJsonLines ||
                              log.format == LogFormat::kEnvoy;
  if (has_time_field) {
    log.time_field = replay.string_field("time", &default_time);
  } else if (replay.find("time") != nullptr) {
    replay.fail(replay.path_of("time"),
                "only for csv, jsonl and envoy (nginx and haproxy take the time from the format)");
  }
  if (log.format == LogFormat::kNginx) {
    const std::string combined = "combined";
    log.log_format = replay.string_field("log_format", &combined);
    if (log.log_format == "combined") log.log_format = std::string(kNginxCombined);
  } else if (replay.find("log_format") != nullptr) {
    replay.fail(replay.path_of("log_format"), "only for \"format\": \"nginx\"");
  }
  read_fields(replay, log);
  std::string error;
  if (make_line_parser(log, error) == nullptr)
    replay.fail(replay.path_of(log.format == LogFormat::kNginx ? "log_format" : "format"), error);
}

ReplaySpec read_replay(ObjectReader& group, const json& value) {
  ObjectReader reader(value, group.path_of("replay"), group.file());
  ReplaySpec spec;
  spec.file = reader.string_field("file", nullptr);
  if (spec.file.empty() || spec.file.size() > 4096)
    reader.fail(reader.path_of("file"), "expected the log's path, relative to the scenario");
  read_format(reader, spec.log);
  const json* denied = reader.find("denied");
  if (denied == nullptr) {
    spec.denied.emplace_back(defaults_of(spec.log.format).denied);
  } else {
    const json& list = reader.array_field("denied", false, 1, 16);
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string() && !list[i].is_number_integer())
        reader.fail(fmt::format("{}[{}]", reader.path_of("denied"), i),
                    "expected a verdict value such as \"429\" or \"RL\"");
      spec.denied.push_back(list[i].is_string() ? list[i].get<std::string>() : list[i].dump());
    }
  }
  std::optional<DurationUs> from_offset_us;
  read_window_bound(reader, "from", spec.from_log_us, from_offset_us);
  spec.from_offset_us = from_offset_us.value_or(0);
  read_window_bound(reader, "to", spec.to_log_us, spec.to_offset_us);
  if (spec.from_log_us && spec.to_log_us && *spec.to_log_us <= *spec.from_log_us)
    reader.fail(reader.path_of("to"), "expected \"to\" after \"from\"");
  if (!spec.from_log_us && spec.to_offset_us && *spec.to_offset_us <= spec.from_offset_us)
    reader.fail(reader.path_of("to"), "expected \"to\" after \"from\"");
  if (const json* speedup = reader.find("speedup")) {
    if (!speedup->is_number() || !(speedup->get<double>() > 0) || speedup->get<double>() > 1e6)
      reader.fail(
          reader.path_of("speedup"),
          fmt::format("expected a number above 0 and at most 1000000, got {}", speedup->dump()));
    spec.speedup = speedup->get<double>();
  }
  spec.max_bad_lines =
      reader.int_field("max_bad_lines", &spec.max_bad_lines, -1, std::int64_t{1} << 40);
  reader.reject_unknown();
  return spec;
}

}  // namespace

void read_traffic_replay(ObjectReader& group_reader, TrafficGroup& group) {
  if (const json* instance = group_reader.find("instance")) {
    group.instance = static_cast<std::uint32_t>(group_reader.check_int(
        *instance, group_reader.path_of("instance"), 0, ScenarioBounds::kMaxInstances - 1));
  }
  const json* replay = group_reader.find("replay");
  if (replay == nullptr) return;
  for (const char* field : {"users", "rate", "ramp_to", "arrival", "burst_size", "ips", "endpoints",
                            "instance", "roaming"}) {
    if (group_reader.find(field) != nullptr)
      group_reader.fail(group_reader.path_of(field),
                        "not allowed with \"replay\" (the log gives the requests; pin them to "
                        "instances with replay.fields.instance)");
  }
  group.replay = read_replay(group_reader, *replay);
  // Interned users and IPs get ids from ranges of this size (world/catalog.h).
  group.users = group.ips = ScenarioBounds::kMaxUsersPerGroup;
  group.rate_per_s = group.ramp_to_per_s = 0;
}

void check_replay_logs(const Scenario& scenario, const std::string& file) {
  for (std::size_t i = 0; i < scenario.traffic.size(); ++i) {
    const auto& replay = scenario.traffic[i].replay;
    if (!replay) continue;
    const std::string path = fmt::format("traffic[{}].replay.file", i);
    std::string error;
    auto stream = scenario.open_log ? scenario.open_log(replay->file, error) : nullptr;
    if (stream == nullptr) {
      if (error.empty()) error = "no way to open it (the front end gave no opener)";
      throw ScenarioError(scenario_error_message(
          file, path, fmt::format("cannot read the log \"{}\": {}", replay->file, error)));
    }
    LogReader reader(std::move(stream), make_line_parser(replay->log, error),
                     replay->max_bad_lines);
    if (!reader.start())
      throw ScenarioError(scenario_error_message(
          file, path, fmt::format("the log \"{}\": {}", replay->file, reader.failure())));
  }
}

LogOpener scenario_log_opener(const std::string& scenario_path) {
  const std::filesystem::path parent = std::filesystem::path(scenario_path).parent_path();
  const std::string folder = parent.empty() ? "." : parent.string();
  return [folder](const std::string& name, std::string& error) -> std::unique_ptr<std::istream> {
    const std::filesystem::path path = std::filesystem::path(name).is_absolute()
                                           ? std::filesystem::path(name)
                                           : std::filesystem::path(folder) / name;
    return open_regular_stream(path.string(), error);
  };
}

}  // namespace rlsim
