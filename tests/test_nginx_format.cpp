// logs/nginx_format: nginx log_format strings ($msec, $time_local, the combined preset, parts of
// $request), HAProxy's HTTP log, format errors and malformed lines.
#include <catch2/catch.hpp>

#include "log_test_util.h"
#include "logs/nginx_format.h"

namespace rlsim_test_nginx_format {

using namespace rlsim;
using rlsim::testing::read_log;

namespace {

LogFormatSpec nginx_spec(std::string log_format) {
  LogFormatSpec spec;
  spec.format = LogFormat::kNginx;
  spec.log_format = std::move(log_format);
  spec.fields = {"remote_addr", "remote_addr", "uri", "", "status"};
  return spec;
}

}  // namespace

TEST_CASE("nginx: the combined format, second-resolution times and the path of $request") {
  const auto log = read_log(
      nginx_spec(std::string(kNginxCombined)),
      R"(203.0.113.7 - - [06/Dec/2025:06:46:40 +0100] "GET /v1/search?q=a%20b HTTP/1.1" 429 17 )"
      R"("-" "curl/8.0")"
      "\n"
      R"(198.51.100.1 - bob [06/Dec/2025:05:46:41 +0000] "POST /v1/orders HTTP/2.0" 200 1 "x" "y")"
      "\n");
  REQUIRE(log.lines.size() == 2);
  CHECK(log.lines[0].time_us == 1'765'000'000'000'000);
  CHECK(log.lines[0].whole_second);
  CHECK(log.lines[0].value(LogSlot::kUser) == "203.0.113.7");
  CHECK(log.lines[0].value(LogSlot::kEndpoint) == "/v1/search");
  CHECK(log.lines[0].value(LogSlot::kVerdict) == "429");
  CHECK(log.lines[1].value(LogSlot::kEndpoint) == "/v1/orders");
}

TEST_CASE("nginx: $msec gives milliseconds, ${var} and named fields") {
  auto spec = nginx_spec(R"(${remote_addr} $msec "$http_x_api_key" $upstream_addr $request_uri)");
  spec.fields[0] = "http_x_api_key";
  spec.fields[2] = "request_uri";
  spec.fields[3] = "upstream_addr";
  spec.required = {true, false, true, true, false};
  const auto log = read_log(spec, "10.0.0.1 1765000000.250 \"k1\" 10.0.1.2:80 /a?b=1\n");
  REQUIRE(log.lines.size() == 1);
  CHECK(log.lines[0].time_us == 1'765'000'000'250'000);
  CHECK_FALSE(log.lines[0].whole_second);
  CHECK(log.lines[0].value(LogSlot::kUser) == "k1");
  CHECK(log.lines[0].value(LogSlot::kEndpoint) == "/a?b=1");
  CHECK(log.lines[0].value(LogSlot::kInstance) == "10.0.1.2:80");
  CHECK(log.lines[0].value(LogSlot::kVerdict).empty());  // no $status: no verdict
}

TEST_CASE("nginx: a log_format that cannot be read is refused with the reason") {
  const auto error_of = [](const std::string& format, const char* user = "remote_addr") {
    auto spec = nginx_spec(format);
    spec.fields[0] = user;
    spec.required[0] = true;
    std::string error;
    CHECK(make_line_parser(spec, error) == nullptr);
    return error;
  };
  CHECK(error_of("$remote_addr $status") ==
        "it has no time variable ($msec, $time_local or $time_iso8601)");
  CHECK(error_of("$remote_addr$msec") == "$msec follows $remote_addr with no text between them");
  CHECK(error_of("$msec $ x") == "a '$' at offset 6 names no variable");
  CHECK(error_of("$msec ${remote_addr") == "\"${\" at offset 6 is not closed");
  CHECK(error_of("$msec $remote_addr", "http_x_api_key") ==
        "it has no $http_x_api_key for the user field");
}

TEST_CASE("nginx: malformed lines say where they stop matching") {
  const auto log = read_log(nginx_spec(std::string(kNginxCombined)),
                            "203.0.113.7 - - [06/Dec/2025:05:46:40 +0000\n"
                            "203.0.113.7 - - [06/Dec/2025:05:46:40 +0000] \"GET / HTTP/1.1\" 200 1 "
                            "\"-\" \"a\" trailing\n"
                            "203.0.113.7 - - [yesterday] \"GET / HTTP/1.1\" 200 1 \"-\" \"a\"\n"
                            "garbage\n");
  CHECK(log.lines.empty());
  REQUIRE(log.bad_examples.size() == 4);
  CHECK(log.bad_examples[0].reason == R"(no "] \"" after $time_local)");
  CHECK(log.bad_examples[1].reason.rfind("unexpected text at column ", 0) == 0);
  CHECK(log.bad_examples[2].reason == "$time_local \"yesterday\" is not a time");
  CHECK(log.bad_examples[3].reason == "no \" - \" after $remote_addr");
}

TEST_CASE("haproxy: the HTTP log after its syslog header") {
  LogFormatSpec spec;
  spec.format = LogFormat::kHaproxy;
  spec.fields = {"client_ip", "client_ip", "uri", "server_name", "status"};
  const auto log = read_log(
      spec,
      "Dec  6 05:46:40 lb haproxy[14389]: 10.0.1.2:33317 [06/Dec/2025:05:46:40.655] http-in "
      "static/srv1 10/0/30/69/109 429 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "
      "\"GET /index.html HTTP/1.1\"\n"
      "10.0.1.3:40000 [06/Dec/2025:05:46:41.000] http-in static/srv2 0/0/0/1/1 200 10 - - ---- "
      "1/1/1/1/0 0/0 \"GET /a?b HTTP/1.1\"\n");
  REQUIRE(log.lines.size() == 2);
  CHECK(log.lines[0].time_us == 1'765'000'000'655'000);
  CHECK(log.lines[0].value(LogSlot::kUser) == "10.0.1.2");
  CHECK(log.lines[0].value(LogSlot::kInstance) == "srv1");
  CHECK(log.lines[0].value(LogSlot::kEndpoint) == "/index.html");
  CHECK(log.lines[0].value(LogSlot::kVerdict) == "429");
  CHECK(log.lines[1].value(LogSlot::kEndpoint) == "/a");
}

}  // namespace rlsim_test_nginx_format
