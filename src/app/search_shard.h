#pragma once
// `rlsim search --shard K/N` and `rlsim merge` of search shards (docs/search.md#several-machines,
// search/shard.h): a shard writes search-shard-K-of-N.json (what was searched, and its best
// candidate unshrunk); the merge reads the N shards of one search, checks they belong together,
// takes the best (the lowest shard on a tie), shrinks it and writes the files of one search.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/search.h"

namespace rlsim {

// What a shard records about its search besides its outcome: these must agree across shards.
struct SearchShardIdentity {
  std::string scenario_file;
  std::string scenario_sha1;        // of the scenario file's text
  nlohmann::ordered_json document;  // the scenario's JSON with --set applied
  std::string label, metric;
  bool maximize = true;
  bool paced = false;
  std::vector<std::string> vary;
  std::uint64_t seed = 1, budget_runs = 0, shards = 1;
  double keep_share = 0.95;
  std::string reproduce;  // the command line without --shard
};

// search-shard-K-of-N.json's text for shard `index` of `identity.shards`.
std::string search_shard_text(const SearchShardIdentity& identity, std::uint64_t index,
                              std::uint64_t search_seed, const SearchOutcome& outcome);

// The file name of shard `index` of `shards`.
std::string search_shard_name(std::uint64_t index, std::uint64_t shards);

// Whether `inputs` (files, or folders) name search shards rather than sweep shards: a folder
// holding search-shard-*.json, or a file so named.
bool names_search_shards(const std::vector<std::string>& inputs);

// `rlsim merge` of search shards; returns the exit code. Throws ScenarioError (exit 2) when a
// shard is missing, given twice, unreadable or from another search.
int command_merge_search(const std::vector<std::string>& inputs, const std::string& out_dir);

}  // namespace rlsim
