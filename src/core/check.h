#pragma once
// Assertions for programmer errors. They stay on in release builds: a broken invariant in a
// simulator silently produces wrong numbers, which is worse than stopping.
#include <cstdio>
#include <cstdlib>

#define RLSIM_CHECK(cond)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "rlsim: internal error: %s:%d: check failed: %s\n", __FILE__, __LINE__, \
                   #cond);                                                                         \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)
