#pragma once
// The products' settings that live outside their configuration files (environment variables,
// command-line flags), given to `rlsim import` as --setting NAME=VALUE by the product's own names,
// mapped onto the strategy's parameters.
#include "import/formats.h"

namespace rlsim {

// envoyproxy/ratelimit (src/settings/settings.go): LOCAL_CACHE_SIZE_IN_BYTES,
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, NEAR_LIMIT_RATIO, EXPIRATION_JITTER_MAX_SECONDS,
// REDIS_TIMEOUT, SHADOW_MODE.
void apply_ratelimit_settings(const ImportSettings& settings, Imported& imported);

// Limitador's redis_cached storage flags: flush-period, batch-size, max-cached,
// response-timeout (milliseconds where a time), and the environment variable
// REDIS_LOCAL_CACHE_FLUSHING_PERIOD_MS of older versions.
void apply_limitador_settings(const ImportSettings& settings, Imported& imported);

}  // namespace rlsim
