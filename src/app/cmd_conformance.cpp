// `rlsim conformance`: its options; the comparison is app/conformance.cpp.
#include <iostream>
#include <memory>
#include <string>

#include "app/conformance.h"
#include "app/exit_codes.h"
#include "app/subcommand.h"
#include "core/time.h"

namespace rlsim {

namespace {

struct ConformanceArgs {
  ConformanceOptions options;
  std::string max_duration;  // --max-duration as given, parsed after the command line
};

int run_conformance(ConformanceArgs& args) {
  if (!args.max_duration.empty()) {
    const auto cut = parse_duration(args.max_duration);
    if (!cut || *cut <= 0) {
      std::cerr << "rlsim: --max-duration: expected a positive duration such as "
                << kDurationSpellings << ", got \"" << args.max_duration << "\"\n";
      return exit_code::kBadInput;
    }
    args.options.max_duration_us = *cut;
  }
  return command_conformance(args.options);
}

CommandRun add_conformance_options(CLI::App& cli) {
  auto args = std::make_shared<ConformanceArgs>();
  ConformanceOptions& options = args->options;
  cli.add_option("scenario", options.scenario_paths,
                 "Scenarios to run on both backends (their decision digests must match)");
  CLI::Option* redis =
      cli.add_option("--redis", options.redis_url,
                     "The real Redis (>= 7.0): redis://[user[:password]@]host:port[/db]");
  cli.add_option("--redis-cluster", options.redis_cluster,
                 "A real Redis Cluster instead: host:port[,host:port...] (docs/real-redis.md)")
      ->excludes(redis);
  cli.add_option("--max-duration", args->max_duration,
                 "Cut each scenario to this much virtual time (e.g. 2m) to bound the run");
  cli.add_flag("--verbose", options.verbose, "Print every corpus reply, not only the differences");
  return [args] { return run_conformance(*args); };
}

}  // namespace

Subcommand conformance_subcommand() {
  return {
      "conformance",
      "Compare the embedded Redis with a real one: a corpus of replies, then scenario decisions",
      add_conformance_options};
}

}  // namespace rlsim
