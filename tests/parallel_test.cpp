// common/parallel: every job runs once, on more than one thread where the machine has cores, and
// a job's exception reaches the caller after the others have run.
#include "common/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tokbench {
namespace {

TEST(Parallel, EveryJobRunsOnceOnUpToOneThreadPerCore) {
  std::vector<std::atomic<int>> runs(1000);
  std::mutex mu;
  std::set<std::thread::id> threads;
  parallel_for(runs.size(), [&](size_t i) {
    runs[i].fetch_add(1);
    std::lock_guard lock(mu);
    threads.insert(std::this_thread::get_id());
  });
  for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), parallel_threads(runs.size()));
  EXPECT_EQ(parallel_threads(1), 1u);  // one job: the caller's thread alone
  EXPECT_EQ(parallel_threads(100, 1), 1u);
  EXPECT_EQ(parallel_threads(100), std::min<size_t>(std::thread::hardware_concurrency(), 8));
  parallel_for(0, [](size_t) { FAIL() << "no job to run"; });
}

TEST(Parallel, AJobsExceptionReachesTheCallerAfterEveryOtherJobRan) {
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(50,
                            [&](size_t i) {
                              ran.fetch_add(1);
                              if (i == 7) throw std::runtime_error("job 7");
                            }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 50);
}

}  // namespace
}  // namespace tokbench
