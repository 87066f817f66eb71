// bench/raw_first_request: the floor under "process start -> first request at the server": a
// process that does nothing but connect to a loopback server and send one streaming chat request
// (optionally after a GET /v1/models on its own connection, the pre-flight a careful client
// makes), reading each answer to its end. bench/first_request.sh times it beside tokbench run.
// Plain POSIX sockets, no parsing, no libraries beyond libc: what a native tool cannot go under.
// Usage: raw_first_request PORT [models]   (exit 0 when each answer began "HTTP/1.1 200")
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// Sends `request` on a new connection to 127.0.0.1:port and reads until the server closes it
// (the request asks it to). True when the answer's status line is 200.
bool exchange(int port, const char* request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return false;
  const size_t size = std::strlen(request);
  for (size_t sent = 0; sent < size;) {
    const ssize_t n = ::write(fd, request + sent, size - sent);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  char buf[16384];
  char head[13] = {};
  size_t got = 0;
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) {
    for (ssize_t i = 0; i < n && got < 12; ++i) head[got++] = buf[i];
  }
  ::close(fd);
  return std::strcmp(head, "HTTP/1.1 200") == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 0;
  if (port <= 0 || port > 65535) {
    std::fprintf(stderr, "usage: raw_first_request PORT [models]\n");
    return 2;
  }
  if (argc > 2 && std::strcmp(argv[2], "models") == 0 &&
      !exchange(port, "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
    return 1;
  static const char body[] =
      "{\"model\":\"tokbench-mock\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hi.\"}],"
      "\"max_tokens\":1,\"stream\":true}";
  char request[512];
  std::snprintf(request, sizeof request,
                "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                sizeof body - 1, body);
  return exchange(port, request) ? 0 : 1;
}
