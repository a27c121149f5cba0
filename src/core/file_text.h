#pragma once
// Reading a whole file a user named (a scenario, a Lua script) without trusting what it is: only a
// regular file of bounded size is read, and a named pipe or a device is refused without blocking
// on it (opened with O_NONBLOCK, checked with fstat on the same descriptor).
#include <cstddef>
#include <istream>
#include <memory>
#include <string>

namespace rlsim {

struct FileText {
  std::string text;
  // Empty when the file was read; otherwise why not, as a phrase to put after the file's name:
  // "no such file", "permission denied", "a directory, not a regular file", "a named pipe (FIFO),
  // not a regular file", "a device, not a regular file", "larger than 16 MiB", ...
  std::string error;
};

// Reads the regular file at `path` if it holds at most `max_bytes` bytes.
FileText read_regular_file(const std::string& path, std::size_t max_bytes);

// Opens the regular file at `path` to be read as a stream, of any size (a request log read line by
// line): null, with `error` set as read_regular_file sets it, when it cannot be opened or is not a
// regular file.
std::unique_ptr<std::istream> open_regular_stream(const std::string& path, std::string& error);

// "16 MiB", "64 KiB" or "1000 bytes": a size bound as messages and docs state it.
std::string format_byte_size(std::size_t bytes);

}  // namespace rlsim
