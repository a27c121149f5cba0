#include "search/shard.h"

#include <fmt/format.h>

#include "core/rng.h"
#include "scenario/error.h"

namespace rlsim {

using nlohmann::ordered_json;

std::uint64_t shard_search_seed(std::uint64_t seed, std::uint64_t index) {
  if (index <= 1) return seed;  // shard 1 is the search run in one process
  Rng rng(seed, "search-shard", index);
  return rng.next();
}

ordered_json candidate_json(const Candidate& candidate) {
  ordered_json arrivals = ordered_json::array();
  for (const SearchArrival& arrival : candidate.arrivals)
    arrivals.push_back({arrival.at_us, arrival.instance});
  ordered_json kept = ordered_json::array();
  for (const bool k : candidate.fault_kept) kept.push_back(k);
  return {{"arrivals", arrivals},
          {"fault_at_us", candidate.fault_at_us},
          {"fault_kept", kept},
          {"duration_us", candidate.duration_us},
          {"instances", candidate.instances},
          {"params", candidate.params}};
}

namespace {

[[noreturn]] void bad_shard_field(const std::string& where, const std::string& field,
                                  const std::string& expected) {
  throw ScenarioError(fmt::format("{}: candidate.{}: expected {}", where, field, expected));
}

const ordered_json& shard_field_of(const ordered_json& json, const std::string& where,
                                   const char* name, bool array) {
  if (!json.is_object() || !json.contains(name) || json[name].is_array() != array)
    bad_shard_field(where, name, array ? "an array" : "a number");
  return json[name];
}

std::vector<SearchArrival> arrivals_from_json(const ordered_json& json, const Candidate& base,
                                              const std::string& where) {
  const ordered_json& list = shard_field_of(json, where, "arrivals", true);
  if (list.empty() || list.size() > kMaxSearchRequests)
    bad_shard_field(where, "arrivals", fmt::format("1 to {} requests", kMaxSearchRequests));
  std::vector<SearchArrival> out;
  for (const ordered_json& a : list) {
    if (!a.is_array() || a.size() != 2 || !a[0].is_number_integer() || !a[1].is_number_unsigned() ||
        a[0].get<TimeUs>() < 0 || a[0].get<TimeUs>() >= base.duration_us ||
        a[1].get<std::uint64_t>() >= base.instances)
      bad_shard_field(where, "arrivals",
                      "[time_us, instance] pairs inside the run and the instances");
    out.push_back({a[0].get<TimeUs>(), a[1].get<std::uint32_t>()});
  }
  return out;
}

}  // namespace

Candidate candidate_from_json(const ordered_json& json, const SearchProblem& problem,
                              const std::string& where) {
  Candidate c = empty_candidate(problem.scenario, problem.space);
  const ordered_json& instances = shard_field_of(json, where, "instances", false);
  const std::uint64_t most = problem.space.instance_range
                                 ? static_cast<std::uint64_t>(problem.space.instance_range->hi)
                                 : problem.space.instances;
  if (!instances.is_number_unsigned() || instances.get<std::uint64_t>() < 1 ||
      instances.get<std::uint64_t>() > most)
    bad_shard_field(where, "instances", fmt::format("a whole number from 1 to {}", most));
  c.instances = instances.get<std::uint32_t>();
  c.arrivals = arrivals_from_json(json, c, where);
  const auto& faults = shard_field_of(json, where, "fault_at_us", true);
  const auto& kept = shard_field_of(json, where, "fault_kept", true);
  if (faults.size() != problem.space.faults.size() || kept.size() != faults.size())
    bad_shard_field(where, "fault_at_us",
                    fmt::format("{} fault starts", problem.space.faults.size()));
  for (std::size_t f = 0; f < faults.size(); ++f) {
    const FaultRange& range = problem.space.faults[f];
    if (!faults[f].is_number_integer() || faults[f].get<TimeUs>() < range.earliest_us ||
        faults[f].get<TimeUs>() > range.latest_us || !kept[f].is_boolean())
      bad_shard_field(where, "fault_at_us", "each fault's start inside its range");
    c.fault_at_us[f] = faults[f].get<TimeUs>();
    c.fault_kept[f] = kept[f].get<bool>();
  }
  const auto& params = shard_field_of(json, where, "params", true);
  if (params.size() != problem.space.fields.size())
    bad_shard_field(where, "params", fmt::format("{} values", problem.space.fields.size()));
  for (std::size_t i = 0; i < params.size(); ++i) {
    const SearchDimension& d = problem.space.fields[i];
    const double hi = d.choices.empty() ? d.range.hi : static_cast<double>(d.choices.size() - 1);
    const double lo = d.choices.empty() ? d.range.lo : 0;
    if (!params[i].is_number() || params[i].get<double>() < lo || params[i].get<double>() > hi)
      bad_shard_field(where, "params", "each declared dimension's value inside its range");
    c.params[i] = params[i].get<double>();
  }
  normalize(c);
  return c;
}

}  // namespace rlsim
