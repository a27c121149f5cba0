#include "import/directives.h"

#include <fmt/format.h>

#include <cctype>

#include "scenario/error.h"

namespace rlsim {

namespace {

// Reads one word at `at` (a quoted one without its quotes); advances `at` and `column` past it.
std::string read_word(const std::string& text, std::size_t& at, int& column, int line,
                      const std::string& path) {
  const char quote = text[at];
  std::string word;
  if (quote == '\'' || quote == '"') {
    const std::size_t end = text.find(quote, at + 1);
    if (end == std::string::npos || text.find('\n', at) < end)
      throw ScenarioError(fmt::format("{}:{}:{}: unterminated quote", path, line, column));
    word = text.substr(at + 1, end - at - 1);
    column += static_cast<int>(end + 1 - at);
    at = end + 1;
    return word;
  }
  while (at < text.size() && !std::isspace(static_cast<unsigned char>(text[at])) &&
         text[at] != ';' && text[at] != '{' && text[at] != '}' && text[at] != '#') {
    word += text[at++];
    ++column;
  }
  return word;
}

bool is_section(const std::string& word) {
  for (const char* section :
       {"global", "defaults", "frontend", "backend", "listen", "peers", "resolvers", "userlist",
        "program", "http-errors", "ring", "cache", "mailers"})
    if (word == section) return true;
  return false;
}

}  // namespace

std::vector<Directive> nginx_directives(const std::string& text, const std::string& path) {
  std::vector<Directive> out;
  std::vector<std::string> blocks;
  Directive current;
  int line = 1, column = 1;
  std::size_t at = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (c == '\n') {
      ++line, column = 1, ++at;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++column, ++at;
    } else if (c == '#') {
      while (at < text.size() && text[at] != '\n') ++at;
    } else if (c == ';' || c == '{') {
      if (current.words.empty())
        throw ScenarioError(fmt::format("{}:{}:{}: unexpected '{}'", path, line, column, c));
      current.blocks = blocks;
      if (c == '{') {
        std::string name;
        for (const std::string& word : current.words) name += (name.empty() ? "" : " ") + word;
        blocks.push_back(name);
      }
      out.push_back(std::move(current));
      current = Directive{};
      ++column, ++at;
    } else if (c == '}') {
      if (blocks.empty() || !current.words.empty())
        throw ScenarioError(fmt::format("{}:{}:{}: unexpected '}}'", path, line, column));
      blocks.pop_back();
      ++column, ++at;
    } else {
      if (current.words.empty()) current.line = line, current.column = column;
      current.words.push_back(read_word(text, at, column, line, path));
    }
  }
  if (!current.words.empty() || !blocks.empty())
    throw ScenarioError(fmt::format("{}:{}:{}: unexpected end of file (a ';' or '}}' is missing)",
                                    path, line, column));
  return out;
}

std::vector<Directive> haproxy_directives(const std::string& text, const std::string& path) {
  std::vector<Directive> out;
  std::string section;
  int line = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    Directive directive;
    int column = 1;
    std::size_t at = start;
    while (at < end) {
      if (std::isspace(static_cast<unsigned char>(text[at]))) {
        ++at, ++column;
      } else if (text[at] == '#') {
        break;
      } else {
        if (directive.words.empty()) directive.line = line, directive.column = column;
        std::string word = read_word(text, at, column, line, path);
        if (word.empty()) ++at, ++column;  // a lone ';', '{' or '}': a word character here
        directive.words.push_back(word.empty() ? std::string(1, text[at - 1]) : word);
      }
    }
    if (!directive.words.empty()) {
      if (is_section(directive.words.front())) {
        section.clear();
        for (const std::string& word : directive.words)
          section += (section.empty() ? "" : " ") + word;
      } else {
        directive.blocks = {section};
        out.push_back(std::move(directive));
      }
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

std::string where_directive(const std::string& path, const Directive& directive) {
  return fmt::format("{}:{}:{}", path, directive.line, directive.column);
}

}  // namespace rlsim
