#pragma once
// The declared dimensions of a search (docs/search.md#declaring-the-search-space): `--vary
// PATH=LO..HI` or `--vary PATH=A|B|C` on the command line, or the scenario's `search.vary`
// block, in the path syntax of `--set`. A numeric dimension takes numbers, integers or durations
// in [LO, HI]; an enumerated one takes one of its choices. Two paths have a role in the default
// space: `instances.count` (the instances requests are pinned to) and `faults[K].at` (narrows the
// fault's start range); every other path is a field of the candidate's scenario document.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rlsim {

// PATH=LO..HI: numbers ("0.5..4", integers when both are) or durations ("20ms..2s").
struct GoalRange {
  enum class Kind { kNumber, kInteger, kDuration };
  std::string path;
  double lo = 0, hi = 0;  // durations in microseconds
  Kind kind = Kind::kNumber;
  // Values are whole multiples of this (integers: 1; durations: 1 ms when LO and HI are whole
  // milliseconds, as fields such as Limitador's flush_period require, else 1 us); 0: any number.
  double step = 0;
};

// The whole text as a number, or nullopt.
std::optional<double> parse_number_text(const std::string& text);

// x rounded to the range's step.
double snap(const GoalRange& range, double x);

// Parses PATH=LO..HI for `option` ("--over", "--vary"); durations may be negative when
// `allow_negative` (clock offsets). Throws ScenarioError ("OPTION TEXT: ...").
GoalRange parse_range(const std::string& option, const std::string& text, bool allow_negative);

// parse_range("--over", text, false).
GoalRange parse_over(const std::string& text);

// The field's value at x: a number, an integer or a duration text ("250ms").
nlohmann::ordered_json range_value(const GoalRange& range, double x);

struct SearchDimension {
  enum class Role { kField, kInstances, kFaultStart };
  std::string
      where;  // "--vary instances.count=2..20" or "search.vary.instances.count", for messages
  std::string text;  // PATH=SPEC as given
  GoalRange range;   // numeric dimensions (range.path is the path of every dimension)
  std::vector<nlohmann::ordered_json> choices;  // non-empty: an enumerated dimension
  Role role = Role::kField;
  std::size_t fault = 0;  // kFaultStart: the fault's index
};

// Parses "PATH=LO..HI" or "PATH=A|B|C" (each choice JSON where it parses as a number or true or
// false, else a string). `where` names the source in messages ("--vary" or "search.vary").
// Throws ScenarioError.
SearchDimension parse_dimension(const std::string& where, const std::string& text);

// The number of values an enumerated dimension takes; 0 for a numeric one.
inline std::size_t choice_count(const SearchDimension& d) { return d.choices.size(); }

// The dimension's value at x (an enumerated dimension's choice at index x).
nlohmann::ordered_json dimension_value(const SearchDimension& d, double x);

// The value as --set shows it: a string bare ("250ms"), anything else as its JSON.
std::string dimension_value_text(const SearchDimension& d, double x);

// The extreme values a search starts from: LO and HI, or every choice (at most 8).
std::vector<double> dimension_extremes(const SearchDimension& d);

// The value of `document` at the dimension's path as x (the index of the choice it equals, a
// number or duration inside the range), or nullopt when it is absent or outside.
std::optional<double> document_value(const SearchDimension& d,
                                     const nlohmann::ordered_json& document);

// Whether the path routes requests through the load balancer (a `load_balancer` field): the
// search then leaves requests unpinned.
bool routes_requests(const SearchDimension& d);

}  // namespace rlsim
