#pragma once
// nginx access logs described by their log_format string, in nginx's own `$variable` syntax
// (docs/replay.md#nginx), and HAProxy's HTTP log format (`option httplog`,
// docs/replay.md#haproxy), read the same way from a fixed template. A line is matched against the
// format's literal text: each variable's value runs to the next literal (nginx escapes `"` inside
// values as \x22, so a quoted value cannot end early).
#include <memory>
#include <string>
#include <string_view>

#include "logs/log_line.h"

namespace rlsim {

// nginx's predefined `combined` format.
inline constexpr std::string_view kNginxCombined =
    R"($remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent )"
    R"("$http_referer" "$http_user_agent")";

// HAProxy 2.x's `option httplog` line (after the syslog header, which the parser skips), in the
// same template syntax; the capture blocks `{...}`, when present, fall inside $queues.
inline constexpr std::string_view kHaproxyHttpLog =
    R"($client_ip:$client_port [$accept_date] $frontend_name $backend_name/$server_name )"
    R"($timers $status $bytes_read $request_cookie $response_cookie $termination_state )"
    R"($conns $queues "$request")";

// The parser for `spec` (format kNginx with spec.log_format, or kHaproxy), or null with `error`
// set: a log_format that does not parse, no time variable, a required field it lacks.
std::unique_ptr<LineParser> make_nginx_parser(const LogFormatSpec& spec, std::string& error);

}  // namespace rlsim
