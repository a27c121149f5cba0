#include "scenario/load_search.h"

#include <fmt/format.h>

#include "scenario/reader.h"

namespace rlsim {

SearchSpec read_search_block(const nlohmann::json* block, const std::string& file) {
  SearchSpec spec;
  if (block == nullptr) return spec;
  ObjectReader reader(*block, "search", file, {"vary", "paced"});
  if (const nlohmann::json* paced = reader.find("paced")) {
    if (!paced->is_boolean())
      reader.fail("search.paced",
                  fmt::format("expected true or false, got {}", json_type_name(*paced)));
    spec.paced = paced->get<bool>();
  }
  const nlohmann::json* vary = reader.find("vary");
  if (vary == nullptr) return spec;
  if (!vary->is_object())
    reader.fail("search.vary", fmt::format("expected an object of \"PATH\": \"LO..HI\" or "
                                           "\"A|B|C\", got {}",
                                           json_type_name(*vary)));
  if (vary->size() > kMaxSearchDimensions)
    reader.fail("search.vary", fmt::format("expected at most {} fields, got {}",
                                           kMaxSearchDimensions, vary->size()));
  for (auto it = vary->begin(); it != vary->end(); ++it) {
    if (!it->is_string() || it->get<std::string>().empty())
      reader.fail("search.vary." + it.key(),
                  fmt::format("expected \"LO..HI\" or \"A|B|C\", got {}", json_type_name(*it)));
    spec.vary.push_back(it.key() + "=" + it->get<std::string>());
  }
  return spec;
}

}  // namespace rlsim
