#include "cli/commands.hpp"

namespace tokbench::cli {

void add_commands(CLI::App& app, std::function<int()>& action) {
  add_run(app, action);
  add_serve_mock(app, action);
  add_report(app, action);
  add_compare(app, action);
  add_tokenize(app, action);
  add_reference(app, action);
}

}  // namespace tokbench::cli
