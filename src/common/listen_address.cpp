#include "common/listen_address.hpp"

#include <charconv>

namespace tokbench {

std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* why) {
  auto fail = [&](const char* reason) -> std::optional<ListenAddress> {
    if (why) *why = reason;
    return std::nullopt;
  };
  ListenAddress a{"0.0.0.0", 0};
  std::string_view port = text;
  if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
      host = host.substr(1, host.size() - 2);
    if (host.empty()) return fail("expected PORT or HOST:PORT, e.g. 4318 or 127.0.0.1:4318");
    a.host = std::string(host);
    port = text.substr(colon + 1);
  }
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 1 ||
      value > 65535)
    return fail("expected a port from 1 to 65535, as PORT or HOST:PORT, e.g. 4318");
  a.port = static_cast<uint16_t>(value);
  return a;
}

}  // namespace tokbench
