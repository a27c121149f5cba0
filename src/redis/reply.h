#pragma once
// Redis commands and replies as values (the RESP2 types), shared by the mock store, a real Redis
// and the strategies.
#include <cstdint>
#include <string>
#include <vector>

namespace rlsim {

using Command = std::vector<std::string>;  // argv, e.g. {"INCR", "rl:user:42:29"}

struct Reply {
  enum class Type { kNil, kInteger, kStatus, kError, kBulk, kArray };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  std::string text;  // status, error or bulk string
  std::vector<Reply> elements;
  // True when the client gave up waiting (the command may still have run on the server).
  bool timed_out = false;

  static Reply nil() { return {}; }
  static Reply from_integer(std::int64_t value) {
    Reply r;
    r.type = Type::kInteger;
    r.integer = value;
    return r;
  }
  static Reply status(std::string text) { return with_text(Type::kStatus, std::move(text)); }
  static Reply error(std::string text) { return with_text(Type::kError, std::move(text)); }
  static Reply bulk(std::string text) { return with_text(Type::kBulk, std::move(text)); }
  static Reply array(std::vector<Reply> elements) {
    Reply r;
    r.type = Type::kArray;
    r.elements = std::move(elements);
    return r;
  }
  static Reply timeout() {
    Reply r = error("TIMEOUT rlsim client timeout");
    r.timed_out = true;
    return r;
  }
  bool is_error() const { return type == Type::kError; }
  bool operator==(const Reply& other) const = default;

 private:
  static Reply with_text(Type type, std::string text) {
    Reply r;
    r.type = type;
    r.text = std::move(text);
    return r;
  }
};

// Renders a reply like redis-cli does ("(integer) 1", "(nil)", "(error) ERR ..."), for tests and
// messages.
std::string to_display(const Reply& reply);

}  // namespace rlsim
