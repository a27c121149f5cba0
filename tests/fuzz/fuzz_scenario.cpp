// libFuzzer target: the scenario parser and validator, then the strategy registry's parameter
// checks. Any input must end in a parsed scenario or a ScenarioError; any other exception, crash,
// leak or undefined behaviour is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/run.h"
#include "scenario/load.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const rlsim::Scenario scenario = rlsim::parse_scenario(text, "fuzz.json");
    (void)rlsim::resolve_strategies(scenario, "fuzz.json");
  } catch (const rlsim::ScenarioError&) {
    // The documented outcome for bad input.
  }
  return 0;
}
