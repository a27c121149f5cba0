// libFuzzer target: the request-log readers (src/logs). The first byte picks the format (CSV, JSON
// Lines, nginx combined, nginx with $msec, Envoy, HAProxy); the rest is the log. Any input must be
// read to its end, every line well-formed or counted as malformed: any exception, crash, leak or
// undefined behaviour is a bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "core/check.h"
#include "logs/log_reader.h"
#include "logs/nginx_format.h"

namespace {

rlsim::LogFormatSpec spec_for(std::uint8_t selector) {
  using rlsim::LogFormat;
  rlsim::LogFormatSpec spec;
  spec.time_field = "time";
  spec.fields = {"key", "ip", "endpoint", "instance", "status"};
  spec.required = {true, false, false, false, false};
  switch (selector % 6) {
    case 0:
      spec.format = LogFormat::kCsv;
      break;
    case 1:
      spec.format = LogFormat::kJsonLines;
      break;
    case 2:
    case 3:
      spec.format = LogFormat::kNginx;
      spec.log_format = selector % 6 == 2 ? std::string(rlsim::kNginxCombined)
                                          : R"($remote_addr [$time_iso8601] "$request" $status )"
                                            R"($msec "$http_x_api_key" ${upstream_addr})";
      spec.fields = {"remote_addr", "remote_addr", "uri", "", "status"};
      spec.required = {};
      break;
    case 4:
      spec.format = LogFormat::kEnvoy;
      spec.time_field = "start_time";
      spec.fields = {"x_forwarded_for", "", "path", "upstream_host", "response_flags"};
      break;
    default:
      spec.format = LogFormat::kHaproxy;
      spec.fields = {"client_ip", "client_ip", "uri", "server_name", "status"};
      spec.required = {};
      break;
  }
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string error;
  auto parser = rlsim::make_line_parser(spec_for(data[0]), error);
  RLSIM_CHECK(parser != nullptr);
  auto text = std::make_unique<std::istringstream>(
      std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  rlsim::LogReader reader(std::move(text), std::move(parser), -1);
  std::uint64_t good = 0;
  if (reader.start()) {
    rlsim::LogLine line;
    while (reader.next(line)) {
      RLSIM_CHECK(line.line_number <= reader.lines());
      ++good;
    }
  }
  // Every line is well-formed, malformed or the header.
  RLSIM_CHECK(good + reader.bad_lines() <= reader.lines());
  return 0;
}
