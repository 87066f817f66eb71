#include "cluster/watch.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "cluster/cluster.hpp"
#include "common/abbreviate.hpp"
#include "common/clock.hpp"

namespace tokbench::cluster {

namespace {

// One frame: a type byte, the payload's length (4 bytes, this machine's order: the ranks of a
// run are one architecture), the payload.
enum Frame : uint8_t {
  kHello = 1,  ///< another rank → rank 0: its rank (4 bytes)
  kBeat,       ///< either way: alive
  kStop,       ///< rank 0 → the others: a rank was lost (its rank, 4 bytes; then how)
  kSend,       ///< rank 0 → a survivor: send the point's files
  kFile,       ///< a survivor → rank 0: which file (1 byte), then bytes of it
  kDone,       ///< a survivor → rank 0: its files are all sent
  kBye,        ///< either way: a clean end, closing is not a loss
};
constexpr size_t kHeader = 5;
constexpr uint32_t kMaxPayload = uint32_t{1} << 20;  // nothing from the network sizes memory
constexpr size_t kPiece = size_t{256} << 10;         // a file's bytes per frame
constexpr size_t kMaxCarry = size_t{64} << 20;       // a details line longer than this is dropped
constexpr int64_t kBeatNs = 250'000'000;
constexpr int64_t kWatchdogRootNs = 30'000'000'000, kWatchdogOtherNs = 10'000'000'000;
constexpr auto kSmallSend = std::chrono::seconds(1);

struct Peer {
  int rank = -1;
  int fd = -1;
  std::string in;  // bytes received that are not yet a whole frame
  int64_t heard_ns = 0;
  bool bye = false;   // closed cleanly (or its files are all here): closing is not a loss
  bool lost = false;  // closed or silent without a goodbye
  bool done = false;  // its files are all here
  std::string carry[2];
  int64_t lines = 0;
};

struct Watch {
  std::mutex mu;  // everything below, and every write to a socket
  std::condition_variable cv;
  bool started = false, ending = false, handled = false, asked_to_send = false;
  bool calling = false;     // the handler runs (outside the lock): on_rank_loss waits for it
  std::vector<Peer> peers;  // rank 0: the other ranks; elsewhere: rank 0 alone
  std::optional<RankLoss> loss;
  std::function<void(const RankLoss&)> handler;
  std::vector<std::ofstream> sinks;  // rank 0, while collecting a point's files
  int wake[2] = {-1, -1};
  std::thread thread;
};
Watch g;

bool send_all(int fd, const char* data, size_t n, std::chrono::steady_clock::time_point until) {
  while (n > 0) {
    const ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      data += k;
      n -= static_cast<size_t>(k);
      continue;
    }
    if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
  }
  return true;
}

bool send_frame(int fd, Frame type, std::string_view payload, std::chrono::milliseconds limit) {
  if (fd < 0) return false;
  char header[kHeader];
  header[0] = static_cast<char>(type);
  const auto len = static_cast<uint32_t>(payload.size());
  std::memcpy(header + 1, &len, sizeof len);
  const auto until = std::chrono::steady_clock::now() + limit;
  return send_all(fd, header, sizeof header, until) &&
         send_all(fd, payload.data(), payload.size(), until);
}

std::string int_bytes(int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
int32_t bytes_int(std::string_view s) {
  int32_t v = 0;
  if (s.size() >= 4) std::memcpy(&v, s.data(), 4);
  return v;
}

Peer* peer_of_rank(int rank) {
  for (auto& p : g.peers)
    if (p.rank == rank) return &p;
  return nullptr;
}

// Under g.mu. The first loss is the run's; rank 0 tells the others. Returns the handler to call
// (outside the lock) when this is the first.
std::function<void(const RankLoss&)> learn_loss(int rank, std::string how) {
  if (Peer* p = peer_of_rank(rank)) p->lost = true;
  g.cv.notify_all();
  if (g.loss || g.ending) return nullptr;
  g.loss = RankLoss{rank, steady_now_ns(), std::move(how)};
  if (world().rank == 0)
    for (auto& p : g.peers)
      if (p.rank != rank && p.fd >= 0 && !p.lost)
        send_frame(p.fd, kStop, int_bytes(rank) + g.loss->how, kSmallSend);
  return g.handler;
}

// Under g.mu: a survivor's file bytes, appended a whole line at a time (a survivor cut off
// mid-line leaves no torn record behind).
void take_file_bytes(Peer& p, std::string_view payload) {
  if (payload.empty() || g.sinks.empty()) return;
  const auto which = static_cast<size_t>(static_cast<unsigned char>(payload[0]));
  if (which >= g.sinks.size() || which >= 2) return;
  std::string& carry = p.carry[which];
  carry.append(payload.substr(1));
  const size_t last = carry.rfind('\n');
  if (last != std::string::npos) {
    g.sinks[which].write(carry.data(), static_cast<std::streamsize>(last + 1));
    if (which == 0) p.lines += std::count(carry.begin(), carry.begin() + last + 1, '\n');
    carry.erase(0, last + 1);
  }
  if (carry.size() > kMaxCarry) carry.clear();
}

// Under g.mu: one whole frame from `p`.
std::function<void(const RankLoss&)> take_frame(Peer& p, Frame type, std::string_view payload) {
  p.heard_ns = steady_now_ns();
  switch (type) {
    case kStop:  // rank 0's word only
      if (world().rank == 0) break;
      return learn_loss(bytes_int(payload),
                        std::string(payload.substr(std::min<size_t>(4, payload.size()))));
    case kSend:
      g.asked_to_send = true;
      g.cv.notify_all();
      break;
    case kFile:
      take_file_bytes(p, payload);
      break;
    case kDone:
      p.done = p.bye = true;
      for (auto& s : g.sinks) s.flush();
      g.cv.notify_all();
      break;
    case kBye:
      p.bye = true;
      break;
    default:
      break;
  }
  return nullptr;
}

std::string whose_connection() {
  return world().rank == 0 ? "its connection to rank 0" : "rank 0's connection";
}

// Under g.mu: reads what `p` sent; a closed connection without a goodbye is a loss. Returns the
// handler of the first loss learned (every frame read is taken, whatever it says).
std::function<void(const RankLoss&)> read_peer(Peer& p) {
  char buf[64 << 10];
  std::function<void(const RankLoss&)> call;
  while (true) {
    const ssize_t k = ::recv(p.fd, buf, sizeof buf, MSG_DONTWAIT);
    if (k > 0) {
      p.in.append(buf, static_cast<size_t>(k));
      while (p.in.size() >= kHeader) {
        uint32_t len = 0;
        std::memcpy(&len, p.in.data() + 1, sizeof len);
        if (len > kMaxPayload) {
          ::close(p.fd);
          p.fd = -1;
          if (call) return call;
          return learn_loss(p.rank, "it sent what is not tokbench's lifeline (a frame over 1 MiB)");
        }
        if (p.in.size() < kHeader + len) break;
        auto h =
            take_frame(p, static_cast<Frame>(p.in[0]), std::string_view(p.in).substr(kHeader, len));
        p.in.erase(0, kHeader + len);
        if (h && !call) call = h;
      }
      continue;
    }
    const int err = errno;
    if (k < 0 && (err == EAGAIN || err == EWOULDBLOCK || err == EINTR)) return call;
    ::close(p.fd);  // closed, or an error: the other end is gone
    p.fd = -1;
    if (p.bye) return call;
    const std::string what = k == 0 ? "closed" : fmt::format("failed: {}", std::strerror(err));
    if (call) return call;
    return learn_loss(p.rank, fmt::format("{} {}: its process ended, or its host went away",
                                          whose_connection(), what));
  }
}

[[noreturn]] void watchdog_ends_this_rank() {
  fmt::print(stderr, "{}\n",
             fit_line(fmt::format(
                 "tokbench (rank {} of {}): rank {} was lost ({}) and this rank is still waiting "
                 "in an MPI call after {} s: it ends now{}",
                 world().rank, world().size, g.loss->rank, g.loss->how,
                 (world().rank == 0 ? kWatchdogRootNs : kWatchdogOtherNs) / 1'000'000'000,
                 world().rank == 0 ? " (the run folder says which rank was lost and when)" : "")));
  std::fflush(stderr);
  std::_Exit(4);  // kExitInvalid: the run did not measure what it was asked to
}

void watch_loop() {
  int64_t last_beat = 0;
  while (true) {
    std::vector<pollfd> fds{{g.wake[0], POLLIN, 0}};
    {
      std::lock_guard lk(g.mu);
      if (g.ending) return;
      for (const auto& p : g.peers) fds.push_back({p.fd, POLLIN, 0});  // -1 is passed over
    }
    ::poll(fds.data(), fds.size(), 100);
    std::function<void(const RankLoss&)> call;
    RankLoss loss;
    {
      std::lock_guard lk(g.mu);
      if (g.ending) return;
      const int64_t now = steady_now_ns();
      for (auto& p : g.peers) {
        if (p.fd < 0) continue;
        if (auto h = read_peer(p); h && !call) call = h;
        if (p.fd >= 0 && !p.bye && now - p.heard_ns > kSilentLimitNs) {
          if (auto h = learn_loss(
                  p.rank, fmt::format("no word from it in {} s (heartbeats every {} ms): its host, "
                                      "or the network to it, was lost",
                                      kSilentLimitNs / 1'000'000'000, kBeatNs / 1'000'000));
              h && !call)
            call = h;
        }
      }
      if (now - last_beat >= kBeatNs) {
        last_beat = now;
        for (auto& p : g.peers) {  // a full buffer: the other end is reading late, not gone
          pollfd w{p.fd, POLLOUT, 0};
          if (p.fd >= 0 && ::poll(&w, 1, 0) == 1 && (w.revents & POLLOUT))
            send_frame(p.fd, kBeat, {}, kSmallSend);
        }
      }
      if (g.loss && !g.handled &&
          now - g.loss->seen_ns > (world().rank == 0 ? kWatchdogRootNs : kWatchdogOtherNs))
        watchdog_ends_this_rank();
      if (call) {
        loss = *g.loss;
        g.calling = true;
      }
    }
    if (call) {
      call(loss);
      std::lock_guard lk(g.mu);
      g.calling = false;
      g.cv.notify_all();
    }
  }
}

// Rank 0's IPv4 addresses other ranks may reach it at (loopback left out).
std::string own_addresses() {
  std::string out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_LOOPBACK) ||
        !(a->ifa_flags & IFF_UP))
      continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    out += (out.empty() ? "" : ",") + std::string(text);
  }
  freeifaddrs(list);
  return out;
}

int connect_within(const std::string& address, uint16_t port, std::chrono::milliseconds limit) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) return -1;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int err = 0;
  socklen_t len = sizeof err;
  if (::poll(&p, 1, static_cast<int>(limit.count())) != 1 ||
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t end = std::min(s.find(by, at), s.size());
    if (end > at) out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// Rank 0: listens, and says where ("PORT\nHOST\nADDR,ADDR"; "" when it cannot).
std::string listen_plan(int* listener, bool one_host) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(one_host ? INADDR_LOOPBACK : INADDR_ANY);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(fd, std::max(16, world().size)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return "";
  }
  *listener = fd;
  return fmt::format("{}\n{}\n{}", ntohs(a.sin_port), host_name(), one_host ? "" : own_addresses());
}

// Rank 0: every other rank's hello, within 10 s. Returns the ranks that never came.
std::vector<int> accept_ranks(int listener) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<bool> seen(static_cast<size_t>(world().size), false);
  int count = 0;
  while (count < world().size - 1 && std::chrono::steady_clock::now() < until) {
    pollfd p{listener, POLLIN, 0};
    if (::poll(&p, 1, 100) != 1) continue;
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    char hello[kHeader + 4];
    pollfd r{fd, POLLIN, 0};
    size_t got = 0;
    while (got < sizeof hello && ::poll(&r, 1, 2000) == 1) {
      const ssize_t k = ::recv(fd, hello + got, sizeof hello - got, 0);
      if (k <= 0) break;
      got += static_cast<size_t>(k);
    }
    const int rank = got == sizeof hello && hello[0] == kHello
                         ? bytes_int(std::string_view(hello + kHeader, 4))
                         : -1;
    if (rank <= 0 || rank >= world().size || seen[static_cast<size_t>(rank)]) {
      ::close(fd);  // not one of this run's ranks
      continue;
    }
    seen[static_cast<size_t>(rank)] = true;
    ++count;
    Peer peer;
    peer.rank = rank;
    peer.fd = fd;
    peer.heard_ns = steady_now_ns();
    g.peers.push_back(std::move(peer));
  }
  std::vector<int> missing;
  for (int r = 1; r < world().size; ++r)
    if (!seen[static_cast<size_t>(r)]) missing.push_back(r);
  return missing;
}

// Another rank: connects to rank 0 (loopback when on its host) and says which rank it is.
void join_rank0(const std::string& plan) {
  const auto parts = split(plan, '\n');
  if (parts.size() < 2) return;
  const auto port = static_cast<uint16_t>(std::stoi(parts[0]));
  std::vector<std::string> tries;
  if (parts[1] == host_name()) tries.push_back("127.0.0.1");
  if (parts.size() > 2)
    for (const auto& a : split(parts[2], ',')) tries.push_back(a);
  for (const auto& address : tries) {
    const int fd = connect_within(address, port, std::chrono::seconds(2));
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!send_frame(fd, kHello, int_bytes(world().rank), std::chrono::seconds(2))) {
      ::close(fd);
      continue;
    }
    Peer p;
    p.rank = 0;
    p.fd = fd;
    p.heard_ns = steady_now_ns();
    g.peers.push_back(std::move(p));
    return;
  }
}

}  // namespace

std::string watch_ranks() {
  if (world().size <= 1 || g.started) return "";
  g.started = true;  // on every rank alike: the collectives below are made once
  const auto hosts = gather(host_name());
  const bool root = world().rank == 0;
  int listener = -1;
  std::string plan;
  if (root)
    plan = listen_plan(&listener, std::all_of(hosts.begin(), hosts.end(),
                                              [&](const auto& h) { return h == hosts[0]; }));
  plan = broadcast(plan);
  if (plan.empty())
    return root ? fmt::format(
                      "rank 0 could not listen for the ranks' lifeline ({}): a lost rank "
                      "would not be seen until the launcher ends the run",
                      std::strerror(errno))
                : "";
  std::string problem;
  if (root) {
    const auto missing = accept_ranks(listener);
    ::close(listener);
    if (!missing.empty())
      problem = fmt::format(
          "rank(s) {} did not reach rank 0's lifeline (port {}, in 10 s): a loss there is not "
          "seen until the launcher ends the run",
          fmt::join(missing, ", "), split(plan, '\n')[0]);
  } else {
    join_rank0(plan);
  }
  if (g.peers.empty()) return problem;
  if (::pipe2(g.wake, O_CLOEXEC) != 0) return problem;
  for (auto& p : g.peers) p.heard_ns = steady_now_ns();  // the accepts took up to 10 s
  g.thread = std::thread(watch_loop);
  return problem;
}

std::optional<RankLoss> rank_lost() {
  if (!g.started) return std::nullopt;
  std::lock_guard lk(g.mu);
  return g.loss;
}

void on_rank_loss(std::function<void(const RankLoss&)> handler) {
  std::unique_lock lk(g.mu);
  g.cv.wait(lk, [] { return !g.calling; });  // a handler taken has run to its end
  g.handler = std::move(handler);
}

std::map<int, int64_t> collect_files(const std::vector<std::filesystem::path>& paths,
                                     std::chrono::milliseconds limit) {
  std::map<int, int64_t> out;
  std::unique_lock lk(g.mu);
  if (!g.started || world().rank != 0) return out;
  for (const auto& p : paths) g.sinks.emplace_back(p, std::ios::binary | std::ios::app);
  for (auto& p : g.peers)
    if (p.fd >= 0 && !p.lost && !send_frame(p.fd, kSend, {}, kSmallSend)) p.lost = true;
  const auto settled = [] {
    return std::all_of(g.peers.begin(), g.peers.end(),
                       [](const Peer& p) { return p.done || p.lost || p.fd < 0; });
  };
  g.cv.wait_for(lk, limit, settled);
  for (auto& p : g.peers)  // what reached the details file, a survivor cut off mid-way included
    if (p.rank != (g.loss ? g.loss->rank : -1) && (p.done || p.lines > 0)) out[p.rank] = p.lines;
  for (auto& s : g.sinks) s.flush();
  g.sinks.clear();
  return out;
}

bool ship_files(const std::vector<std::filesystem::path>& paths, std::chrono::milliseconds limit) {
  std::unique_lock lk(g.mu);
  if (!g.started || world().rank == 0 || g.peers.empty()) return false;
  Peer& root = g.peers[0];
  g.cv.wait_for(lk, limit, [&] { return g.asked_to_send || root.fd < 0; });
  if (!g.asked_to_send || root.fd < 0) return false;
  const auto until = std::chrono::steady_clock::now() + limit;
  std::string piece(kPiece + 1, '\0');
  for (size_t i = 0; i < paths.size() && i < 2; ++i) {
    std::ifstream in(paths[i], std::ios::binary);
    while (in) {
      piece[0] = static_cast<char>(i);
      in.read(piece.data() + 1, static_cast<std::streamsize>(kPiece));
      const auto n = static_cast<size_t>(in.gcount());
      if (n == 0) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0 ||
          !send_frame(root.fd, kFile, std::string_view(piece.data(), n + 1), left))
        return false;
    }
  }
  return send_frame(root.fd, kDone, {}, kSmallSend);
}

void loss_handled() {
  std::lock_guard lk(g.mu);
  g.handled = true;
}

void end_watch() {
  {
    std::lock_guard lk(g.mu);
    if (!g.started || g.ending) return;
    g.ending = true;
    for (auto& p : g.peers)
      if (p.fd >= 0) send_frame(p.fd, kBye, {}, kSmallSend);
  }
  if (g.thread.joinable()) {
    const char one = 1;
    (void)!::write(g.wake[1], &one, 1);
    g.thread.join();
  }
  for (auto& p : g.peers)
    if (p.fd >= 0) ::close(p.fd);
}

}  // namespace tokbench::cluster
