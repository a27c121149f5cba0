#pragma once
// The scenario's `search` block (docs/search.md#declaring-the-search-space): `vary`, an object of
// PATH: SPEC strings in --vary's syntax, and `paced`. Kept apart from load.cpp, which calls it.
// The loader checks the block's shape; `rlsim search` parses each spec and checks its path.
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/model.h"

namespace rlsim {

// The most dimensions a search block (and --vary) declares.
inline constexpr std::size_t kMaxSearchDimensions = 32;

// Reads the `search` block (nullptr: absent, an empty spec). Fails with the field's path.
SearchSpec read_search_block(const nlohmann::json* block, const std::string& file);

}  // namespace rlsim
