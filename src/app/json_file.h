#pragma once
// A JSON file rlsim wrote earlier and a user hands back (a sweep shard for `merge`, a report for
// `check --baseline`), read with the guards scenario files have: only a regular file (a named pipe
// or a device is refused without blocking), of bounded size, nested at most kMaxJsonFileDepth
// deep, so that no file can hang rlsim or make it take memory out of proportion to the file.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace rlsim {

// rlsim's reports nest 6 deep; a shard wraps them 3 deeper.
inline constexpr std::size_t kMaxJsonFileDepth = 64;

// The JSON in `path`, keys in file order. Throws ScenarioError "<what>: <path>: <why>" when the
// file cannot be read, is larger than `max_bytes`, is no JSON, or nests too deep (with the line
// and column of the offending value).
nlohmann::ordered_json read_json_file(const std::string& path, std::size_t max_bytes,
                                      const std::string& what);

}  // namespace rlsim
