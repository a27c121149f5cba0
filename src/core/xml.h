#pragma once
// XML escaping shared by the JUnit file (app/junit.cpp) and the SVG charts (report/svg_chart.cpp).

namespace rlsim {

// How the apostrophe is written: the JUnit file uses the XML name, the SVG charts the numeric
// reference (which HTML 4 parsers, where the charts are inlined, also read).
enum class Apostrophe { kNamed, kNumeric };

// The entity for one of XML's five special characters (& < > " '), or nullptr for any other.
const char* xml_entity(char c, Apostrophe apostrophe);

}  // namespace rlsim
