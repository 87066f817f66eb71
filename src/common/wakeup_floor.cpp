#include "common/wakeup_floor.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <vector>

#include "common/clock.hpp"

namespace tokbench {

WakeupFloor measure_wakeup_floor(int count, int64_t period_ns, int64_t spin_ns) {
  WakeupFloor f;
  if (count <= 0 || period_ns <= 0) return f;
  const int slack = ::prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::vector<int64_t> late;
  late.reserve(static_cast<size_t>(count));
  int64_t due = steady_now_ns() + period_ns;
  for (int i = 0; i < count; ++i, due += period_ns) {
    const int64_t wake = due - std::max<int64_t>(0, spin_ns);
    const timespec ts{static_cast<time_t>(wake / 1'000'000'000),
                      static_cast<long>(wake % 1'000'000'000)};
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
    int64_t t = steady_now_ns();
    while (t < due) t = steady_now_ns();
    late.push_back(t - due);
  }
  if (slack > 0) ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack), 0UL, 0UL, 0UL);
  if (late.empty()) return f;
  std::sort(late.begin(), late.end());
  const auto at = [&](double q) {
    const auto i =
        std::min(late.size() - 1, static_cast<size_t>(q * static_cast<double>(late.size())));
    return static_cast<double>(late[i]) / 1e6;
  };
  f.deadlines = static_cast<int64_t>(late.size());
  f.p50_ms = at(0.5);
  f.p90_ms = at(0.9);
  f.p99_ms = at(0.99);
  f.max_ms = static_cast<double>(late.back()) / 1e6;
  return f;
}

}  // namespace tokbench
