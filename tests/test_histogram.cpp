#include <catch2/catch.hpp>

#include "core/histogram.h"

namespace rlsim_test_histogram {

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

TEST_CASE("large values keep a relative error below 0.2% and are never understated") {
  Histogram h;
  h.record(1'234'567);
  h.record(2'000'000);
  // 1,234,567 lies in [2^20, 2^21), where buckets are 2^11 = 2048 wide: 1,234,567 = 1,232,896 +
  // 1671, so its bucket is [1,232,896, 1,234,944) and the quantile is its largest value.
  const auto q = h.quantile(0.5);
  CHECK(q == 1'234'943);
  CHECK(q >= 1'234'567);
  CHECK(static_cast<double>(q) <= 1'234'567 * 1.002);
  CHECK(h.max() == 2'000'000);
}

TEST_CASE("a quantile is capped at the recorded maximum") {
  // 50 ms (a 50 ms client timeout) lies in the bucket [49984, 50048) (width 2^6 in [2^15, 2^16)).
  Histogram h;
  for (int i = 0; i < 10; ++i) h.record(50'000);
  CHECK(h.quantile(0.5) == 50'000);
  CHECK(h.quantile(0.99) == 50'000);
  h.record(60'000);
  CHECK(h.quantile(0.5) == 50'047);  // the bucket's largest value, below the maximum
  CHECK(h.quantile(1.0) == 60'000);
}

TEST_CASE("every value from 1024 to 70000 is reported within 1/512 above itself") {
  for (std::int64_t v = 1024; v <= 70'000; v += 7) {
    Histogram h;
    h.record(v);
    h.record(1'000'000);
    const auto q = h.quantile(0.5);
    INFO(v);
    CHECK(q >= v);
    CHECK(static_cast<double>(q - v) < static_cast<double>(v) / 512.0);
  }
}

TEST_CASE("an empty histogram reports zero") {
  Histogram h;
  CHECK(h.quantile(0.99) == 0);
  CHECK(h.max() == 0);
}

}  // namespace rlsim_test_histogram
