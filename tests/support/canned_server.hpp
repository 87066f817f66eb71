#pragma once
// Test helper: a hostile or foreign server on loopback — for every connection it reads one
// request (headers and Content-Length body), writes the bytes `respond(path)` returns and closes.
// Bounded: it serves at most `max_connections` and stops with the object.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ports.hpp"

namespace tokbench::testing {

class CannedServer {
 public:
  explicit CannedServer(std::function<std::string(const std::string& path)> respond,
                        int max_connections = 64)
      : respond_(std::move(respond)) {
    fd_ = bound_loopback_socket(port);
    listen(fd_, 16);
    thread_ = std::thread([this, max_connections] { serve(max_connections); });
  }
  ~CannedServer() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }

  /// A complete HTTP/1.1 response with the given status, content type and body.
  static std::string http(int status, const std::string& type, const std::string& body) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
           body;
  }

  uint16_t port = 0;
  /// Every request received so far (head and body), in arrival order.
  std::vector<std::string> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  void serve(int max_connections) {
    for (int served = 0; served < max_connections && !stop_;) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++served;
      std::string req;
      char buf[8192];
      size_t need = std::string::npos;
      while (need == std::string::npos || req.size() < need) {
        pollfd q{c, POLLIN, 0};
        if (poll(&q, 1, 2000) <= 0) break;
        const ssize_t n = read(c, buf, sizeof buf);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
        const size_t end = req.find("\r\n\r\n");
        if (need == std::string::npos && end != std::string::npos) {
          size_t body = 0;
          const size_t cl = req.find("Content-Length: ");
          if (cl != std::string::npos && cl < end) body = std::stoul(req.substr(cl + 16));
          need = end + 4 + body;
        }
      }
      {
        std::lock_guard lock(mu_);
        requests_.push_back(req);
      }
      const size_t sp = req.find(' ');
      const std::string path =
          sp == std::string::npos ? "" : req.substr(sp + 1, req.find(' ', sp + 1) - sp - 1);
      const std::string out = respond_(path);
      for (size_t off = 0; off < out.size();) {
        const ssize_t n = send(c, out.data() + off, out.size() - off,
                               MSG_NOSIGNAL);  // a client that gave up: EPIPE, not SIGPIPE
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
      close(c);
    }
  }

  std::function<std::string(const std::string&)> respond_;
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace tokbench::testing
