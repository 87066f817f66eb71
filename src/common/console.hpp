#pragma once
// common/console: the run's console, one screen wide. On a terminal every line a command prints is
// fitted to its width (common/abbreviate's fit_line: broken at spaces, continuations indented),
// so no figure or reason scrolls off to the right, wherever it was printed; tables and lines that
// fit pass as written. Piped to a file or a CI log, lines stay whole (grep finds a reason on one
// line), as `ls` and `git` do. TOKBENCH_WIDTH=N fits to N columns anywhere (0: never). Each
// complete line is passed on and flushed at once, so a reader of the pipe (a test waiting for
// "request body:") sees it when it is said.
#include <cstdio>
#include <memory>

namespace tokbench {

struct ConsoleCloser {
  void operator()(std::FILE* f) const;
};
using Console = std::unique_ptr<std::FILE, ConsoleCloser>;

/// The width to fit `out`'s lines to: TOKBENCH_WIDTH when set, else a terminal's columns (at
/// least 60), else 0 (not fitted).
size_t console_width(std::FILE* out);

/// A stream over `out` that fits its lines to console_width(out); closing it passes on a last
/// unfinished line. Null where no width applies or the C library cannot make one (the caller
/// then prints to `out` as it is).
Console fitted_console(std::FILE* out);

}  // namespace tokbench
