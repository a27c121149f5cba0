// logs/log_reader: lines split from a stream, malformed lines counted with their line numbers,
// max_bad_lines, lines longer than the bound, a stream that does not end in a newline; and the
// reading benchmark (hidden: build-quick/tests/rlsim_tests '[.bench]' -# '[#test_log_reader]').
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "core/file_text.h"
#include "log_test_util.h"
#include "logs/nginx_format.h"

namespace rlsim_test_log_reader {

using namespace rlsim;
using rlsim::testing::keyed_spec;
using rlsim::testing::read_log;

TEST_CASE("log reader: line numbers count the header and every malformed line") {
  const auto log = read_log(keyed_spec(LogFormat::kCsv),
                            "time,key\n1,alice\n\nnot-a-time,bob\n2,carol\r\n3,dave");
  REQUIRE(log.failure.empty());
  REQUIRE(log.lines.size() == 3);
  CHECK(log.lines[0].line_number == 2);
  CHECK(log.lines[1].line_number == 5);
  CHECK(log.lines[1].value(LogSlot::kUser) == "carol");  // the \r of CRLF is not part of it
  CHECK(log.lines[2].line_number == 6);                  // no final newline: still read
  CHECK(log.lines[2].time_us == 3'000'000);
  CHECK(log.bad_lines == 2);
  REQUIRE(log.bad_examples.size() == 2);
  CHECK(log.bad_examples[0].line_number == 3);
  CHECK(log.bad_examples[0].reason == "an empty line");
  CHECK(log.bad_examples[1].line_number == 4);
}

TEST_CASE("log reader: the first five malformed lines are kept, all are counted") {
  std::string text = "time,key\n";
  for (int i = 0; i < 8; ++i) text += "x,k\n";
  const auto log = read_log(keyed_spec(LogFormat::kCsv), text);
  CHECK(log.bad_lines == 8);
  CHECK(log.bad_examples.size() == LogReader::kBadLineExamples);
  CHECK(log.bad_examples.back().line_number == 6);
}

TEST_CASE("log reader: passing max_bad_lines stops reading with the first example") {
  const std::string text = "time,key\n1,a\nx,b\n2,c\ny,d\n3,e\n";
  const auto within = read_log(keyed_spec(LogFormat::kCsv), text, 2);
  CHECK(within.failure.empty());
  CHECK(within.lines.size() == 3);
  const auto over = read_log(keyed_spec(LogFormat::kCsv), text, 1);
  CHECK(over.lines.size() == 2);  // lines 2 and 4; line 5 is the second bad one
  CHECK(over.failure.rfind("more than 1 malformed lines (max_bad_lines); the first: line 3: ", 0) ==
        0);
}

TEST_CASE("log reader: a line longer than 64 KiB is malformed and reading goes on") {
  const std::string huge(LogReader::kMaxLineBytes + 10, 'a');
  const std::string longest(5 * LogReader::kMaxLineBytes, 'b');  // more than the whole buffer
  const auto log = read_log(keyed_spec(LogFormat::kCsv),
                            "time,key\n1," + huge + "\n2,x\n3," + longest + "\n4,y\n");
  REQUIRE(log.lines.size() == 2);
  CHECK(log.lines[0].line_number == 3);
  CHECK(log.lines[1].line_number == 5);
  CHECK(log.lines[1].value(LogSlot::kUser) == "y");
  REQUIRE(log.bad_examples.size() == 2);
  CHECK(log.bad_examples[0].reason == "longer than 64 KiB");
  CHECK(log.bad_examples[1].line_number == 4);
}

TEST_CASE("log reader: an empty log has no header") {
  const auto log = read_log(keyed_spec(LogFormat::kCsv), "");
  CHECK(log.failure == "the log is empty: expected a header line");
}

TEST_CASE("log reader: a verdict is denied when it or one comma-separated part matches") {
  CHECK(logged_denied("429", {"429"}));
  CHECK_FALSE(logged_denied("200", {"429"}));
  CHECK(logged_denied("UO,RL", {"RL"}));
  CHECK_FALSE(logged_denied("URL", {"RL"}));
  CHECK_FALSE(logged_denied("-", {"RL"}));
}

namespace {

// Lines per CPU second reading `lines` copies of `line` from a file through the command line's
// opener (core/file_text.h), as a replay reads them.
double lines_per_s(const LogFormatSpec& spec, const std::string& header, const std::string& line,
                   int lines) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("rlsim-bench-log-" + std::to_string(::getpid()));
  {
    std::ofstream out(path);
    out << header;
    for (int i = 0; i < lines; ++i) out << line;
  }
  std::string error, spec_error;
  LogReader reader(open_regular_stream(path, error), make_line_parser(spec, spec_error), 0);
  // CPU time, not wall time: the benchmark machine is shared, and waiting for a core is not cost.
  const std::clock_t start = std::clock();
  REQUIRE(reader.start());
  LogLine parsed;
  std::int64_t read = 0, checksum = 0;
  while (reader.next(parsed)) {
    ++read;
    checksum += parsed.time_us + static_cast<std::int64_t>(parsed.value(LogSlot::kUser).size());
  }
  const double s = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  std::filesystem::remove(path);
  CHECK(read == lines);
  CHECK(checksum > 0);
  CHECK(reader.bad_lines() == 0);
  return static_cast<double>(read) / s;
}

}  // namespace

TEST_CASE("[.bench] reading CSV and nginx logs, lines per second", "[.bench]") {
  constexpr int kLines = 2'000'000;
  const double csv =
      lines_per_s(keyed_spec(LogFormat::kCsv), "time,key,ip,endpoint,instance,status\n",
                  "1765000000.123,key-042,198.51.100.42,/v1/search,2,200\n", kLines);
  std::printf("csv: %.2f M lines/s\n", csv / 1e6);
  LogFormatSpec nginx;
  nginx.format = LogFormat::kNginx;
  nginx.log_format = std::string(kNginxCombined);
  nginx.fields = {"remote_addr", "remote_addr", "uri", "", "status"};
  const double combined = lines_per_s(
      nginx, "",
      "198.51.100.42 - - [06/Dec/2025:05:46:40 +0000] \"GET /v1/search?q=rate+limit HTTP/1.1\" "
      "200 1532 \"https://example.com/\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\"\n",
      kLines);
  std::printf("nginx combined: %.2f M lines/s\n", combined / 1e6);
  nginx.log_format = R"($remote_addr - [$time_local] "$request" $status $body_bytes_sent $msec )"
                     R"("$http_x_api_key" $upstream_addr)";
  nginx.fields = {"http_x_api_key", "remote_addr", "uri", "upstream_addr", "status"};
  const double msec = lines_per_s(
      nginx, "",
      "198.51.100.42 - [06/Dec/2025:05:46:40 +0000] \"GET /v1/search?page=3 HTTP/1.1\" 200 1532 "
      "1765000000.096 \"key-042\" 10.0.1.1:8080\n",
      kLines);
  std::printf("nginx with $msec (replay-nginx.json's format): %.2f M lines/s\n", msec / 1e6);
}

}  // namespace rlsim_test_log_reader
