#include "core/file_text.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <streambuf>
#include <utility>
#include <vector>

namespace rlsim {
namespace {

std::string open_error(int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return "no such file";
    case EACCES:
    case EPERM:
      return "permission denied";
    default:
      return std::strerror(error);
  }
}

// Why a file of this mode cannot be read as a scenario or script; empty for a regular file.
std::string kind_error(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory, not a regular file";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO), not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device, not a regular file";
  if (S_ISSOCK(mode)) return "a socket, not a regular file";
  return "not a regular file";
}

// Closes the descriptor on every path out of read_regular_file.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// Opens `path` without blocking; the descriptor (-1 on failure, `error` set) of a regular file.
int open_regular(const std::string& path, std::string& error) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It changes nothing
  // for a regular file, the only kind read.
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) {
    error = open_error(errno);
    return -1;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    error = open_error(errno);
    return -1;
  }
  error = kind_error(info.st_mode);
  return error.empty() ? fd.release() : -1;
}

// A read-only stream buffer over a descriptor it owns, refilled 64 KiB at a time.
class DescriptorBuffer final : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd), buffer_(65536) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    ssize_t got = 0;
    do {
      got = ::read(fd_.get(), buffer_.data(), buffer_.size());
    } while (got < 0 && errno == EINTR);
    if (got < 0) throw std::ios_base::failure(std::strerror(errno));
    if (got == 0) return traits_type::eof();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
    return traits_type::to_int_type(*gptr());
  }

 private:
  Descriptor fd_;
  std::vector<char> buffer_;
};

// The stream that owns its buffer.
class DescriptorStream final : public std::istream {
 public:
  explicit DescriptorStream(int fd) : std::istream(nullptr), buffer_(fd) { rdbuf(&buffer_); }

 private:
  DescriptorBuffer buffer_;
};

}  // namespace

std::string format_byte_size(std::size_t bytes) {
  constexpr std::size_t kKiB = 1024;
  constexpr std::size_t kMiB = kKiB * kKiB;
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return fmt::format("{} bytes", bytes);
}

std::unique_ptr<std::istream> open_regular_stream(const std::string& path, std::string& error) {
  const int fd = open_regular(path, error);
  if (fd < 0) return nullptr;
  return std::make_unique<DescriptorStream>(fd);
}

FileText read_regular_file(const std::string& path, std::size_t max_bytes) {
  std::string error;
  const Descriptor fd(open_regular(path, error));
  if (fd.get() < 0) return {"", error};
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return {"", open_error(errno)};
  const std::string too_large = "larger than " + format_byte_size(max_bytes);
  if (static_cast<std::size_t>(info.st_size) > max_bytes) return {"", too_large};
  // Read at most max_bytes + 1: a file that grows while it is read is still bounded.
  FileText out;
  out.text.resize(max_bytes + 1 > 65536 ? 65536 : max_bytes + 1);
  std::size_t used = 0;
  while (true) {
    if (used == out.text.size()) {
      if (used > max_bytes) return {"", too_large};
      out.text.resize(std::min(out.text.size() * 2, max_bytes + 1));
    }
    const ssize_t got = ::read(fd.get(), out.text.data() + used, out.text.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return {"", std::strerror(errno)};
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  if (used > max_bytes) return {"", too_large};
  out.text.resize(used);
  return out;
}

}  // namespace rlsim
