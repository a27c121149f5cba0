// custom_lua: the user's own Lua script, e.g. the one their production limiter runs. The scenario
// names the file, maps request fields to KEYS and ARGV with templates, and gives the rule that
// turns the reply into allow / deny. Per limit, in order, one call:
//   EVALSHA <sha of the file> <#keys> <keys...> <args...>   -> allowed iff allow_if holds
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>

#include "core/file_text.h"
#include "redis/lua_engine.h"
#include "strategy/registry.h"
#include "strategy/script.h"

namespace rlsim {
namespace {

constexpr std::size_t kMaxScriptBytes = 1 << 20;
constexpr std::size_t kMaxTemplates = 64;  // KEYS and ARGV together

// The request fields a template may name as ${field}.
enum class Field {
  kLiteral,
  kUser,
  kIp,
  kEndpoint,
  kKey,
  kPrefix,
  kLimit,
  kWindowMs,
  kWindowUs,
  kWindow,
  kNowS,
  kNowMs,
  kNowUs,
  kCost,
  kInstance,
  kRequestId,
};
constexpr std::array<std::pair<std::string_view, Field>, 15> kFields = {{
    {"user", Field::kUser},
    {"ip", Field::kIp},
    {"endpoint", Field::kEndpoint},
    {"key", Field::kKey},
    {"prefix", Field::kPrefix},
    {"limit", Field::kLimit},
    {"window_ms", Field::kWindowMs},
    {"window_us", Field::kWindowUs},
    {"window", Field::kWindow},
    {"now_s", Field::kNowS},
    {"now_ms", Field::kNowMs},
    {"now_us", Field::kNowUs},
    {"cost", Field::kCost},
    {"instance", Field::kInstance},
    {"request_id", Field::kRequestId},
}};

std::string field_names() {
  std::string names;
  for (const auto& [name, field] : kFields)
    names += fmt::format("{}${{{}}}", names.empty() ? "" : ", ", name);
  return names;
}

struct Part {
  Field field = Field::kLiteral;
  std::string literal;
};
using Template = std::vector<Part>;

// "rl:{${user}}:${window}" -> literal "rl:{", field user, literal "}:", field window. "$$" is a
// literal "$".
std::optional<Template> parse_template(std::string_view text, std::string& error) {
  Template parts;
  std::string literal;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$') {
      literal += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '$') {
      literal += '$';
      ++i;
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (i + 1 >= text.size() || text[i + 1] != '{' || close == std::string_view::npos) {
      error = fmt::format("bad template \"{}\": a $ starts ${{field}} (or write $$ for a $)", text);
      return std::nullopt;
    }
    const std::string_view name = text.substr(i + 2, close - i - 2);
    Field field = Field::kLiteral;
    for (const auto& [known, value] : kFields) {
      if (known == name) field = value;
    }
    if (field == Field::kLiteral) {
      error = fmt::format("unknown field ${{{}}} in template \"{}\" (expected one of: {})", name,
                          text, field_names());
      return std::nullopt;
    }
    if (!literal.empty()) parts.push_back(Part{Field::kLiteral, std::move(literal)});
    literal.clear();
    parts.push_back(Part{field, {}});
    i = close;
  }
  if (!literal.empty()) parts.push_back(Part{Field::kLiteral, std::move(literal)});
  return parts;
}

// allow_if: `reply` or `reply[N]` (N >= 1, an element of an array reply), an operator, and an
// integer, `nil` or a "quoted string" (these two with == and != only).
struct Rule {
  enum class Kind { kInteger, kNil, kString };
  std::size_t element = 0;  // 0: the whole reply; N: reply[N]
  std::string op;
  Kind kind = Kind::kInteger;
  std::int64_t value = 0;  // kInteger
  std::string text;        // kString
};

// The right-hand side of a rule at `at`: `nil`, "text" (no escapes) or an integer.
bool read_operand(std::string_view text, std::size_t& at, Rule& rule) {
  if (text.substr(at, 3) == "nil") {
    rule.kind = Rule::Kind::kNil;
    at += 3;
    return true;
  }
  if (at < text.size() && text[at] == '"') {
    const std::size_t close = text.find('"', at + 1);
    if (close == std::string_view::npos) return false;
    rule.kind = Rule::Kind::kString;
    rule.text = text.substr(at + 1, close - at - 1);
    at = close + 1;
    return true;
  }
  const char* begin = text.data() + at;
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), rule.value);
  if (ec != std::errc() || end == begin) return false;
  at += static_cast<std::size_t>(end - begin);
  return true;
}

std::optional<Rule> parse_rule(std::string_view text, std::string& error) {
  error = fmt::format(
      "bad rule \"{}\": expected reply or reply[N], one of == != < <= > >=, and an integer, or "
      "== / != and nil or a \"string\" (e.g. \"reply == 1\", \"reply[1] == 0\", "
      "\"reply != nil\")",
      text);
  std::size_t at = 0;
  const auto skip_spaces = [&] {
    while (at < text.size() && text[at] == ' ') ++at;
  };
  const auto read_integer = [&](std::int64_t& out) {
    const char* begin = text.data() + at;
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), out);
    if (ec != std::errc() || end == begin) return false;
    at += static_cast<std::size_t>(end - begin);
    return true;
  };
  Rule rule;
  skip_spaces();
  if (text.substr(at, 5) != "reply") return std::nullopt;
  at += 5;
  if (at < text.size() && text[at] == '[') {
    ++at;
    std::int64_t element = 0;
    if (!read_integer(element) || element < 1 || element > 1'000'000 || at >= text.size() ||
        text[at] != ']')
      return std::nullopt;
    ++at;
    rule.element = static_cast<std::size_t>(element);
  }
  skip_spaces();
  for (const std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
    if (text.substr(at, op.size()) == op) {
      rule.op = op;
      at += op.size();
      break;
    }
  }
  if (rule.op.empty()) return std::nullopt;
  skip_spaces();
  if (!read_operand(text, at, rule)) return std::nullopt;
  if (rule.kind != Rule::Kind::kInteger && rule.op != "==" && rule.op != "!=") return std::nullopt;
  skip_spaces();
  if (at != text.size()) return std::nullopt;
  error.clear();
  return rule;
}

bool holds(const Rule& rule, std::int64_t reply) {
  if (rule.kind == Rule::Kind::kString)
    return (rule.op == "==") == (std::to_string(reply) == rule.text);
  if (rule.op == "==") return reply == rule.value;
  if (rule.op == "!=") return reply != rule.value;
  if (rule.op == "<") return reply < rule.value;
  if (rule.op == "<=") return reply <= rule.value;
  if (rule.op == ">") return reply > rule.value;
  return reply >= rule.value;
}

std::string script_path(const std::string& scenario_dir, const std::string& script) {
  const std::filesystem::path path(script);
  return path.is_absolute() ? script : (std::filesystem::path(scenario_dir) / path).string();
}

// Why `path` may not be read as the script of a scenario in `scenario_dir`; empty when it may. A
// scenario someone hands you must not make rlsim read, or in real mode send to a Redis, any file
// it can open (/etc/shadow, a key file): the script must lie in the scenario's folder or below it,
// and be no symbolic link (one could point anywhere, and be re-pointed after this check).
std::string script_location_error(const std::string& scenario_dir, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(scenario_dir, ec), ec);
  const fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
  const auto [end, unused] = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
  if (ec || end != folder.end())
    return fmt::format(
        "script file {} is outside the scenario's folder {} (a script is read only from the "
        "scenario's folder or below it: copy it there)",
        path, scenario_dir);
  if (fs::is_symlink(fs::symlink_status(path, ec)))
    return fmt::format(
        "script file {} is a symbolic link (a script must be a regular file in the scenario's "
        "folder: copy it there)",
        path);
  return "";
}

// The file's text, or nullopt with `error` set. Only a regular file of at most kMaxScriptBytes
// whose name ends in ".lua", inside the scenario's folder (script_location_error), that compiles
// as Lua is read: a named pipe or a device must not block or feed it forever, and a file that is
// no Lua at all (a key file named .lua) is refused here, before anything is sent to a server.
std::optional<std::string> read_script(const std::string& scenario_dir, const std::string& path,
                                       std::string& error) {
  error = script_location_error(scenario_dir, path);
  if (!error.empty()) return std::nullopt;
  FileText file = read_regular_file(path, kMaxScriptBytes);
  if (!file.error.empty()) {
    error = fmt::format("cannot read script file {}: {}", path, file.error);
    return std::nullopt;
  }
  if (std::filesystem::path(path).extension() != ".lua") {
    error = fmt::format("script file {} is not a .lua file (its name must end in .lua)", path);
    return std::nullopt;
  }
  if (file.text.empty()) {
    error = fmt::format("script file {} is empty", path);
    return std::nullopt;
  }
  if (const Reply compiled = LuaEngine().load(file.text); compiled.is_error()) {
    error = fmt::format("script file {} is not valid Lua: {}", path, compiled.text);
    return std::nullopt;
  }
  return std::move(file.text);
}

// script, keys, args and allow_if as given (on_error and the clock: PerLimitScriptStrategy); the
// templates and the rule are parsed from them by check_custom_lua, then by the strategy.
struct CustomLuaParams {
  std::string script;  // relative to the scenario file
  std::vector<std::string> keys;
  std::vector<std::string> args;
  std::string allow_if;
};

CustomLuaParams parse_custom_lua_params(const ParamReader& params) {
  return CustomLuaParams{params.string("script"), params.string_array("keys"),
                         params.string_array("args"), params.string("allow_if")};
}

class CustomLua final : public PerLimitScriptStrategy {
 public:
  CustomLua(StrategyEnv env, const CustomLuaParams& params, std::string path, std::string text)
      : PerLimitScriptStrategy(std::move(env), Script(std::move(path), std::move(text))),
        allow_if_(params.allow_if) {
    std::string error;  // none: check_custom_lua parsed the same text
    for (const std::string& key : params.keys) keys_.push_back(*parse_template(key, error));
    for (const std::string& arg : params.args) args_.push_back(*parse_template(arg, error));
    rule_ = *parse_rule(allow_if_, error);
  }

  void unreadable(std::string message) { fail(std::move(message)); }

 private:
  std::size_t arguments(std::size_t index, const Request& request, const Instance& instance,
                        std::vector<std::string>& out) override {
    const TimeUs now_us = decision_now_us();
    for (const Template& key : keys_) out.push_back(expand(key, index, request, instance, now_us));
    for (const Template& arg : args_) out.push_back(expand(arg, index, request, instance, now_us));
    return keys_.size();
  }

  std::string expand(const Template& parts, std::size_t index, const Request& request,
                     const Instance& instance, TimeUs now_us) const {
    const Limit& limit = env_.limits[index];
    std::string out;
    auto it = std::back_inserter(out);
    for (const Part& part : parts) {
      switch (part.field) {
        case Field::kLiteral:
          out += part.literal;
          break;
        case Field::kUser:
          env_.catalog.append_key_text(out, request, LimitKey::kUser);
          break;
        case Field::kIp:
          env_.catalog.append_key_text(out, request, LimitKey::kIp);
          break;
        case Field::kEndpoint:
          env_.catalog.append_key_text(out, request, LimitKey::kEndpoint);
          break;
        case Field::kKey:
          env_.catalog.append_key_text(out, request, limit.key);
          break;
        case Field::kPrefix:
          out += prefixes_[index];
          break;
        case Field::kLimit:
          fmt::format_to(it, "{}", limit.limit);
          break;
        case Field::kWindowMs:
          fmt::format_to(it, "{}", limit.window_us / kUsPerMs);
          break;
        case Field::kWindowUs:
          fmt::format_to(it, "{}", limit.window_us);
          break;
        case Field::kWindow:
          fmt::format_to(it, "{}", now_us / limit.window_us);
          break;
        case Field::kNowS:
          fmt::format_to(it, "{}", now_us / kUsPerS);
          break;
        case Field::kNowMs:
          fmt::format_to(it, "{}", now_us / kUsPerMs);
          break;
        case Field::kNowUs:
          fmt::format_to(it, "{}", now_us);
          break;
        case Field::kCost:
          out += '1';
          break;
        case Field::kInstance:
          fmt::format_to(it, "{}", instance.id);
          break;
        case Field::kRequestId:
          fmt::format_to(it, "{}", request.id);
          break;
      }
    }
    return out;
  }

  bool integer_reply() const override { return false; }  // the rule reads any reply type
  bool admits(std::size_t, const Reply& reply) override {
    const Reply* value = &reply;
    // Past the end of an array reply, reply[N] is nil, as in Lua (only a nil rule reads it).
    bool beyond_end = false;
    if (rule_.element > 0) {
      const bool array = reply.type == Reply::Type::kArray;
      beyond_end = array && reply.elements.size() < rule_.element;
      value = array && !beyond_end ? &reply.elements[rule_.element - 1] : nullptr;
    }
    if (rule_.kind == Rule::Kind::kNil && (value != nullptr || beyond_end)) {
      const bool nil = beyond_end || value->type == Reply::Type::kNil;
      return (rule_.op == "==") == nil;
    }
    if (rule_.kind == Rule::Kind::kString && value != nullptr &&
        (value->type == Reply::Type::kBulk || value->type == Reply::Type::kStatus ||
         value->type == Reply::Type::kNil)) {
      const bool equal = value->type != Reply::Type::kNil && value->text == rule_.text;
      return (rule_.op == "==") == equal;
    }
    std::int64_t number = 0;
    bool readable = value != nullptr && value->type != Reply::Type::kArray;
    if (readable && value->type == Reply::Type::kInteger) number = value->integer;
    // For an integer rule a Lua false arrives as nil and reads as 0 (true arrives as 1).
    if (readable && rule_.kind == Rule::Kind::kInteger &&
        (value->type == Reply::Type::kBulk || value->type == Reply::Type::kStatus)) {
      const auto [end, ec] =
          std::from_chars(value->text.data(), value->text.data() + value->text.size(), number);
      readable = ec == std::errc() && end == value->text.data() + value->text.size();
    }
    if (!readable) {
      fail(fmt::format("script {}: reply {} does not fit allow_if \"{}\"", script_.name(),
                       to_display(reply), allow_if_));
      return false;
    }
    return holds(rule_, number);
  }

  std::string allow_if_;  // as given, for the message when a reply does not fit it
  std::vector<Template> keys_;
  std::vector<Template> args_;
  Rule rule_;
};

// Checks a "keys" or "args" array of templates (each a string: resolve_params checked that).
bool check_templates(const std::vector<std::string>& templates, const std::string& name,
                     std::string& field, std::string& error) {
  for (std::size_t i = 0; i < templates.size(); ++i) {
    field = fmt::format("{}[{}]", name, i);
    if (!parse_template(templates[i], error)) return false;
  }
  return true;
}

bool check_custom_lua(const ParamReader& reader, const std::string& scenario_dir,
                      std::string& field, std::string& error) {
  const CustomLuaParams params = parse_custom_lua_params(reader);
  field = "script";
  if (!read_script(scenario_dir, script_path(scenario_dir, params.script), error)) return false;
  if (!check_templates(params.keys, "keys", field, error)) return false;
  if (!check_templates(params.args, "args", field, error)) return false;
  if (params.keys.size() + params.args.size() > kMaxTemplates) {
    field = "args";
    error = fmt::format("at most {} keys and args together", kMaxTemplates);
    return false;
  }
  field = "allow_if";
  return parse_rule(params.allow_if, error).has_value();
}

std::unique_ptr<Strategy> make_custom_lua(StrategyEnv env) {
  const CustomLuaParams params = parse_custom_lua_params(ParamReader(env.params));
  const std::string path = script_path(env.scenario_dir, params.script);
  std::string error;
  std::optional<std::string> text = read_script(env.scenario_dir, path, error);
  // Checked before the run; if the file went away since, the run stops with the reason.
  auto strategy = std::make_unique<CustomLua>(std::move(env), params, path, text.value_or(""));
  if (!text) strategy->unreadable(fmt::format("script {}: {}", path, error));
  return strategy;
}

// keys and args: arrays of templates.
ParamSpec template_array(ParamSpec spec) {
  spec.element = "a template string such as \"rl:${user}\"";
  return spec;
}

StrategyInfo declare_custom_lua() {
  return StrategyInfo{
      "custom_lua",
      "your own Lua script (e.g. your production limiter's), with KEYS, ARGV and an allow rule "
      "from the scenario",
      "Runs a Lua script from a file named in the scenario (script, relative to the scenario "
      "file), unchanged, as production code would: EVALSHA with the file's SHA1, and EVAL with "
      "its text after a NOSCRIPT reply. For each limit in order it builds KEYS and ARGV from "
      "templates (keys, args) that mix literal text with request fields: ${user}, ${ip}, "
      "${endpoint}, ${key} and ${prefix} (the limit's key value and its rl:<kind>: prefix), "
      "${limit}, ${window_ms}, ${window_us}, ${window} (the aligned window number), ${now_s}, "
      "${now_ms}, ${now_us} (the instance's clock), ${cost} (1), ${instance} and ${request_id}. "
      "allow_if turns the reply into a decision: reply or reply[N] (1-based element of an array "
      "reply), one of == != < <= > >=, and an integer (e.g. \"reply == 1\", \"reply[1] == 0\"; "
      "a nil reply, Lua false, reads as 0), or == / != and nil or a \"string\" (\"reply != nil\" "
      "for a limiter that answers a slot name or nil). An error reply counts as a Redis error "
      "(on_error "
      "applies); a script that does not compile, exceeds the instruction budget, or returns a "
      "reply allow_if cannot read stops the run (exit 4). The trade-off is whatever your script's "
      "is; the point is to measure it on your traffic next to the built-in strategies. Its ideal "
      "limiter is the fixed window, so false_denials are counted against that.",
      redis_call_params(
          {required_param("script", ParamType::kPath,
                          "the Lua file, relative to the scenario file"),
           template_array(required_param("keys", ParamType::kStringArray,
                                         "templates for KEYS, e.g. [\"rl:{${user}}:tokens\"]")),
           template_array(param("args", ParamType::kStringArray, nlohmann::json::array(),
                                "templates for ARGV, e.g. [\"${now_ms}\", \"${limit}\"]")),
           param("allow_if", ParamType::kString, "reply == 1",
                 "the rule that admits a request, given the reply")}),
      Algorithm::kFixedWindow,
      make_custom_lua,
      nullptr,
      check_custom_lua};
}

const StrategyRegistration kCustomLuaRegistration(80, declare_custom_lua);

}  // namespace

}  // namespace rlsim
