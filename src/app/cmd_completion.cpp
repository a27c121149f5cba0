// `rlsim completion bash`: the bash completion script, rendered from the command line
// (app/completion.h). The build runs it to make the installed script (CMakeLists.txt).
#include <iostream>
#include <memory>
#include <string>

#include "app/completion.h"
#include "app/exit_codes.h"
#include "app/subcommand.h"
#include "core/check.h"

namespace rlsim {

Subcommand completion_subcommand() {
  return {"completion", "Print the shell completion script (bash: source <(rlsim completion bash))",
          [](CLI::App& cli) -> CommandRun {
            auto shell = std::make_shared<std::string>();
            cli.add_option("shell", *shell, "The shell (only bash)")
                ->required()
                ->check(CLI::IsMember({"bash"}));
            const CLI::App* root = cli.get_parent();
            // The lambda owns `shell`: CLI11 writes the parsed value through the reference, so it
            // must outlive the parse (it did not, and ASan caught the use after free).
            return [root, shell] {
              RLSIM_CHECK(*shell == "bash");  // CLI::IsMember above
              std::cout << bash_completion(*root);
              return exit_code::kOk;
            };
          }};
}

}  // namespace rlsim
