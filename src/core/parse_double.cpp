#include "core/parse_double.h"

#ifdef __EMSCRIPTEN__
#include <cerrno>
#include <cstdlib>
#include <string>
#endif

namespace rlsim {

#ifndef __EMSCRIPTEN__

std::from_chars_result from_chars_double(const char* first, const char* last, double& value) {
  return std::from_chars(first, last, value);
}

#else

std::from_chars_result from_chars_double(const char* first, const char* last, double& value) {
  const std::from_chars_result invalid{first, std::errc::invalid_argument};
  // strtod also takes leading whitespace and '+', which from_chars refuses.
  if (first == last || *first == '+' || *first == ' ' || (*first >= '\t' && *first <= '\r'))
    return invalid;
  std::string text(first, last);  // strtod needs the terminating NUL
  // strtod reads "0x1p3" as hex; from_chars (general format) reads its "0" and stops at 'x'.
  const std::size_t digits = text[0] == '-' ? 1 : 0;
  if (text.size() > digits + 1 && text[digits] == '0' &&
      (text[digits + 1] == 'x' || text[digits + 1] == 'X'))
    text.resize(digits + 1);
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(text.c_str(), &end);
  const auto consumed = static_cast<std::size_t>(end - text.c_str());
  if (consumed == 0) return invalid;
  if (errno == ERANGE) return {first + consumed, std::errc::result_out_of_range};
  value = parsed;
  return {first + consumed, std::errc()};
}

#endif

}  // namespace rlsim
