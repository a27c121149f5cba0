#pragma once
// What an importer makes of a product's configuration, before it is written out: the limits, one
// strategy entry with its parameters, the Redis fields the configuration sets, each value with
// where it came from; the items that could not be mapped (each a warning); and the writer of the
// scenario text (JSON with comments, docs/scenario-format.md#comments) that `rlsim run` accepts.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"

namespace rlsim {

// A value and where it came from: "kong.yml:9:17 config.minute: 600", or "default: ..." for one
// the configuration does not give.
struct Sourced {
  nlohmann::json value;
  std::string source;
};

struct ImportedLimit {
  std::string name;  // a scenario name ([A-Za-z0-9_.-]), unique among the limits
  std::string key;   // "user", "ip", "endpoint" or "global"
  std::int64_t limit = 0;
  DurationUs window_us = 0;
  std::string source;
};

struct Imported {
  std::string format;   // kong, envoy_ratelimit, envoy_local, limitador, nginx, haproxy
  std::string product;  // "Kong declarative configuration", for the header comment
  std::vector<std::string> files;
  std::vector<ImportedLimit> limits;
  std::string strategy;  // the rlsim strategy that models the product
  std::vector<std::pair<std::string, Sourced>> params;
  Sourced mode;                                        // a null value: enforce
  std::vector<std::pair<std::string, Sourced>> redis;  // fields of the scenario's `redis`
  bool uses_redis = true;          // false: no `redis` section is written (envoy_local)
  std::vector<std::string> notes;  // read but not needed by the model (header comments)
  // Each item the model cannot express, "<file>:<line>:<column>: <what>" (a warning on stderr,
  // a comment in the scenario, counted as unmapped in `--json`).
  std::vector<std::string> warnings;

  // Adds a limit, its name made unique; past ScenarioBounds::kMaxLimits a warning instead.
  void add_limit(ImportedLimit limit);
  void warn(std::string where, const std::string& what);
  void param(std::string name, nlohmann::json value, std::string source);
};

// The scenario text: a header comment (product, files, what is a default, every warning), then
// the scenario with each value's source after it. `name` is the scenario's name. Requires at
// least one limit.
std::string scenario_text(const Imported& imported, const std::string& name);

// A scenario name made of `text`: characters outside [A-Za-z0-9_.-] become '_', at most 64,
// never starting with '.'; "import" when nothing is left.
std::string scenario_name_of(const std::string& text);

}  // namespace rlsim
