// Kuadrant Limitador's limits file (limitador-server LIMITS_FILE): a list of limits with
// namespace, max_value, seconds, name, conditions and variables, as limitador-server/examples/
// limits.yaml and limitador/src/limit.rs define them (docs/import.md#limitador).
#include <fmt/format.h>

#include "import/formats.h"
#include "import/keys.h"
#include "import/settings.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

std::vector<std::string> strings_of(const ConfigFile& file, const YAML::Node& limit,
                                    const char* field) {
  std::vector<std::string> out;
  const YAML::Node list = field_of(limit, field);
  if (!list.IsDefined() || list.IsNull()) return out;
  if (!list.IsSequence()) fail_at(file, list, field, "expected a list of strings");
  for (const YAML::Node& item : list) {
    if (!item.IsScalar()) fail_at(file, item, field, "expected a string, got " + text_of(item));
    out.push_back(item.Scalar());
  }
  return out;
}

// A variable's name without the CEL form of newer versions: descriptors[0].user_id -> user_id,
// descriptors[0]['x-api-key'] -> x-api-key.
std::string variable_name(std::string variable) {
  const auto dot = variable.rfind('.');
  if (variable.starts_with("descriptors[") && dot != std::string::npos) variable.erase(0, dot + 1);
  const auto quote = variable.find("['");
  if (quote != std::string::npos) variable = variable.substr(quote + 2);
  while (!variable.empty() && (variable.back() == ']' || variable.back() == '\''))
    variable.pop_back();
  return variable;
}

// Limitador counts per combination of the variables' values; rlsim counts per one key kind.
std::string key_of(const std::vector<std::string>& variables, const std::string& at,
                   Imported& imported) {
  std::string key;
  for (const std::string& variable : variables) {
    const auto mapped = key_for_identifier(variable_name(variable));
    if (!mapped)
      imported.warn(at, fmt::format("variable {}: its name says no client identity, address or "
                                    "path{}",
                                    variable, key.empty() ? "; keyed by user" : ""));
    else if (!key.empty() && *mapped != key)
      imported.warn(at, fmt::format("variable {} ({}) not part of the key: rlsim counts per one "
                                    "key kind ({})",
                                    variable, *mapped, key));
    if (key.empty()) key = mapped.value_or("user");
  }
  return key.empty() ? "global" : key;
}

bool known_limit_field(const std::string& field) {
  for (const char* known : {"namespace", "max_value", "seconds", "name", "conditions", "variables"})
    if (field == known) return true;
  return false;
}

void import_limit(const ConfigFile& file, const YAML::Node& limit, std::string& ns,
                  Imported& imported) {
  const std::string at = where(file, limit);
  if (!limit.IsMap()) fail_at(file, limit, "", "expected a limit (a map), got " + text_of(limit));
  for (const auto& entry : limit)
    if (!known_limit_field(entry.first.Scalar()))
      imported.warn(where(file, entry.first), entry.first.Scalar() + ": not modelled");
  const auto this_ns = string_field(file, limit, "namespace");
  const auto max_value = integer_field(file, limit, "max_value");
  const auto seconds = integer_field(file, limit, "seconds");
  if (!this_ns || !max_value || !seconds)
    fail_at(file, limit, "", "a limit needs namespace, max_value and seconds");
  if (ns.empty()) ns = *this_ns;
  const std::string name = string_field(file, limit, "name").value_or("");
  const std::string what =
      fmt::format("{} per {}s in namespace {}", *max_value, *seconds, *this_ns);
  if (*this_ns != ns) {
    imported.warn(at,
                  fmt::format("{}: not imported: a scenario models one namespace ({})", what, ns));
    return;
  }
  if (*max_value < 1 || *seconds < 1 || *seconds > 86'400) {
    imported.warn(at,
                  what + ": not imported (rlsim's limits are at least 1 request per 1s to 24h)");
    return;
  }
  for (const std::string& condition : strings_of(file, limit, "conditions"))
    imported.warn(at, fmt::format("condition `{}` not modelled: the limit applies to every "
                                  "request",
                                  condition));
  const std::vector<std::string> variables = strings_of(file, limit, "variables");
  std::string vars;
  for (const std::string& variable : variables) vars += (vars.empty() ? "" : ", ") + variable;
  imported.add_limit(
      {name.empty() ? fmt::format("limit_{}", imported.limits.size() + 1) : name,
       key_of(variables, at, imported), *max_value, *seconds * kUsPerS,
       fmt::format("{} {}{}", at, what, vars.empty() ? ", no variables" : ", variables " + vars)});
}

}  // namespace

Imported import_limitador(const std::vector<ConfigFile>& files, const ImportSettings& settings) {
  Imported imported;
  imported.format = "limitador";
  imported.product = "Kuadrant Limitador limits file";
  imported.strategy = "limitador_cached";
  imported.notes.push_back(
      "modelled with the redis_cached storage (limitador-server ... "
      "redis_cached); its flags go in --setting");
  std::string ns;
  for (const ConfigFile& file : files) {
    imported.files.push_back(file.path);
    if (!file.root.IsSequence())
      fail_at(file, file.root, "", "expected a list of limits (Limitador's limits file)");
    for (const YAML::Node& limit : file.root) import_limit(file, limit, ns, imported);
  }
  if (imported.limits.empty())
    throw ScenarioError(files.front().path + ": no limit could be imported");
  apply_limitador_settings(settings, imported);
  return imported;
}

}  // namespace rlsim
