#include "logs/csv_format.h"

#include <fmt/format.h>

#include <vector>

#include "logs/log_time.h"

namespace rlsim {
namespace {

constexpr int kNoSlot = -1;
constexpr int kTimeColumn = -2;
constexpr std::size_t kMaxColumns = 256;

class CsvParser final : public LineParser {
 public:
  // Every quoted field's scratch string exists from the start: growing the vector would move
  // the strings (and the views into them) of the line being read.
  explicit CsvParser(const LogFormatSpec& spec) : spec_(spec), quoted_(kMaxColumns + 1) {}

  bool has_header() const override { return true; }

  std::string read_header(std::string_view line) override {
    std::vector<std::string> names;
    std::string why;
    if (!split(
            line,
            [&](std::size_t, std::string_view field) {
              names.emplace_back(field);
              return names.size() <= kMaxColumns;
            },
            why))
      return why;
    if (names.size() > kMaxColumns) return fmt::format("more than {} columns", kMaxColumns);
    column_slot_.assign(names.size(), kNoSlot);
    std::string missing;
    const auto bind = [&](const std::string& name, int slot, bool required) {
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) {
          column_slot_[i] = slot;
          return;
        }
      }
      if (required) missing += (missing.empty() ? "\"" : ", \"") + name + "\"";
    };
    bind(spec_.time_field, kTimeColumn, true);
    for (std::size_t slot = 0; slot < kLogSlotCount; ++slot)
      if (!spec_.fields[slot].empty())
        bind(spec_.fields[slot], static_cast<int>(slot), spec_.required[slot]);
    if (!missing.empty()) return fmt::format("no column {} in the header", missing);
    return "";
  }

  bool parse(std::string_view line, LogLine& out, std::string& why) override {
    out.values = {};
    out.whole_second = false;
    std::string_view time;
    std::size_t columns = 0;
    const bool split_ok = split(
        line,
        [&](std::size_t column, std::string_view field) {
          columns = column + 1;
          if (column >= column_slot_.size()) return true;  // counted, refused below
          const int slot = column_slot_[column];
          if (slot == kTimeColumn) time = field;
          if (slot >= 0) out.values[static_cast<std::size_t>(slot)] = field;
          return true;
        },
        why);
    if (!split_ok) return false;
    if (columns != column_slot_.size()) {
      why = fmt::format("expected {} fields, got {}", column_slot_.size(), columns);
      return false;
    }
    const auto time_us = parse_log_time_us(time);
    if (!time_us) {
      why = fmt::format("the time \"{}\" is neither seconds nor an ISO 8601 date-time",
                        time.substr(0, 40));
      return false;
    }
    out.time_us = *time_us;
    return true;
  }

 private:
  // Calls on_field(column, text) for each field of the line; a quoted field is unquoted into a
  // scratch string of its own (valid until the next line). False (and `why`) when malformed.
  template <typename OnField>
  bool split(std::string_view line, OnField on_field, std::string& why) {
    std::size_t column = 0, at = 0, quoted = 0;
    while (true) {
      std::string_view field;
      if (at < line.size() && line[at] == '"') {
        if (quoted == quoted_.size()) {
          why = fmt::format("more than {} quoted fields", kMaxColumns);
          return false;
        }
        std::string& text = quoted_[quoted++];
        text.clear();
        std::size_t i = at + 1;
        while (true) {
          const std::size_t close = line.find('"', i);
          if (close == std::string_view::npos) {
            why = fmt::format("field {} opens a quote that does not close", column + 1);
            return false;
          }
          text.append(line.substr(i, close - i));
          if (close + 1 < line.size() && line[close + 1] == '"') {
            text += '"';
            i = close + 2;
            continue;
          }
          at = close + 1;
          break;
        }
        if (at < line.size() && line[at] != ',') {
          why = fmt::format("field {} has text after its closing quote", column + 1);
          return false;
        }
        field = text;
      } else {
        const std::size_t comma = line.find(',', at);
        field = line.substr(at, comma == std::string_view::npos ? line.size() - at : comma - at);
        at += field.size();
      }
      if (!on_field(column++, field)) return true;
      if (at >= line.size()) return true;
      ++at;  // the comma
    }
  }

  const LogFormatSpec spec_;
  std::vector<int> column_slot_;
  std::vector<std::string> quoted_;
};

}  // namespace

std::unique_ptr<LineParser> make_csv_parser(const LogFormatSpec& spec, std::string& error) {
  error.clear();
  return std::make_unique<CsvParser>(spec);
}

}  // namespace rlsim
