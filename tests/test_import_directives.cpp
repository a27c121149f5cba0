// import/directives.cpp: nginx's and HAProxy's configuration syntax read into directives with
// their positions and enclosing blocks.
#include <catch2/catch.hpp>

#include "import/directives.h"
#include "scenario/error.h"

namespace rlsim_test_import_directives {

using namespace rlsim;

TEST_CASE("directives: nginx words, quotes, comments, blocks and positions") {
  const auto directives = nginx_directives(
      "# a comment\nhttp {\n  limit_req_zone $a zone=z:1m rate=1r/s; # trailing\n"
      "  server { location '/a b' { limit_req zone=z \"burst=2\"; } }\n}\n",
      "n.conf");
  REQUIRE(directives.size() == 5);
  CHECK(directives[1].words ==
        std::vector<std::string>{"limit_req_zone", "$a", "zone=z:1m", "rate=1r/s"});
  CHECK(directives[1].line == 3);
  CHECK(directives[1].column == 3);
  CHECK(directives[1].blocks == std::vector<std::string>{"http"});
  CHECK(directives[4].words == std::vector<std::string>{"limit_req", "zone=z", "burst=2"});
  CHECK(directives[4].blocks == std::vector<std::string>{"http", "server", "location /a b"});
  CHECK(where_directive("n.conf", directives[4]) == "n.conf:4:30");
  for (const char* bad : {"http {", "}", "a 'b;", "; x;"}) {
    INFO(bad);
    CHECK_THROWS_AS(nginx_directives(bad, "bad.conf"), ScenarioError);
  }
}

TEST_CASE("directives: HAProxy lines grouped by section") {
  const auto directives = haproxy_directives(
      "global\n  maxconn 100\n\nfrontend web # the site\n  bind :80\n"
      "  http-request deny if { sc_http_req_rate(0) gt 10 }\n",
      "h.cfg");
  REQUIRE(directives.size() == 3);
  CHECK(directives[0].blocks == std::vector<std::string>{"global"});
  CHECK(directives[2].blocks == std::vector<std::string>{"frontend web"});
  CHECK(directives[2].words == std::vector<std::string>{"http-request", "deny", "if", "{",
                                                        "sc_http_req_rate(0)", "gt", "10", "}"});
  CHECK(directives[2].line == 6);
}

}  // namespace rlsim_test_import_directives
