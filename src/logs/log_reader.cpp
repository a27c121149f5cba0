#include "logs/log_reader.h"

#include <fmt/format.h>

#include <cstring>

#include "core/check.h"
#include "logs/csv_format.h"
#include "logs/jsonl_format.h"
#include "logs/nginx_format.h"

namespace rlsim {
namespace {

// Four times the longest line: a line that fits is always found whole in the buffer.
constexpr std::size_t kBufferBytes = 4 * LogReader::kMaxLineBytes;

}  // namespace

bool logged_denied(std::string_view value, const std::vector<std::string>& denied) {
  while (true) {
    const std::size_t comma = value.find(',');
    const std::string_view part = value.substr(0, comma);
    for (const std::string& d : denied)
      if (part == d) return true;
    if (comma == std::string_view::npos) return false;
    value.remove_prefix(comma + 1);
  }
}

std::unique_ptr<LineParser> make_line_parser(const LogFormatSpec& spec, std::string& error) {
  switch (spec.format) {
    case LogFormat::kCsv:
      return make_csv_parser(spec, error);
    case LogFormat::kJsonLines:
    case LogFormat::kEnvoy:
      return make_jsonl_parser(spec, error);
    case LogFormat::kNginx:
    case LogFormat::kHaproxy:
      return make_nginx_parser(spec, error);
  }
  error = "unknown format";
  return nullptr;
}

LogReader::LogReader(std::unique_ptr<std::istream> in, std::unique_ptr<LineParser> parser,
                     std::int64_t max_bad_lines)
    : in_(std::move(in)),
      parser_(std::move(parser)),
      max_bad_lines_(max_bad_lines),
      buffer_(kBufferBytes) {
  RLSIM_CHECK(in_ != nullptr && parser_ != nullptr);
}

bool LogReader::start() {
  if (!parser_->has_header()) return true;
  std::string_view line;
  if (!next_text_line(line)) {
    if (failure_.empty()) failure_ = "the log is empty: expected a header line";
    return false;
  }
  if (std::string why = parser_->read_header(line); !why.empty()) {
    failure_ = fmt::format("line 1 (the header): {}", why);
    return false;
  }
  return true;
}

bool LogReader::refill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  in_->read(buffer_.data() + end_, static_cast<std::streamsize>(buffer_.size() - end_));
  const auto got = static_cast<std::size_t>(in_->gcount());
  end_ += got;
  if (in_->bad()) {
    failure_ = fmt::format("reading stopped after line {}: the stream failed", line_number_);
    eof_ = true;
    return false;
  }
  if (got == 0 || in_->eof()) eof_ = true;
  return got > 0;
}

bool LogReader::next_text_line(std::string_view& line) {
  while (failure_.empty()) {
    const char* start = buffer_.data() + begin_;
    const auto* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - begin_));
    if (newline == nullptr && !eof_ && (begin_ > 0 || end_ < buffer_.size())) {
      refill();
      continue;
    }
    if (newline == nullptr && begin_ == end_) return false;  // the end of the stream
    ++line_number_;
    if (newline == nullptr && !eof_) {
      // The buffer is full and holds no newline: skip to the next one.
      count_bad(fmt::format("longer than {} KiB", kMaxLineBytes / 1024));
      begin_ = end_ = 0;
      while (failure_.empty()) {
        if (!refill()) return false;
        const auto* end = static_cast<const char*>(std::memchr(buffer_.data(), '\n', end_));
        if (end != nullptr) {
          begin_ = static_cast<std::size_t>(end - buffer_.data()) + 1;
          break;
        }
        begin_ = end_ = 0;
      }
      continue;
    }
    const std::size_t length =
        newline != nullptr ? static_cast<std::size_t>(newline - start) : end_ - begin_;
    begin_ += length + (newline != nullptr ? 1 : 0);
    line = std::string_view(start, length);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kMaxLineBytes) {
      count_bad(fmt::format("longer than {} KiB", kMaxLineBytes / 1024));
      continue;
    }
    return true;
  }
  return false;
}

void LogReader::count_bad(std::string reason) {
  ++bad_lines_;
  if (bad_examples_.size() < kBadLineExamples)
    bad_examples_.push_back(BadLine{line_number_, std::move(reason)});
  if (max_bad_lines_ >= 0 && bad_lines_ > static_cast<std::uint64_t>(max_bad_lines_)) {
    failure_ = fmt::format("more than {} malformed lines (max_bad_lines); the first: line {}: {}",
                           max_bad_lines_, bad_examples_.front().line_number,
                           bad_examples_.front().reason);
  }
}

bool LogReader::next(LogLine& line) {
  std::string_view text;
  while (next_text_line(text)) {
    why_.clear();
    if (text.empty()) {
      count_bad("an empty line");
      continue;
    }
    if (parser_->parse(text, line, why_)) {
      line.line_number = line_number_;
      return true;
    }
    count_bad(why_);
  }
  return false;
}

}  // namespace rlsim
