#include "common/console.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "common/abbreviate.hpp"

namespace tokbench {

namespace {

struct Cookie {
  std::FILE* out;
  size_t width;
  std::string pending;  // the unfinished line
};

void pass_on(const Cookie& c, std::string_view line) {
  // A line that moves the cursor (a progress line's \r, a colour) is not prose: as written.
  const bool prose = line.find_first_of("\r\x1b") == std::string_view::npos;
  const std::string fitted = prose ? fit_line(line, c.width) : std::string(line);
  std::fwrite(fitted.data(), 1, fitted.size(), c.out);
}

ssize_t write_fitted(void* c, const char* data, size_t size) {
  auto* cookie = static_cast<Cookie*>(c);
  cookie->pending.append(data, size);
  size_t start = 0;
  for (size_t nl; (nl = cookie->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    pass_on(*cookie, std::string_view(cookie->pending).substr(start, nl - start));
    std::fputc('\n', cookie->out);
  }
  cookie->pending.erase(0, start);
  std::fflush(cookie->out);
  return static_cast<ssize_t>(size);
}

int close_fitted(void* c) {
  auto* cookie = static_cast<Cookie*>(c);
  if (!cookie->pending.empty()) pass_on(*cookie, cookie->pending);
  std::fflush(cookie->out);
  delete cookie;
  return 0;
}

}  // namespace

void ConsoleCloser::operator()(std::FILE* f) const {
  if (f) std::fclose(f);
}

size_t console_width(std::FILE* out) {
  if (const char* env = std::getenv("TOKBENCH_WIDTH"); env && *env) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    return *end == '\0' && n > 0 ? static_cast<size_t>(std::max(n, 40L)) : 0;
  }
  winsize ws{};
  if (!isatty(fileno(out)) || ioctl(fileno(out), TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return 0;
  return std::max<size_t>(60, ws.ws_col);
}

Console fitted_console(std::FILE* out) {
  const size_t width = console_width(out);
  if (width == 0) return Console();
  auto* cookie = new Cookie{out, width, {}};
  cookie_io_functions_t io{};
  io.write = write_fitted;
  io.close = close_fitted;
  std::FILE* f = fopencookie(cookie, "w", io);
  if (!f) {
    delete cookie;
    return Console();
  }
  std::setvbuf(f, nullptr, _IOLBF, 1 << 14);
  return Console(f);
}

}  // namespace tokbench
