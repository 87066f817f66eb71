#pragma once
// Test helper: an HTTP/1.1 server on loopback that keeps connections open, for what a canned
// one-response-per-connection server cannot show: a kept-alive connection the server drops, an
// answer before the request's body was read. Each connection runs on its own thread; for the
// n-th request on connection c, `script(c, n, request)` says what to write and whether to close.
// Bounded: at most `max_connections`, each read waits at most 2 s, and it stops with the object.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ports.hpp"

namespace tokbench::testing {

class ScriptedServer {
 public:
  struct Reply {
    Reply(std::string b = {}, bool c = false) : bytes(std::move(b)), close(c) {}
    std::string bytes;   ///< written as they are ("" = nothing)
    bool close = false;  ///< close the connection after writing
    std::string late;    ///< written `late_ms` after `bytes`, unasked (a server's stray answer)
    int late_ms = 0;
    std::vector<std::string> then;  ///< written one by one after `bytes`, `gap_ms` apart (a stream)
    int gap_ms = 0;
    std::function<void()> after;  ///< called once everything is written (a server's bookkeeping)
  };
  struct Seen {
    int connection = 0;   ///< 0, 1, ... in accept order
    int nth = 0;          ///< 0, 1, ... on that connection
    std::string request;  ///< the head, and the body when read
  };
  using Script = std::function<Reply(int connection, int nth, const std::string& request)>;

  /// `read_bodies` false: answer once the head is in, leaving the body unread (a server that
  /// refuses a request early, as a 413 does).
  explicit ScriptedServer(Script script, bool read_bodies = true, int max_connections = 16)
      : script_(std::move(script)), read_bodies_(read_bodies) {
    fd_ = bound_loopback_socket(port);
    listen(fd_, 16);
    acceptor_ = std::thread([this, max_connections] { accept_loop(max_connections); });
  }
  ~ScriptedServer() {
    stop_ = true;
    acceptor_.join();
    for (auto& t : connections_) t.join();
    close(fd_);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }

  uint16_t port = 0;
  std::vector<Seen> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  void accept_loop(int max_connections) {
    for (int c = 0; c < max_connections && !stop_;) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int fd = accept(fd_, nullptr, nullptr);
      if (fd < 0) continue;
      connections_.emplace_back([this, fd, c] { serve(fd, c); });
      ++c;
    }
  }

  // Reads one request (its head, and its Content-Length body when asked); "" = the peer closed.
  std::string read_request(int fd, std::string& buffered) {
    char buf[8192];
    size_t need = std::string::npos;
    while (!stop_) {
      const size_t end = buffered.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        size_t body = 0;
        const size_t cl = buffered.find("Content-Length: ");
        if (read_bodies_ && cl != std::string::npos && cl < end)
          body = std::stoul(buffered.substr(cl + 16));
        need = end + 4 + body;
      }
      if (need != std::string::npos && buffered.size() >= need) {
        std::string req = buffered.substr(0, need);
        buffered.erase(0, need);
        return req;
      }
      pollfd q{fd, POLLIN, 0};
      if (poll(&q, 1, 2000) <= 0) return {};
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) return {};
      buffered.append(buf, static_cast<size_t>(n));
    }
    return {};
  }

  static bool write_all(int fd, const std::string& bytes) {
    for (size_t off = 0; off < bytes.size();) {
      const ssize_t n = send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }

  void serve(int fd, int connection) {
    std::string buffered;
    for (int nth = 0; !stop_; ++nth) {
      const std::string req = read_request(fd, buffered);
      if (req.empty()) break;
      {
        std::lock_guard lock(mu_);
        seen_.push_back({connection, nth, req});
      }
      const Reply r = script_(connection, nth, req);
      write_all(fd, r.bytes);
      for (const std::string& part : r.then) {
        std::this_thread::sleep_for(std::chrono::milliseconds(r.gap_ms));
        if (!write_all(fd, part)) break;
      }
      if (r.after) r.after();
      if (!r.late.empty()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(r.late_ms));
        (void)!send(fd, r.late.data(), r.late.size(), MSG_NOSIGNAL);
      }
      if (!read_bodies_) {  // the body was left unread: end gently (a close now would be a reset)
        shutdown(fd, SHUT_WR);
        char sink[65536];
        for (pollfd q{fd, POLLIN, 0}; poll(&q, 1, 2000) > 0 && read(fd, sink, sizeof sink) > 0;) {
        }
        break;
      }
      if (r.close) break;
    }
    close(fd);
  }

  Script script_;
  bool read_bodies_;
  mutable std::mutex mu_;
  std::vector<Seen> seen_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  std::vector<std::thread> connections_;
};

}  // namespace tokbench::testing
