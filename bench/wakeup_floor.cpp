// bench/wakeup_floor: how late this machine wakes a thread for an absolute deadline, the floor
// under any client's send lag (wrk2's and LoadGen's concern). A thread sleeps to a deadline every
// period (clock_nanosleep, TIMER_ABSTIME, 1 ns timer slack, as tokbench's engine thread), then
// optionally polls the clock for the last `spin` µs (as the engine does for an open loop's next
// send), and records how late it saw the deadline. Prints p50/p90/p99/max in µs.
// Usage: wakeup_floor [count=5000] [period_us=1000] [spin_us=100]
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 5000;
  const int64_t period = (argc > 2 ? std::atoll(argv[2]) : 1000) * 1000;
  const int64_t spin = (argc > 3 ? std::atoll(argv[3]) : 100) * 1000;
  if (count < 100 || period <= 0 || spin < 0) {
    std::fprintf(stderr, "usage: wakeup_floor [count>=100] [period_us>0] [spin_us>=0]\n");
    return 2;
  }
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::vector<int64_t> late;
  late.reserve(static_cast<size_t>(count));
  int64_t due = now_ns() + period;
  for (int i = 0; i < count; ++i, due += period) {
    const int64_t wake = due - spin;
    const timespec ts{static_cast<time_t>(wake / 1'000'000'000),
                      static_cast<long>(wake % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    int64_t t = now_ns();
    while (t < due) t = now_ns();
    late.push_back(t - due);
  }
  std::sort(late.begin(), late.end());
  auto at = [&](double q) {
    return static_cast<double>(late[static_cast<size_t>(q * (count - 1))]) / 1000;
  };
  std::printf(
      "wakeup_floor: %d deadlines every %lld us, last %lld us polled: late p50 %.1f p90 %.1f p99 "
      "%.1f max %.1f us\n",
      count, static_cast<long long>(period / 1000), static_cast<long long>(spin / 1000), at(0.5),
      at(0.9), at(0.99), at(1.0));
}
