#include "import/config_file.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "core/file_text.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

// Walks the tree depth-first with an explicit stack, counting nodes and depth.
void check_bounds(const ConfigFile& file) {
  std::vector<std::pair<YAML::Node, std::size_t>> stack{{file.root, 1}};
  std::size_t nodes = 0;
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    if (++nodes > kMaxConfigNodes)
      fail_at(file, node, "", fmt::format("more than {} values in one file", kMaxConfigNodes));
    if (depth > kMaxConfigDepth)
      fail_at(file, node, "",
              fmt::format("maps and lists nested deeper than {} levels", kMaxConfigDepth));
    if (node.IsSequence()) {
      for (const YAML::Node& child : node) stack.emplace_back(child, depth + 1);
    } else if (node.IsMap()) {
      for (const auto& entry : node) stack.emplace_back(entry.second, depth + 1);
    }
  }
}

}  // namespace

bool holds_directives(const std::string& text) {
  for (const char* word : {"limit_req_zone", "stick-table", "track-sc"})
    if (text.find(word) != std::string::npos) {
      // YAML (a Kong file may name these in a comment or a string) parses as a map or a list.
      try {
        const YAML::Node root = YAML::Load(text);
        return !root.IsMap() && !root.IsSequence();
      } catch (const YAML::Exception&) {
        return true;
      }
    }
  return false;
}

ConfigFile parse_config_text(const std::string& text, const std::string& path) {
  ConfigFile file{path, {}, {}};
  if (holds_directives(text)) {
    file.directives = text;
    return file;
  }
  try {
    file.root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp's marks are 0-based; its DeepRecursion (nesting past 2000) is one of these too.
    throw ScenarioError(
        fmt::format("{}:{}:{}: syntax error: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!file.root.IsDefined() || file.root.IsNull())
    throw ScenarioError(fmt::format("{}: the file holds no configuration (empty)", path));
  check_bounds(file);
  return file;
}

ConfigFile read_config_file(const std::string& path) {
  const FileText file = read_regular_file(path, kMaxConfigFileBytes);
  if (!file.error.empty())
    throw ScenarioError(fmt::format("{}: cannot read the file: {}", path, file.error));
  return parse_config_text(file.text, path);
}

std::string where(const ConfigFile& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return file.path;
  return fmt::format("{}:{}:{}", file.path, mark.line + 1, mark.column + 1);
}

void fail_at(const ConfigFile& file, const YAML::Node& node, const std::string& field,
             const std::string& what) {
  throw ScenarioError(field.empty() ? fmt::format("{}: {}", where(file, node), what)
                                    : fmt::format("{}: {}: {}", where(file, node), field, what));
}

YAML::Node field_of(const YAML::Node& map, const std::string& key) {
  if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  const YAML::Node value = map[key];
  if (!value.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
  return value;
}

std::string text_of(const YAML::Node& node) {
  if (!node.IsDefined()) return "nothing";
  if (node.IsScalar()) return fmt::format("\"{}\"", node.Scalar());
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return "null";
}

namespace {

// The field's node, or an undefined node when `map` is not a map or the field is absent/null.
YAML::Node present(const YAML::Node& map, const std::string& field) {
  const YAML::Node value = field_of(map, field);
  if (!value.IsDefined() || value.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
  return value;
}

}  // namespace

std::optional<double> number_field(const ConfigFile& file, const YAML::Node& map,
                                   const std::string& field) {
  const YAML::Node value = present(map, field);
  if (!value.IsDefined()) return std::nullopt;
  double out = 0;
  if (!value.IsScalar() || !YAML::convert<double>::decode(value, out) || !std::isfinite(out))
    fail_at(file, value, field, "expected a number, got " + text_of(value));
  return out;
}

std::optional<std::int64_t> integer_field(const ConfigFile& file, const YAML::Node& map,
                                          const std::string& field) {
  const YAML::Node value = present(map, field);
  if (!value.IsDefined()) return std::nullopt;
  std::int64_t out = 0;
  if (!value.IsScalar() || !YAML::convert<std::int64_t>::decode(value, out))
    fail_at(file, value, field, "expected an integer, got " + text_of(value));
  return out;
}

std::optional<bool> bool_field(const ConfigFile& file, const YAML::Node& map,
                               const std::string& field) {
  const YAML::Node value = present(map, field);
  if (!value.IsDefined()) return std::nullopt;
  bool out = false;
  if (!value.IsScalar() || !YAML::convert<bool>::decode(value, out))
    fail_at(file, value, field, "expected true or false, got " + text_of(value));
  return out;
}

std::optional<std::string> string_field(const ConfigFile& file, const YAML::Node& map,
                                        const std::string& field) {
  const YAML::Node value = present(map, field);
  if (!value.IsDefined()) return std::nullopt;
  if (!value.IsScalar()) fail_at(file, value, field, "expected a string, got " + text_of(value));
  return value.Scalar();
}

}  // namespace rlsim
