// import/keys.cpp: identifiers of the products' configurations read as rlsim's keys.
#include <catch2/catch.hpp>

#include "import/keys.h"

namespace rlsim_test_import_keys {

using namespace rlsim;

TEST_CASE("import keys: names of client identities, addresses and paths") {
  for (const char* ip : {"remote_address", "x-forwarded-for", "client_ip", "IP", "source.address"})
    CHECK(key_for_identifier(ip) == "ip");
  for (const char* endpoint : {"path", "request.uri", "endpoint", ":path", "route_name"})
    CHECK(key_for_identifier(endpoint) == "endpoint");
  for (const char* user : {"user_id", "consumer", "x-api-key", "client_id", "tenant", "apikey"})
    CHECK(key_for_identifier(user) == "user");
  for (const char* none : {"database", "generic_key_x", "destination_cluster", ""})
    CHECK_FALSE(key_for_identifier(none).has_value());
}

TEST_CASE("import keys: a descriptor counts per its varying entries, user first") {
  Imported imported;
  CHECK(key_of_descriptor({{"remote_address", ""}}, "f:1:1", imported) == "ip");
  CHECK(key_of_descriptor({{"api_key", ""}, {"path", ""}}, "f:1:1", imported) == "user");
  CHECK(key_of_descriptor({{"path", ""}, {"remote_address", ""}}, "f:1:1", imported) == "ip");
  CHECK(key_of_descriptor({{"generic_key", "default"}}, "f:1:1", imported) == "global");
  CHECK(key_of_descriptor({{"client", "a*"}}, "f:1:1", imported) == "user");  // a wildcard varies
  CHECK(imported.warnings.empty());
  CHECK(key_of_descriptor({{"database", "users"}, {"shard", ""}}, "f:2:3", imported) == "user");
  REQUIRE(imported.warnings.size() == 2);
  CHECK(imported.warnings[0] ==
        "f:2:3: descriptor database_users.shard: applies only to requests "
        "whose database is users; rlsim applies it to every request");
  CHECK(imported.warnings[1] ==
        "f:2:3: descriptor key shard keyed by user (its name says no "
        "client identity, address or path)");
  CHECK(descriptor_text({{"a", "b"}, {"c", ""}}) == "a_b.c");
}

}  // namespace rlsim_test_import_keys
