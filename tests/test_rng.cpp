#include <catch2/catch.hpp>

#include "core/rng.h"

namespace rlsim_test_rng {

using namespace rlsim;

TEST_CASE("a stream is a pure function of seed, name and index") {
  Rng a(42, "traffic", 0), b(42, "traffic", 0);
  for (int i = 0; i < 100; ++i) CHECK(a.next() == b.next());
}

TEST_CASE("different names, indexes and seeds give different streams") {
  CHECK(Rng(42, "traffic", 0).next() != Rng(42, "network", 0).next());
  CHECK(Rng(42, "traffic", 0).next() != Rng(42, "traffic", 1).next());
  CHECK(Rng(42, "traffic", 0).next() != Rng(43, "traffic", 0).next());
}

TEST_CASE("draws stay in range and have the right means") {
  Rng rng(1, "test");
  double sum_uniform = 0, sum_exp = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum_uniform += u;
    REQUIRE(rng.below(7) < 7);
    sum_exp += rng.exponential(3.0);
  }
  CHECK(sum_uniform / n == Approx(0.5).epsilon(0.01));
  CHECK(sum_exp / n == Approx(3.0).epsilon(0.02));
}

}  // namespace rlsim_test_rng
