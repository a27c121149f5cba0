#include <catch2/catch.hpp>

#include "core/histogram.h"

using namespace rlsim;

TEST_CASE("small values are exact") {
  Histogram h;
  for (int v = 1; v <= 100; ++v) h.record(v);
  CHECK(h.count() == 100);
  CHECK(h.quantile(0.5) == 50);
  CHECK(h.quantile(0.99) == 99);
  CHECK(h.quantile(1.0) == 100);
  CHECK(h.max() == 100);
}

TEST_CASE("large values keep a relative error below 0.2%") {
  Histogram h;
  h.record(1'234'567);
  const auto q = h.quantile(0.5);
  CHECK(q <= 1'234'567);
  CHECK(static_cast<double>(q) >= 1'234'567 * 0.998);
  CHECK(h.max() == 1'234'567);
}

TEST_CASE("an empty histogram reports zero") {
  Histogram h;
  CHECK(h.quantile(0.99) == 0);
  CHECK(h.max() == 0);
}
