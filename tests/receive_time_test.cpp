// common/receive_time: the kernel's receive time of a TCP socket's next unread byte, on the
// steady clock — the time bytes waited before a reader came, however late it came; and the reset
// a peek takes, handed over.
#include "common/receive_time.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "common/clock.hpp"
#include "support/ports.hpp"

namespace tokbench {
namespace {

// A connected loopback pair: {the sender, the receiver that stamps}.
std::pair<int, int> loopback_pair() {
  uint16_t port = 0;
  const int listener = testing::bound_loopback_socket(port);
  EXPECT_EQ(::listen(listener, 1), 0);
  const int sender = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  EXPECT_EQ(::connect(sender, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const int receiver = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  return {sender, receiver};
}

// Bytes sent, then read 40 ms later: their receive time is when they came, not when they were
// looked at; peeking consumes nothing; an empty socket has no time.
TEST(ReceiveTime, IsWhenTheBytesCameNotWhenTheyWereRead) {
  ASSERT_TRUE(wait_for_receive_stamps());
  auto [sender, receiver] = loopback_pair();
  ASSERT_TRUE(stamp_receive_times(receiver));
  EXPECT_EQ(peek_receive_time(receiver), -1);  // nothing waiting
  const int64_t before = steady_now_ns();
  ASSERT_EQ(::send(sender, "hello", 5, 0), 5);
  const int64_t after = steady_now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  const int64_t came = peek_receive_time(receiver);
  const int64_t looked = steady_now_ns();
  // The clocks are moved from CLOCK_REALTIME onto the steady one: allow a millisecond for it.
  EXPECT_GE(came, before - 1'000'000);
  EXPECT_LE(came, after + 1'000'000);
  EXPECT_GE(looked - came, 38'000'000);  // it waited the sleep, and the peek saw that
  char buf[8];
  EXPECT_EQ(::recv(receiver, buf, sizeof buf, 0), 5);  // the peek consumed nothing
  EXPECT_EQ(peek_receive_time(receiver), -1);
  ::close(sender);
  ::close(receiver);
}

// The peer's reset is what a peek at an empty socket returns, and that read clears it: the peek
// hands it over (a later recv() would see only an end of stream), and an empty socket's peek
// says no error.
TEST(ReceiveTime, APeekHandsOverTheResetItTook) {
  auto [sender, receiver] = loopback_pair();
  int error = -1;
  EXPECT_EQ(peek_receive_time(receiver, &error), -1);
  EXPECT_EQ(error, 0);             // nothing waiting is no error
  const linger abort_close{1, 0};  // close() sends a reset
  ASSERT_EQ(::setsockopt(sender, SOL_SOCKET, SO_LINGER, &abort_close, sizeof abort_close), 0);
  ::close(sender);
  for (int i = 0; i < 200 && error == 0; ++i) {  // the reset crosses loopback at once; bounded
    (void)peek_receive_time(receiver, &error);
    if (error == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(error, ECONNRESET);
  char buf[8];
  EXPECT_EQ(::recv(receiver, buf, sizeof buf, 0), 0) << "the reset was taken by the peek";
  ::close(receiver);
}

}  // namespace
}  // namespace tokbench
