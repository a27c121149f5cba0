#pragma once
// `instances.autoscale` (docs/scenario-format.md#autoscale, docs/autoscaling.md): the HPA's fields
// with its defaults (kubernetes pkg/apis/autoscaling/v2/defaults.go). Kept apart from load.cpp,
// which calls it.
#include <string>

#include "scenario/autoscale_spec.h"

namespace rlsim {

class ObjectReader;

// Reads `instances.autoscale` through the instances section's reader (absent: spec.enabled stays
// false). Fails with the field's path on a bad value.
AutoscaleSpec read_autoscale(ObjectReader& instances);

}  // namespace rlsim
