#include "core/xml.h"

namespace rlsim {

const char* xml_entity(char c, Apostrophe apostrophe) {
  switch (c) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return apostrophe == Apostrophe::kNamed ? "&apos;" : "&#39;";
    default:
      return nullptr;
  }
}

}  // namespace rlsim
