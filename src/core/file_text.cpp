#include "core/file_text.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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

 private:
  int fd_;
};

}  // namespace

std::string format_byte_size(std::size_t bytes) {
  constexpr std::size_t kKiB = 1024;
  constexpr std::size_t kMiB = kKiB * kKiB;
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  if (bytes >= kKiB && bytes % kKiB == 0) return fmt::format("{} KiB", bytes / kKiB);
  return fmt::format("{} bytes", bytes);
}

FileText read_regular_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It changes nothing
  // for a regular file, the only kind read below.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) return {"", open_error(errno)};
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return {"", open_error(errno)};
  if (std::string kind = kind_error(info.st_mode); !kind.empty()) return {"", kind};
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
