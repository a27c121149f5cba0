// `rlsim man`: the manual page rlsim(1) in roff, rendered from the command line (app/man_page.h).
// The build runs it to make the installed page (CMakeLists.txt, cmake/generate-docs.cmake).
#include <iostream>

#include "app/exit_codes.h"
#include "app/man_page.h"
#include "app/subcommand.h"

namespace rlsim {

Subcommand man_subcommand() {
  return {"man", "Print the manual page rlsim(1) in roff (read it with: rlsim man | man -l -)",
          [](CLI::App& cli) -> CommandRun {
            const CLI::App* root = cli.get_parent();
            return [root] {
              std::cout << man_page(*root);
              return exit_code::kOk;
            };
          }};
}

}  // namespace rlsim
