// What `rlsim conformance` sends to both Redis backends (app/conformance.h) covers the embedded
// Redis: every command it implements is in the corpus, as a plain command or inside a script, and
// every command of the time table that real mode rewrites inside scripts is called from a script
// of the corpus. A command added to the embedded Redis or to the table without a corpus step
// fails here, before anyone runs it against a real server (tests/test_real_store.cpp does).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <set>
#include <string>

#include "app/conformance.h"
#include "redis/mock_store.h"
#include "redis/time_commands.h"

namespace rlsim_test_conformance_corpus {

using namespace rlsim;

namespace {

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// The texts of the corpus's scripts (EVAL's and SCRIPT LOAD's), upper-cased.
std::vector<std::string> script_texts() {
  std::vector<std::string> texts;
  for (const ConformanceStep& step : conformance_corpus()) {
    const std::string name = upper(step.command.front());
    if (name == "EVAL" && step.command.size() > 1) texts.push_back(upper(step.command[1]));
    if (name == "SCRIPT" && step.command.size() > 2 && upper(step.command[1]) == "LOAD")
      texts.push_back(upper(step.command[2]));
  }
  return texts;
}

// Whether a script calls `name`: redis.call('NAME' or redis.pcall("NAME", quoted either way.
bool called_in(const std::vector<std::string>& texts, const std::string& name) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
    return text.find("'" + name + "'") != std::string::npos ||
           text.find("\"" + name + "\"") != std::string::npos;
  });
}

}  // namespace

TEST_CASE("the conformance corpus sends every command the embedded Redis implements") {
  std::set<std::string> plain;
  for (const ConformanceStep& step : conformance_corpus())
    plain.insert(upper(step.command.front()));
  const std::vector<std::string> texts = script_texts();
  REQUIRE(!texts.empty());
  const std::vector<std::string> names = MockStore::command_names();
  REQUIRE(names.size() > 50);
  for (const std::string& name : names) {
    INFO(name << " is implemented by the embedded Redis but never sent by the corpus");
    CHECK((plain.count(upper(name)) == 1 || called_in(texts, upper(name))));
  }
}

TEST_CASE("the corpus calls every time command that real mode rewrites from a script") {
  const std::vector<std::string> texts = script_texts();
  std::set<std::string> implemented;
  for (const std::string& name : MockStore::command_names()) implemented.insert(upper(name));
  std::size_t checked = 0;
  for (const TimeCommand& row : time_commands()) {
    const std::string name = upper(std::string(row.name));
    // A command the embedded Redis lacks cannot be compared, and one real mode refuses inside
    // scripts (the server's wall clock) is an error on both, which test_script_wrap pins.
    if (!maps_time(name) || row.use == TimeUse::kWallClock) continue;
    if (implemented.count(name) == 0) continue;
    INFO(name << " is rewritten inside scripts in real mode but no corpus script calls it");
    CHECK(called_in(texts, name));
    ++checked;
  }
  CHECK(checked >= 12);
}

TEST_CASE("the corpus calls the functions of cjson, bit, struct and cmsgpack that scripts use") {
  const std::vector<std::string> texts = script_texts();
  for (const char* call : {"CJSON.DECODE(",
                           "CJSON.ENCODE(",
                           "CJSON.NULL",
                           "BIT.BAND(",
                           "BIT.BOR(",
                           "BIT.BXOR(",
                           "BIT.BNOT(",
                           "BIT.LSHIFT(",
                           "BIT.RSHIFT(",
                           "BIT.ARSHIFT(",
                           "BIT.ROL(",
                           "BIT.ROR(",
                           "BIT.BSWAP(",
                           "BIT.TOBIT(",
                           "BIT.TOHEX(",
                           "STRUCT.PACK(",
                           "STRUCT.UNPACK(",
                           "STRUCT.SIZE(",
                           "CMSGPACK.PACK(",
                           "CMSGPACK.UNPACK(",
                           "CMSGPACK.UNPACK_ONE(",
                           "CMSGPACK.UNPACK_LIMIT("}) {
    INFO(call << " is loaded in the embedded Lua but no corpus script calls it");
    CHECK(std::any_of(texts.begin(), texts.end(), [&](const std::string& text) {
      return text.find(call) != std::string::npos;
    }));
  }
}

}  // namespace rlsim_test_conformance_corpus
