#include <catch2/catch.hpp>
#include <string>

#include "core/sha1.h"

namespace rlsim_test_sha1 {

using rlsim::sha1_hex;

TEST_CASE("SHA-1 of the FIPS 180 and RFC 3174 test vectors") {
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  CHECK(sha1_hex("The quick brown fox jumps over the lazy dog") ==
        "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
  CHECK(sha1_hex(std::string(1000000, 'a')) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST_CASE("SHA-1 across the padding boundaries (55, 56, 63, 64 and 65 bytes)") {
  // Digests from `printf %s "$(head -c N /dev/zero | tr '\0' a)" | sha1sum`.
  CHECK(sha1_hex(std::string(55, 'a')) == "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  CHECK(sha1_hex(std::string(56, 'a')) == "c2db330f6083854c99d4b5bfb6e8f29f201be699");
  CHECK(sha1_hex(std::string(63, 'a')) == "03f09f5b158a7a8cdad920bddc29b81c18a551f5");
  CHECK(sha1_hex(std::string(64, 'a')) == "0098ba824b5c16427bd7a1122a5a442a25ec644d");
  CHECK(sha1_hex(std::string(65, 'a')) == "11655326c708d70319be2610e8a57d9a5b959d3b");
}

TEST_CASE("SHA-1 names a script as Redis does") {
  // `redis-cli SCRIPT LOAD "return 1"` on Redis 7.0.
  CHECK(sha1_hex("return 1") == "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
}

}  // namespace rlsim_test_sha1
