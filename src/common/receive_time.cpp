#include "common/receive_time.hpp"

#include <arpa/inet.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tokbench {

namespace {

constexpr int kStampFlags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;

int64_t ns(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

// True once a loopback datagram sent to ourselves comes back with a receive time.
bool kernel_stamps_now() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bool stamped = false;
  if (stamp_receive_times(fd) && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 &&
      ::sendto(fd, "x", 1, 0, reinterpret_cast<sockaddr*>(&addr), len) == 1) {
    pollfd p{fd, POLLIN, 0};
    stamped = ::poll(&p, 1, 100) == 1 && peek_receive_time(fd) >= 0;
  }
  ::close(fd);
  return stamped;
}

}  // namespace

bool stamp_receive_times(int fd) {
  return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &kStampFlags, sizeof kStampFlags) == 0;
}

int64_t peek_receive_time(int fd, int* error) {
  if (error) *error = 0;
  char byte;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[256];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (const ssize_t n = ::recvmsg(fd, &msg, MSG_PEEK | MSG_DONTWAIT); n <= 0) {
    if (n < 0 && error && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) *error = errno;
    return -1;
  }
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPING) continue;
    timespec ts[3];
    std::memcpy(ts, CMSG_DATA(c), sizeof ts);
    if (ts[0].tv_sec == 0 && ts[0].tv_nsec == 0) return -1;
    timespec real, mono;  // the receive time is CLOCK_REALTIME: move it onto steady_clock
    ::clock_gettime(CLOCK_REALTIME, &real);
    ::clock_gettime(CLOCK_MONOTONIC, &mono);
    return ns(ts[0]) - ns(real) + ns(mono);
  }
  return -1;
}

bool wait_for_receive_stamps(int limit_ms) {
  for (int i = 0; i < limit_ms; ++i) {
    if (kernel_stamps_now()) return true;
    ::usleep(1000);
  }
  return false;
}

}  // namespace tokbench
