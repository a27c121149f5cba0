// JUnit XML for `rlsim check --junit` (docs/ci.md#junit): one <testsuite> per scenario file, one
// <testcase> per expectation x seed (and per determinism / baseline check), the seed as a
// property. No timestamps or durations, so the same results give the same bytes.
#include <fmt/format.h>

#include "app/check.h"
#include "core/xml.h"

namespace rlsim {
namespace {

// The length of the valid UTF-8 sequence starting at text[i], or 0.
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  std::uint32_t code = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// Text for an attribute value or element content: the five XML specials escaped, characters
// that XML 1.0 forbids (control characters but tab and newline, U+FFFE, U+FFFF, invalid UTF-8)
// as U+FFFD.
std::string junit_escape(const std::string& text, bool attribute = true) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t length = utf8_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are valid UTF-8 but not XML 1.0 characters: an expect
    // description holding one would make the whole file unreadable to a CI server.
    if (length == 3 && text.compare(i, 2, "\xEF\xBF") == 0 &&
        (static_cast<unsigned char>(text[i + 2]) & 0xFE) == 0xBE) {
      out += "\xEF\xBF\xBD";
      i += length;
      continue;
    }
    if (length > 1) {
      out.append(text, i, length);
      i += length;
      continue;
    }
    if (const char* entity = xml_entity(c, Apostrophe::kNamed)) {
      out += entity;
      ++i;
      continue;
    }
    switch (c) {
      case '\n':  // as a reference in attributes, which parsers would turn into a space
        out += attribute ? "&#10;" : "\n";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += "\xEF\xBF\xBD";
        } else {
          out += c;
        }
    }
    ++i;
  }
  return out;
}

std::string property(const std::string& name, const std::string& value) {
  return fmt::format("<property name=\"{}\" value=\"{}\"/>", junit_escape(name),
                     junit_escape(value));
}

}  // namespace

std::string junit_xml(const std::vector<CheckSuite>& suites) {
  const CheckCounts total = count_cases(suites);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"rlsim check\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" "
      "errors=\"0\">\n",
      total.passed + total.failed + total.skipped, total.failed, total.skipped);
  for (const auto& suite : suites) {
    const CheckCounts counts = count_cases(suite.cases);
    out += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\">\n",
        junit_escape(suite.scenario), suite.cases.size(), counts.failed, counts.skipped);
    std::string seeds;
    // Appended piecewise: `"" + std::to_string(...)` trips GCC 12's -Wrestrict false positive.
    for (const auto seed : suite.seeds) {
      if (!seeds.empty()) seeds += ' ';
      seeds += std::to_string(seed);
    }
    out += "    <properties>" + property("file", suite.file) + property("seeds", seeds) +
           "</properties>\n";
    for (const auto& c : suite.cases) {
      out +=
          fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", junit_escape(suite.scenario),
                      junit_escape(fmt::format("{} (seed {})", c.name, c.seed)));
      out += "      <properties>" + property("seed", std::to_string(c.seed)) +
             property("kind", c.kind) + "</properties>\n";
      if (c.status == CheckCase::Status::kSkipped) {
        out += fmt::format("      <skipped message=\"{}\"/>\n", junit_escape(c.message));
      } else if (c.status == CheckCase::Status::kFailed) {
        std::string body = c.message + "\n";
        for (const auto& line : c.details) body += line + "\n";
        body += "reproduce: " + c.reproduce + "\n";
        out +=
            fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                        junit_escape(c.kind), junit_escape(c.message), junit_escape(body, false));
      }
      out += "    </testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace rlsim
