// logs/jsonl_format: JSON Lines logs and Envoy's JSON access log, malformed lines.
#include <catch2/catch.hpp>

#include "log_test_util.h"

namespace rlsim_test_jsonl_format {

using namespace rlsim;
using rlsim::testing::keyed_spec;
using rlsim::testing::read_log;

TEST_CASE("jsonl: members by name, numbers as text, times as seconds or ISO 8601") {
  const auto log = read_log(keyed_spec(LogFormat::kJsonLines),
                            R"({"time": 1.5, "key": 42, "status": 429, "other": [1]})"
                            "\n"
                            R"({"time": "2025-12-06T05:46:40Z", "key": "bob", "ip": null})"
                            "\n");
  REQUIRE(log.lines.size() == 2);
  CHECK(log.lines[0].time_us == 1'500'000);
  CHECK(log.lines[0].value(LogSlot::kUser) == "42");
  CHECK(log.lines[0].value(LogSlot::kVerdict) == "429");
  CHECK(log.lines[1].time_us == 1'765'000'000'000'000);
  CHECK(log.lines[1].value(LogSlot::kIp).empty());
}

TEST_CASE("jsonl: malformed lines say what is wrong") {
  const auto log = read_log(keyed_spec(LogFormat::kJsonLines),
                            "{\"time\": 1, \"key\": \n"
                            "[1, 2]\n"
                            "{\"key\": \"a\"}\n"
                            "{\"time\": \"noon\", \"key\": \"a\"}\n"
                            "{\"time\": 1}\n"
                            "{\"time\": 1, \"key\": {\"id\": 1}}\n");
  CHECK(log.lines.empty());
  CHECK(log.bad_lines == 6);
  REQUIRE(log.bad_examples.size() == 5);
  CHECK(log.bad_examples[0].reason == "not valid JSON");
  CHECK(log.bad_examples[1].reason == "not a JSON object");
  CHECK(log.bad_examples[2].reason == "no member \"time\"");
  CHECK(log.bad_examples[3].reason == "\"time\" is neither seconds nor an ISO 8601 date-time");
  CHECK(log.bad_examples[4].reason == "no member \"key\"");
}

TEST_CASE("envoy: the JSON access log with Envoy's field names and RL flag") {
  LogFormatSpec spec;
  spec.format = LogFormat::kEnvoy;
  spec.time_field = "start_time";
  spec.fields = {"x_forwarded_for", "", "path", "upstream_host", "response_flags"};
  spec.required = {true, false, false, false, false};
  const auto log =
      read_log(spec, R"({"start_time":"2025-12-06T05:46:40.123Z","x_forwarded_for":"203.0.113.7",)"
                     R"("path":"/v1/search","upstream_host":"10.0.1.2:8080","response_flags":"RL",)"
                     R"("response_code":429})"
                     "\n");
  REQUIRE(log.lines.size() == 1);
  CHECK(log.lines[0].time_us == 1'765'000'000'123'000);
  CHECK(log.lines[0].value(LogSlot::kUser) == "203.0.113.7");
  CHECK(log.lines[0].value(LogSlot::kInstance) == "10.0.1.2:8080");
  CHECK(logged_denied(log.lines[0].value(LogSlot::kVerdict), {"RL"}));
}

}  // namespace rlsim_test_jsonl_format
