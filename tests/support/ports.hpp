#pragma once
// Test helpers: a TCP socket bound to a loopback port the kernel picks (for the tests' own
// servers), and a loopback port with nothing listening on it (bound, read, closed).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace tokbench::testing {

inline int bound_loopback_socket(uint16_t& port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

inline uint16_t unused_loopback_port() {
  uint16_t port = 0;
  close(bound_loopback_socket(port));  // nothing listens there now
  return port;
}

}  // namespace tokbench::testing
