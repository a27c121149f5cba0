#include "import/import.h"

#include <fmt/format.h>

#include "core/check.h"
#include "scenario/error.h"

namespace rlsim {

const std::vector<std::string>& import_formats() {
  static const std::vector<std::string> formats{"kong",      "envoy_ratelimit", "envoy_local",
                                                "limitador", "nginx",           "haproxy"};
  return formats;
}

namespace {

bool holds_local_ratelimit(const YAML::Node& node) {
  if (node.IsMap() && field_of(node, "@type").IsScalar() &&
      field_of(node, "@type").Scalar().ends_with("http.local_ratelimit.v3.LocalRateLimit"))
    return true;
  if (node.IsSequence())
    for (const YAML::Node& child : node)
      if (holds_local_ratelimit(child)) return true;
  if (node.IsMap())
    for (const auto& entry : node)
      if (holds_local_ratelimit(entry.second)) return true;
  return false;
}

std::string formats_text() {
  std::string text;
  for (const std::string& format : import_formats()) text += (text.empty() ? "" : ", ") + format;
  return text;
}

}  // namespace

std::string detect_format(const ConfigFile& file) {
  if (!file.directives.empty())
    return file.directives.find("limit_req_zone") != std::string::npos ? "nginx" : "haproxy";
  const YAML::Node& root = file.root;
  if (root.IsMap()) {
    for (const char* field : {"_format_version", "services", "routes", "consumers", "plugins"})
      if (field_of(root, field).IsDefined()) return "kong";
    if (field_of(root, "domain").IsDefined() && field_of(root, "descriptors").IsDefined())
      return "envoy_ratelimit";
  }
  if (root.IsSequence() && root.size() > 0 && root[0].IsMap() &&
      field_of(root[0], "max_value").IsDefined())
    return "limitador";
  if (holds_local_ratelimit(root)) return "envoy_local";
  return "";
}

Imported import_files(const std::vector<ConfigFile>& files, const std::string& format,
                      const ImportSettings& settings) {
  RLSIM_CHECK(!files.empty());
  std::string chosen = format;
  if (chosen.empty()) {
    for (const ConfigFile& file : files) {
      const std::string detected = detect_format(file);
      if (detected.empty())
        throw ScenarioError(
            fmt::format("{}: cannot tell the configuration's format; give --format "
                        "({})",
                        file.path, formats_text()));
      if (!chosen.empty() && detected != chosen)
        throw ScenarioError(
            fmt::format("{}: a {} configuration, while {} is {}: import one "
                        "product at a time",
                        file.path, detected, files.front().path, chosen));
      chosen = detected;
    }
  }
  if (chosen == "kong") return import_kong(files, settings);
  if (chosen == "envoy_ratelimit") return import_envoy_ratelimit(files, settings);
  if (chosen == "envoy_local") return import_envoy_local(files, settings);
  if (chosen == "limitador") return import_limitador(files, settings);
  if (chosen == "nginx") return import_nginx(files, settings);
  if (chosen == "haproxy") return import_haproxy(files, settings);
  throw ScenarioError(
      fmt::format("--format: unknown format \"{}\" (expected one of: {})", chosen, formats_text()));
}

}  // namespace rlsim
