// Envoy's HTTP local rate limit filter (envoy.filters.http.local_ratelimit) found in a bootstrap
// or listener YAML, as api/envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto
// and api/envoy/type/v3/token_bucket.proto define it (docs/import.md#envoy-local-rate-limit).
#include <fmt/format.h>

#include "import/formats.h"
#include "import/keys.h"
#include "scenario/error.h"

namespace rlsim {

namespace {

constexpr const char* kHttpType = "envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
constexpr const char* kNetworkType =
    "envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit";

bool has_type(const YAML::Node& node, const char* type) {
  return node.IsMap() && field_of(node, "@type").IsScalar() &&
         field_of(node, "@type").Scalar().ends_with(type);
}

// Every map of the tree whose @type is `type`, in document order (the tree is bounded by
// kMaxConfigNodes, so is this walk).
void find_typed(const YAML::Node& node, const char* type, std::vector<YAML::Node>& out) {
  if (has_type(node, type)) out.push_back(node);
  if (node.IsSequence())
    for (const YAML::Node& child : node) find_typed(child, type, out);
  if (node.IsMap())
    for (const auto& entry : node) find_typed(entry.second, type, out);
}

// google.protobuf.Duration as Envoy's YAML gives it: "1s", "0.5s" or {seconds, nanos}.
DurationUs fill_interval_us(const ConfigFile& file, const YAML::Node& bucket) {
  const YAML::Node value = field_of(bucket, "fill_interval");
  std::optional<DurationUs> us;
  if (value.IsScalar()) us = parse_duration(value.Scalar());
  if (value.IsMap()) {
    const std::int64_t seconds = integer_field(file, value, "seconds").value_or(0);
    const std::int64_t nanos = integer_field(file, value, "nanos").value_or(0);
    if (seconds >= 0 && seconds <= 86'400 && nanos >= 0 && nanos < 1'000'000'000)
      us = seconds * kUsPerS + nanos / 1000;
  }
  if (!value.IsDefined()) fail_at(file, bucket, "fill_interval", "missing (Envoy requires it)");
  if (!us || *us < 50 * kUsPerMs || *us > 24 * kUsPerHour)
    fail_at(file, value, "fill_interval",
            "expected a duration from 50ms (Envoy's minimum) to 24h such as \"1s\" or {seconds: "
            "1, nanos: 0}, got " +
                text_of(value));
  return *us;
}

struct Bucket {
  std::int64_t max_tokens = 0;
  std::int64_t tokens_per_fill = 1;  // token_bucket.proto's default
  DurationUs fill_interval_us = 0;
  std::string source;
};

Bucket bucket_of(const ConfigFile& file, const YAML::Node& bucket) {
  if (!bucket.IsMap()) fail_at(file, bucket, "token_bucket", "expected a map");
  Bucket out;
  out.max_tokens = integer_field(file, bucket, "max_tokens").value_or(0);
  out.tokens_per_fill = integer_field(file, bucket, "tokens_per_fill").value_or(1);
  if (out.max_tokens < 1 || out.tokens_per_fill < 1)
    fail_at(file, bucket, "token_bucket", "max_tokens and tokens_per_fill must be at least 1");
  out.fill_interval_us = fill_interval_us(file, bucket);
  out.source = fmt::format("{} token_bucket: max_tokens {}, tokens_per_fill {}, fill_interval {}",
                           where(file, bucket), out.max_tokens, out.tokens_per_fill,
                           format_duration(out.fill_interval_us));
  return out;
}

// A bucket as a limit whose default shape in envoy_local is the bucket itself: capacity
// max_tokens, refilled at max_tokens per window, the window being fill_interval x max_tokens /
// tokens_per_fill (rounded to whole milliseconds, warned when that changes it).
void add_bucket_limit(const Bucket& bucket, std::string name, std::string key, Imported& imported) {
  const double window_us = static_cast<double>(bucket.fill_interval_us) *
                           static_cast<double>(bucket.max_tokens) /
                           static_cast<double>(bucket.tokens_per_fill);
  const auto window_ms = std::llround(window_us / kUsPerMs);
  if (window_ms < 1 || window_ms * kUsPerMs > 24 * kUsPerHour) {
    imported.warn(bucket.source, "not imported: its refill makes a window outside 1ms to 24h");
    return;
  }
  if (static_cast<double>(window_ms * kUsPerMs) != window_us)
    imported.warn(bucket.source, fmt::format("refill rate rounded to {} per {}", bucket.max_tokens,
                                             format_duration(window_ms * kUsPerMs)));
  imported.add_limit(
      {std::move(name), std::move(key), bucket.max_tokens, window_ms * kUsPerMs, bucket.source});
}

// RuntimeFractionalPercent's default_value as a percentage; nullopt when the field is absent.
std::optional<double> percent_of(const ConfigFile& file, const YAML::Node& filter,
                                 const char* field) {
  const YAML::Node value = field_of(field_of(filter, field), "default_value");
  if (!field_of(filter, field).IsDefined()) return std::nullopt;
  const double numerator = static_cast<double>(integer_field(file, value, "numerator").value_or(0));
  const std::string denominator = string_field(file, value, "denominator").value_or("HUNDRED");
  if (denominator == "TEN_THOUSAND") return numerator / 100;
  if (denominator == "MILLION") return numerator / 10'000;
  return numerator;
}

void import_fractions(const ConfigFile& file, const YAML::Node& filter, Imported& imported) {
  const std::string at = where(file, filter);
  const auto enabled = percent_of(file, filter, "filter_enabled");
  const auto enforced = percent_of(file, filter, "filter_enforced");
  if (enabled.value_or(0) < 100)
    imported.warn(at, fmt::format("filter_enabled {}% (Envoy's default 0%: the filter does "
                                  "nothing) imported as 100%",
                                  enabled.value_or(0)));
  if (enforced.value_or(0) == 0) {
    imported.mode = {"shadow", fmt::format("{} filter_enforced {}%: decisions are counted, not "
                                           "enforced (Envoy's default 0%)",
                                           at, enforced.value_or(0))};
  } else if (*enforced < 100) {
    imported.warn(at, fmt::format("filter_enforced {}% imported as 100%", *enforced));
  }
}

bool known_filter_field(const std::string& field) {
  for (const char* known :
       {"@type", "stat_prefix", "status", "token_bucket", "filter_enabled", "filter_enforced",
        "request_headers_to_add_when_not_enforced", "response_headers_to_add", "descriptors",
        "stage", "local_rate_limit_per_downstream_connection", "local_cluster_rate_limit",
        "enable_x_ratelimit_headers", "vh_rate_limits", "always_consume_default_token_bucket",
        "rate_limited_as_resource_exhausted"})
    if (field == known) return true;
  return false;
}

void import_descriptors(const ConfigFile& file, const YAML::Node& filter, Imported& imported) {
  const YAML::Node list = field_of(filter, "descriptors");
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) fail_at(file, list, "descriptors", "expected a list");
  for (const YAML::Node& descriptor : list) {
    std::vector<DescriptorEntry> entries;
    if (field_of(descriptor, "entries").IsSequence())
      for (const YAML::Node& entry : field_of(descriptor, "entries"))
        entries.push_back({string_field(file, entry, "key").value_or(""),
                           string_field(file, entry, "value").value_or("")});
    const Bucket bucket = bucket_of(file, field_of(descriptor, "token_bucket"));
    add_bucket_limit(bucket, descriptor_text(entries),
                     key_of_descriptor(entries, where(file, descriptor), imported), imported);
  }
  if (!bool_field(file, filter, "always_consume_default_token_bucket").value_or(true))
    imported.warn(where(file, field_of(filter, "always_consume_default_token_bucket")),
                  "always_consume_default_token_bucket false: rlsim consumes every bucket");
}

void import_filter(const ConfigFile& file, const YAML::Node& filter, Imported& imported) {
  for (const auto& entry : filter)
    if (!known_filter_field(entry.first.Scalar()))
      imported.warn(where(file, entry.first), entry.first.Scalar() + ": not modelled");
  imported.notes.push_back(fmt::format("the local_ratelimit filter at {} (stat_prefix {})",
                                       where(file, filter),
                                       string_field(file, filter, "stat_prefix").value_or("?")));
  if (field_of(filter, "token_bucket").IsDefined()) {
    const Bucket bucket = bucket_of(file, field_of(filter, "token_bucket"));
    if (field_of(filter, "descriptors").IsDefined()) {
      add_bucket_limit(bucket, "token_bucket", "global", imported);
    } else {  // one bucket: the strategy's parameters say it in Envoy's own terms
      imported.add_limit({"token_bucket", "global", bucket.tokens_per_fill, bucket.fill_interval_us,
                          bucket.source});
      imported.param("max_tokens", bucket.max_tokens, bucket.source);
      imported.param("tokens_per_fill", bucket.tokens_per_fill, bucket.source);
      imported.param("fill_interval", format_duration(bucket.fill_interval_us), bucket.source);
    }
  }
  import_descriptors(file, filter, imported);
  if (field_of(filter, "local_cluster_rate_limit").IsMap())
    imported.param(
        "local_cluster_rate_limit", true,
        where(file, field_of(filter, "local_cluster_rate_limit")) + " local_cluster_rate_limit");
  if (bool_field(file, filter, "local_rate_limit_per_downstream_connection").value_or(false))
    imported.warn(where(file, field_of(filter, "local_rate_limit_per_downstream_connection")),
                  "local_rate_limit_per_downstream_connection: rlsim keeps one bucket per process");
  import_fractions(file, filter, imported);
}

}  // namespace

Imported import_envoy_local(const std::vector<ConfigFile>& files, const ImportSettings& settings) {
  check_setting_names(settings, "envoy_local", {});
  Imported imported;
  imported.format = "envoy_local";
  imported.product = "Envoy local rate limit filter";
  imported.strategy = "envoy_local";
  imported.uses_redis = false;
  std::vector<std::pair<const ConfigFile*, YAML::Node>> filters;
  for (const ConfigFile& file : files) {
    imported.files.push_back(file.path);
    std::vector<YAML::Node> found;
    find_typed(file.root, kHttpType, found);
    for (const YAML::Node& filter : found)
      if (field_of(filter, "token_bucket").IsDefined() ||
          field_of(filter, "descriptors").IsDefined())
        filters.emplace_back(&file, filter);
    std::vector<YAML::Node> network;
    find_typed(file.root, kNetworkType, network);
    for (const YAML::Node& filter : network)
      imported.warn(where(file, filter), "a network (connection) local rate limit: not modelled");
  }
  if (filters.empty())
    throw ScenarioError(
        fmt::format("{}: no HTTP local_ratelimit filter with a token_bucket "
                    "(@type {})",
                    files.front().path, kHttpType));
  for (std::size_t i = 1; i < filters.size(); ++i)
    imported.warn(where(*filters[i].first, filters[i].second),
                  "another local_ratelimit configuration (a route's or virtual host's) not "
                  "imported: a scenario models one");
  import_filter(*filters.front().first, filters.front().second, imported);
  if (imported.limits.empty())
    throw ScenarioError(files.front().path + ": no token bucket could be imported");
  return imported;
}

}  // namespace rlsim
