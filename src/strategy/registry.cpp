#include "strategy/registry.h"

#include <algorithm>
#include <utility>

#include "core/check.h"
#include "strategy/resilience.h"

namespace rlsim {
namespace {

using Declaration = std::pair<int, StrategyInfo (*)()>;

// Filled during static initialization, before main(); a function-local static so that it exists
// before the first registration whatever the order the files are initialized in.
std::vector<Declaration>& declarations() {
  static std::vector<Declaration> all;
  return all;
}

std::vector<StrategyInfo> build_registry() {
  std::vector<Declaration> ordered = declarations();
  std::sort(ordered.begin(), ordered.end(),
            [](const Declaration& a, const Declaration& b) { return a.first < b.first; });
  std::vector<StrategyInfo> infos;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    RLSIM_CHECK(i == 0 || ordered[i - 1].first != ordered[i].first);  // orders are unique
    infos.push_back(ordered[i].second());
    add_resilience(infos.back());
    for (std::size_t j = 0; j + 1 < infos.size(); ++j)
      RLSIM_CHECK(infos[j].name != infos.back().name);  // names are unique
  }
  return infos;
}

}  // namespace

StrategyRegistration::StrategyRegistration(int order, StrategyInfo (*declare)()) {
  declarations().emplace_back(order, declare);
}

const std::vector<StrategyInfo>& strategy_registry() {
  static const std::vector<StrategyInfo> registry = build_registry();
  return registry;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& info : strategy_registry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string strategy_names() {
  std::string names;
  for (const auto& info : strategy_registry()) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

}  // namespace rlsim
