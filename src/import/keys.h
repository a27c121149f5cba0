#pragma once
// What a product's identifier counts per, in rlsim's keys (docs/scenario-format.md#limits): the
// name of a descriptor entry, a Limitador variable or a header read as user, ip or endpoint.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import/imported.h"

namespace rlsim {

// "ip" for a client address (remote_address, x-forwarded-for, client_ip...), "endpoint" for a
// path (path, uri, endpoint, route...), "user" for a client identity (user, consumer, api_key,
// client_id, token, tenant...); nullopt when the name says none of these (the caller keys it by
// user and warns). Case and separators do not matter.
std::optional<std::string> key_for_identifier(std::string_view name);

// One entry of an Envoy rate limit descriptor (envoyproxy/ratelimit's nested descriptors, the
// local rate limit filter's entries): its key, and its value ("" for any value).
struct DescriptorEntry {
  std::string key;
  std::string value;
};

// "database_users.remote_address": the descriptor as envoyproxy/ratelimit names its stats.
std::string descriptor_text(const std::vector<DescriptorEntry>& entries);

// The key a descriptor counts per: of its entries without a fixed value (a wildcard "foo*" varies
// too), as key_for_identifier reads their names (user, with a warning, when a name says nothing),
// user before ip before endpoint; "global" when every entry has a fixed value. A fixed value
// narrows the limit to some requests, which rlsim cannot (it applies every limit to every request):
// warned, except generic_key's (a route's constant). Warnings are added to `imported` at `at`.
std::string key_of_descriptor(const std::vector<DescriptorEntry>& entries, const std::string& at,
                              Imported& imported);

}  // namespace rlsim
