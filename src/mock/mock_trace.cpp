#include "mock/mock_trace.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "common/json_writer.hpp"

namespace tokbench::mock {

// The receive time is when the request reached this host, however late this process gets to read
// it: the trace's TTFT truth then holds even when the simulator itself lags behind a burst.
int64_t peek_receive_time(int fd) {
  char byte;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[256];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (::recvmsg(fd, &msg, MSG_PEEK | MSG_DONTWAIT) <= 0) return -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPING) continue;
    timespec ts[3];
    std::memcpy(ts, CMSG_DATA(c), sizeof ts);
    if (ts[0].tv_sec == 0 && ts[0].tv_nsec == 0) return -1;
    timespec real, mono;  // the receive time is CLOCK_REALTIME: move it onto steady_clock
    ::clock_gettime(CLOCK_REALTIME, &real);
    ::clock_gettime(CLOCK_MONOTONIC, &mono);
    auto ns = [](const timespec& t) {
      return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
    };
    return ns(ts[0]) - ns(real) + ns(mono);
  }
  return -1;
}

namespace {

// True once a loopback datagram sent to ourselves comes back with a receive time.
bool kernel_stamps_now() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bool stamped = false;
  if (::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0 &&
      ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 &&
      ::sendto(fd, "x", 1, 0, reinterpret_cast<sockaddr*>(&addr), len) == 1) {
    pollfd p{fd, POLLIN, 0};
    stamped = ::poll(&p, 1, 100) == 1 && peek_receive_time(fd) >= 0;
  }
  ::close(fd);
  return stamped;
}

}  // namespace

void stamp_receive_times(int listen_fd) {  // accepted sockets inherit it: a request sent right
                                           // after connect is stamped too
  const int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
  ::setsockopt(listen_fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags);
  // Linux turns receive stamping on for the whole host from a work queue when the first socket
  // asks (net_enable_timestamp), so packets in the next moments may come without a time: the
  // first request of a run started at once then had no received_ns. The listening socket keeps
  // stamping on; wait (bounded) until the kernel really stamps before taking requests.
  for (int i = 0; i < 200 && !kernel_stamps_now(); ++i) ::usleep(1000);
}

bool TraceFile::open(const std::string& path) {
  // Append mode, so a reader may truncate the file between runs without leaving a hole.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  std::lock_guard lock(mu_);
  file_ = fd >= 0 ? fdopen(fd, "a") : nullptr;
  return file_ != nullptr;
}

void TraceFile::close() {
  std::lock_guard lock(mu_);
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

void TraceFile::write(std::string_view id, std::string_view model, bool stream, bool dropped,
                      const Conn& conn, const TraceLine& tl) {
  JsonWriter w;
  w.begin_object()
      .field("id", id)
      .field("model", model)
      .field("stream", stream)
      .field("dropped", dropped);
  w.field("conn_accepted_ns", conn.accepted_ns).field("conn_request", conn.request);
  if (conn.received_ns >= 0) w.field("received_ns", conn.received_ns);
  w.field("arrival_ns", tl.arrival_ns)
      .field("admitted_ns", tl.admitted_ns)
      .field("first_token_ns", tl.first_token_ns);
  w.key("t_ns").begin_array();
  for (auto x : tl.t_ns) w.value(x);
  w.end_array();
  w.field("kinds", tl.kinds);
  w.key("tokens").begin_array();
  for (auto x : tl.tokens) w.value(static_cast<int64_t>(x));
  w.end_array().end_object();
  std::lock_guard lock(mu_);
  if (!file_) return;
  std::fputs(w.str().c_str(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

}  // namespace tokbench::mock
