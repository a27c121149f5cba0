#pragma once
// A temporary directory holding one scenario file, and the rlsim binary run inside it: for tests
// of commands end to end (test_sweep, test_live).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rlsim::testing {

inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class CliDir {
 public:
  // Writes `scenario_text` to s.json in a fresh directory named after `tag`.
  CliDir(const std::string& tag, const std::string& scenario_text) {
    static int counter = 0;
    path =
        std::filesystem::temp_directory_path() /
        ("rlsim-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path);
    std::ofstream(path / "s.json") << scenario_text;
  }
  ~CliDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  CliDir(const CliDir&) = delete;
  CliDir& operator=(const CliDir&) = delete;

  // Runs `rlsim ARGS` here with NO_COLOR set, stdin from /dev/null; returns the exit status. The
  // output is in out() and err() afterwards.
  int rlsim(const std::string& args) const {
    return shell("NO_COLOR=1 '" RLSIM_BINARY "' " + args);
  }
  // Runs a shell command here the same way (output in out() and err()).
  int shell(const std::string& command) const {
    const std::string full =
        "cd '" + path.string() + "' && { " + command + " ; } >.out 2>.err </dev/null";
    const int raw = std::system(full.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }
  std::string out() const { return read_text_file(path / ".out"); }
  std::string err() const { return read_text_file(path / ".err"); }

  std::filesystem::path path;
};

}  // namespace rlsim::testing
