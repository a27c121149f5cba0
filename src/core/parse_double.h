#pragma once
// std::from_chars for a double, everywhere rlsim builds: the WebAssembly build's libc++
// (emscripten 3.1.6) deletes that overload, so there the same rules are kept over strtod.
#include <charconv>

namespace rlsim {

// As std::from_chars(first, last, value) in the general format: an optional '-', digits with an
// optional point and exponent, or inf / nan; no leading whitespace, '+' or hex. `value` is left
// unchanged unless the result's ec is std::errc().
std::from_chars_result from_chars_double(const char* first, const char* last, double& value);

}  // namespace rlsim
