// bench/wakeup_floor: how late this machine wakes a thread for an absolute deadline, the floor
// under any client's send lag (wrk2's and LoadGen's concern): common/wakeup_floor, the same
// measure a run with an arrival schedule takes before its measured phase (end.json:
// wakeup_floor_p99_ms), over more deadlines. Prints p50/p90/p99/max in µs.
// Usage: wakeup_floor [count=5000] [period_us=1000] [spin_us=100]
#include "common/wakeup_floor.hpp"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 5000;
  const long long period_us = argc > 2 ? std::atoll(argv[2]) : 1000;
  const long long spin_us = argc > 3 ? std::atoll(argv[3]) : 100;
  if (count < 100 || period_us <= 0 || spin_us < 0) {
    std::fprintf(stderr, "usage: wakeup_floor [count>=100] [period_us>0] [spin_us>=0]\n");
    return 2;
  }
  const auto f = tokbench::measure_wakeup_floor(count, period_us * 1000, spin_us * 1000);
  std::printf(
      "wakeup_floor: %d deadlines every %lld us, last %lld us polled: late p50 %.1f p90 %.1f p99 "
      "%.1f max %.1f us\n",
      count, period_us, spin_us, f.p50_ms * 1000, f.p90_ms * 1000, f.p99_ms * 1000,
      f.max_ms * 1000);
}
