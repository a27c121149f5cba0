#pragma once
// Seeded randomness. Every component draws from its own stream, derived from the scenario seed and
// a stable name, so that adding a component (or a strategy) never shifts another one's numbers.
#include <cmath>
#include <cstdint>
#include <string_view>

namespace rlsim {

// SplitMix64 step: a well-mixed 64-bit hash, used both to derive stream seeds and as a finalizer.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// FNV-1a over a name; stable across platforms and runs (std::hash is not).
constexpr std::uint64_t hash_name(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// xoshiro256** generator: fast, 256-bit state, good statistical quality.
class Rng {
 public:
  // A stream for component `name` (and optional index) under the scenario seed.
  Rng(std::uint64_t seed, std::string_view name, std::uint64_t index = 0) {
    std::uint64_t x = mix64(seed ^ mix64(hash_name(name) + mix64(index)));
    for (auto& word : state_) {
      x = mix64(x);
      word = x;
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n). REQUIRES: n > 0.
  std::uint64_t below(std::uint64_t n) {
    // Multiply-shift mapping: unbiased enough for simulation (bias < n / 2^64).
    __extension__ using Wide = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<Wide>(next()) * n) >> 64);
  }

  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

  // Standard normal (Box-Muller; one value per call keeps the stream simple to reason about).
  double normal() {
    const double u1 = 1.0 - uniform();  // in (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace rlsim
