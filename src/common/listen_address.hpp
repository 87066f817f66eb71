#pragma once
// common/listen_address: where a listener tokbench runs binds (--otlp-receive, --live): "PORT"
// (every address: a server on another host must reach it), "HOST:PORT" or "[IPv6]:PORT".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tokbench {

struct ListenAddress {
  std::string host;  ///< a numeric address ("0.0.0.0" for a bare port)
  uint16_t port = 0;
};

/// The address `text` names, or nullopt with why (a port outside 1..65535, a missing port).
std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* why);

}  // namespace tokbench
