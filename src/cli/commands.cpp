#include "cli/commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "common/abbreviate.hpp"
#include "common/console.hpp"

namespace tokbench::cli {

namespace {

// Edits (insert, delete, replace, swap two neighbours) that turn a into b.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

class WrappedHelp : public CLI::Formatter {
 public:
  explicit WrappedHelp(size_t width) : width_(width) {}
  std::string make_option_desc(const CLI::Option* o) const override {
    const std::string desc = CLI::Formatter::make_option_desc(o);
    const size_t room = width_ > get_column_width() + 30 ? width_ - get_column_width() : 30;
    std::string out;
    size_t at = 0;
    while (at <= desc.size()) {
      size_t end = desc.find('\n', at);
      if (end == std::string::npos) end = desc.size();
      // fit_line indents what it continues; CLI11 indents every line to the column itself.
      std::string line = fit_line(std::string_view(desc).substr(at, end - at), room);
      for (size_t nl; (nl = line.find("\n  ")) != std::string::npos;) line.erase(nl + 1, 2);
      out += (out.empty() ? "" : "\n") + line;
      at = end + 1;
    }
    return out;
  }

 private:
  size_t width_;
};

}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter() {
  const size_t width = console_width(stdout);
  const bool off = std::getenv("TOKBENCH_WIDTH") && width == 0;  // TOKBENCH_WIDTH=0: never
  return std::make_shared<WrappedHelp>(off ? SIZE_MAX / 2 : width ? width : kConsoleWidth);
}

void add_commands(CLI::App& app, std::function<int()>& action) {
  add_run(app, action);
  add_serve_mock(app, action);
  add_report(app, action);
  add_compare(app, action);
  add_history(app, action);
  add_tokenize(app, action);
  add_doctor(app, action);
  add_render(app, action);
  add_reference(app, action);
}

std::string command_path(const CLI::App& app) {
  std::string out;
  for (const CLI::App* c = &app; !c->get_subcommands().empty();) {
    c = c->get_subcommands().front();
    out += " " + c->get_name();
  }
  return out;
}

std::string closest_option(const CLI::App& app, std::string_view word) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 4) + 1;  // a typo, not another word
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& name : o->get_lnames()) {
      const size_t d = edit_distance(word, name);
      if (d < best_d) {
        best_d = d;
        best = name;
      }
    }
  }
  return best;
}

std::vector<std::string> unknown_flag_hints(const CLI::App& app, int argc, char** argv) {
  const CLI::App* verb = &app;  // the command named, down to a nested one's (render kube)
  while (!verb->get_subcommands().empty()) verb = verb->get_subcommands().front();
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;  // what follows is positional (render's run flags)
    if (!arg.starts_with("--") || arg.size() < 3) continue;
    const std::string name(arg.substr(
        2, arg.find('=') == std::string_view::npos ? std::string_view::npos : arg.find('=') - 2));
    if (verb->get_option_no_throw("--" + name) || app.get_option_no_throw("--" + name)) continue;
    const std::string near = closest_option(*verb, name);
    out.push_back(near.empty()
                      ? fmt::format("unknown option --{} (`tokbench{} --help` lists them)", name,
                                    command_path(app))
                      : fmt::format("unknown option --{}: did you mean --{}?", name, near));
  }
  return out;
}

}  // namespace tokbench::cli
