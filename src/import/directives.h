#pragma once
// nginx's and HAProxy's configuration files are not YAML: they are lines of directives, words
// separated by blanks, `#` starting a comment. This reads them into directives with their
// positions, for the nginx and HAProxy importers (docs/import.md#nginx, #haproxy).
#include <string>
#include <vector>

namespace rlsim {

// One directive: its words (quotes removed), where it starts, and the names of the blocks it is
// in (nginx: "http", "server", "location /api"; HAProxy: the section line, "backend api").
struct Directive {
  std::vector<std::string> words;
  int line = 0;
  int column = 0;
  std::vector<std::string> blocks;
};

// nginx syntax: directives end with ';', blocks are `name args { ... }`, words may be quoted
// with ' or ", `#` comments to the end of the line. Throws ScenarioError "<path>:<line>:<col>:
// ..." for an unterminated quote, a '}' without its '{', or a block left open.
std::vector<Directive> nginx_directives(const std::string& text, const std::string& path);

// HAProxy syntax: one directive per line, `#` comments, a line starting with a section keyword
// (global, defaults, frontend, backend, listen, peers, ...) opens that section, which holds the
// lines after it (Directive::blocks has the section line).
std::vector<Directive> haproxy_directives(const std::string& text, const std::string& path);

// "<path>:<line>:<column>" of `directive`.
std::string where_directive(const std::string& path, const Directive& directive);

}  // namespace rlsim
