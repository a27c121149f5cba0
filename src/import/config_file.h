#pragma once
// Reading a product's configuration file to import (YAML, or JSON, which is YAML too) through the
// same guards as a scenario file (docs/scenario-format.md#validation-rules): a regular file of at
// most kMaxConfigFileBytes, nesting at most kMaxConfigDepth, at most kMaxConfigNodes nodes, each
// alias counted every time it is reached (so a "billion laughs" file stops early). Every problem
// is a ScenarioError naming the file and, where there is one, the line and column.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>

namespace rlsim {

inline constexpr std::size_t kMaxConfigFileBytes = 16 * 1024 * 1024;
// An Envoy bootstrap nests a route's typed_per_filter_config about 14 deep.
inline constexpr std::size_t kMaxConfigDepth = 64;
inline constexpr std::size_t kMaxConfigNodes = 100'000;

// One parsed file: its name as given (used in messages and comments) and its root node; for an
// nginx or HAProxy configuration (directives, not YAML: holds_directives), no root and its text.
struct ConfigFile {
  std::string path;
  YAML::Node root;
  std::string directives;  // the text of an nginx or HAProxy file; empty for YAML
};

// Whether `text` is an nginx or HAProxy configuration with a rate limit (limit_req_zone, or a
// stick-table or track-sc rule) rather than YAML: read by import/directives.h instead.
bool holds_directives(const std::string& text);

// Parses `text` as YAML (the file name only for messages) and checks the bounds.
ConfigFile parse_config_text(const std::string& text, const std::string& path);

// Reads the regular file at `path` and parses it.
ConfigFile read_config_file(const std::string& path);

// "<file>:<line>:<column>" of `node` (1-based), or "<file>" when the node has no position.
std::string where(const ConfigFile& file, const YAML::Node& node);

// Throws ScenarioError "<where>: <field>: <what>" (no field part when `field` is empty).
[[noreturn]] void fail_at(const ConfigFile& file, const YAML::Node& node, const std::string& field,
                          const std::string& what);

// The value of `map`'s field `key`, or an undefined node (IsDefined() false, and safe to ask
// anything: yaml-cpp throws when asked the type of a missing key's node, or for a field of a
// scalar) when `map` is not a map or has no such field. Every importer reads fields through it.
YAML::Node field_of(const YAML::Node& map, const std::string& key);

// The scalar text of `node` as it is written, for messages ("<a map>", "<a list>" otherwise).
std::string text_of(const YAML::Node& node);

// Typed reads of a map's field: nullopt when the field is absent (or null); a ScenarioError at
// the value's position when it is of another type. `field` names the field in messages.
std::optional<double> number_field(const ConfigFile& file, const YAML::Node& map,
                                   const std::string& field);
std::optional<std::int64_t> integer_field(const ConfigFile& file, const YAML::Node& map,
                                          const std::string& field);
std::optional<bool> bool_field(const ConfigFile& file, const YAML::Node& map,
                               const std::string& field);
std::optional<std::string> string_field(const ConfigFile& file, const YAML::Node& map,
                                        const std::string& field);

}  // namespace rlsim
