#include "net/plain_http.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace tokbench::net {

namespace {

using Clock = std::chrono::steady_clock;

// A socket closed whichever way the call ends.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Milliseconds left before `deadline` (0 once past it).
int left_ms(Clock::time_point deadline) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return ms > 0 ? static_cast<int>(ms) : 0;
}

// Waits for `events` on fd until the deadline: false when it passed first.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, left_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

// Connects to the first address that answers; -1 with `error` saying why none did.
int connect_any(const HttpUrl& u, Clock::time_point deadline, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(u.host.c_str(), u.port.c_str(), &hints, &found); rc != 0) {
    error = fmt::format("Could not resolve host: {} ({})", u.host, gai_strerror(rc));
    return -1;
  }
  int connected = -1;
  for (addrinfo* a = found; a && connected < 0; a = a->ai_next) {
    Fd s{::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol)};
    if (s.fd < 0) continue;
    int err = 0;
    if (::connect(s.fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        if (!wait_for(s.fd, POLLOUT, deadline)) {
          error = fmt::format("Connection to {} port {} timed out", u.host, u.port);
          continue;
        }
        socklen_t len = sizeof err;
        ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      }
    }
    if (err != 0) {
      error =
          fmt::format("Failed to connect to {} port {}: {}", u.host, u.port, std::strerror(err));
      continue;
    }
    connected = s.fd;
    s.fd = -1;
  }
  ::freeaddrinfo(found);
  return connected;
}

// The body as it is decoded, up to the cap.
struct Collect final : Http1Reader::Sink {
  std::string* body;
  size_t max_bytes;
  int status = 0;
  bool too_large = false;
  Collect(std::string* b, size_t m) : body(b), max_bytes(m) {}
  void on_status(int code) override { status = code; }
  void on_header(std::string_view, std::string_view) override {}
  bool on_body(std::string_view bytes) override {
    if (body->size() + bytes.size() > max_bytes) return !(too_large = true);
    body->append(bytes);
    return true;
  }
};

}  // namespace

GetResult plain_http_call(const HttpUrl& u, const std::string& url, const std::string* post_body,
                          const std::vector<std::string>& headers, long timeout_ms,
                          size_t max_bytes) {
  GetResult out;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  auto timed_out = [&](size_t received) {
    out.error = fmt::format("Operation timed out after {} milliseconds with {} bytes received",
                            timeout_ms, received);
    return out;
  };
  Fd s{connect_any(u, deadline, out.error)};
  if (s.fd < 0) return out;
  std::string bytes =
      request_head(post_body ? "POST" : "GET", u, headers,
                   post_body ? std::optional<size_t>(post_body->size()) : std::nullopt);
  if (post_body) bytes += *post_body;
  for (size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(s.fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(s.fd, POLLOUT, deadline)) return timed_out(0);
    } else {
      out.error = fmt::format("Failed sending the request to {}: {}", url, std::strerror(errno));
      return out;
    }
  }
  Http1Reader reader;
  Collect sink(&out.body, max_bytes);
  char buf[64 * 1024];
  size_t received = 0;
  while (!reader.done() && !reader.failed()) {
    const ssize_t n = ::recv(s.fd, buf, sizeof buf, 0);
    if (n > 0) {
      received += static_cast<size_t>(n);
      if (!reader.feed(std::string_view(buf, static_cast<size_t>(n)), sink)) break;
    } else if (n == 0) {
      reader.on_eof();
      break;
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!wait_for(s.fd, POLLIN, deadline)) return timed_out(received);
    } else {
      out.error = fmt::format("Recv failure from {}: {}", url, std::strerror(errno));
      return out;
    }
  }
  if (sink.too_large) {
    out.body.clear();
    out.error = fmt::format("the response from {} is larger than {} bytes (raise --max-body-bytes)",
                            url, max_bytes);
    return out;
  }
  if (!reader.done()) {
    out.body.clear();
    out.error = reader.failed()
                    ? fmt::format("the answer of {} broke HTTP: {}", url, reader.error())
                    : fmt::format("{} closed the connection before answering", url);
    return out;
  }
  out.reached = true;
  out.status = sink.status;
  return out;
}

}  // namespace tokbench::net
