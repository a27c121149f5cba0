// logs/csv_format: the header, quoted fields, optional and renamed columns, malformed lines.
#include <catch2/catch.hpp>

#include "log_test_util.h"

namespace rlsim_test_csv_format {

using namespace rlsim;
using rlsim::testing::keyed_spec;
using rlsim::testing::read_log;

TEST_CASE("csv: columns are found by the header's names, in any order") {
  const auto log = read_log(keyed_spec(LogFormat::kCsv),
                            "status,endpoint,time,key,extra\n"
                            "429,/search,2025-12-06T05:46:40.5Z,alice,x\n"
                            "200,\"/a,b\",0.25,\"bob \"\"the\"\" user\",\n");
  REQUIRE(log.failure.empty());
  REQUIRE(log.lines.size() == 2);
  CHECK(log.lines[0].time_us == 1'765'000'000'500'000);
  CHECK(log.lines[0].value(LogSlot::kUser) == "alice");
  CHECK(log.lines[0].value(LogSlot::kEndpoint) == "/search");
  CHECK(log.lines[0].value(LogSlot::kVerdict) == "429");
  CHECK(log.lines[0].value(LogSlot::kIp).empty());  // optional, not in the header
  CHECK(log.lines[1].value(LogSlot::kEndpoint) == "/a,b");
  CHECK(log.lines[1].value(LogSlot::kUser) == "bob \"the\" user");
  CHECK_FALSE(log.lines[1].whole_second);
}

TEST_CASE("csv: a header without a required column is refused with its name") {
  auto spec = keyed_spec(LogFormat::kCsv);
  CHECK(read_log(spec, "time,user\n1,a\n").failure ==
        "line 1 (the header): no column \"key\" in the header");
  spec.fields[static_cast<std::size_t>(LogSlot::kInstance)] = "pod";
  spec.required[static_cast<std::size_t>(LogSlot::kInstance)] = true;
  CHECK(read_log(spec, "ts,key\n1,a\n").failure ==
        "line 1 (the header): no column \"time\", \"pod\" in the header");
}

TEST_CASE("csv: malformed lines say what is wrong") {
  const auto log = read_log(keyed_spec(LogFormat::kCsv),
                            "time,key\n"
                            "1,a,b\n"
                            "1\n"
                            "\"1,a\n"
                            "\"1\"x,a\n"
                            "soon,a\n");
  CHECK(log.lines.empty());
  REQUIRE(log.bad_examples.size() == 5);
  CHECK(log.bad_examples[0].reason == "expected 2 fields, got 3");
  CHECK(log.bad_examples[1].reason == "expected 2 fields, got 1");
  CHECK(log.bad_examples[2].reason == "field 1 opens a quote that does not close");
  CHECK(log.bad_examples[3].reason == "field 1 has text after its closing quote");
  CHECK(log.bad_examples[4].reason ==
        "the time \"soon\" is neither seconds nor an ISO 8601 date-time");
}

}  // namespace rlsim_test_csv_format
