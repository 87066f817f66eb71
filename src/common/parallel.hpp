#pragma once
// common/parallel: run independent jobs on the machine's cores — the statistics columns a report
// sorts, the run folders `compare` reads. Each job is an index; a job that throws does not stop
// the others, and the first exception is rethrown on the caller's thread once all have ended.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tokbench {

/// The threads a pass over `jobs` independent jobs uses: one per core, at most `cap` and `jobs`.
inline size_t parallel_threads(size_t jobs, size_t cap = 8) {
  return std::max<size_t>(
      1, std::min({static_cast<size_t>(std::thread::hardware_concurrency()), cap, jobs}));
}

/// Calls job(i) for every i in [0, jobs), on parallel_threads(jobs, cap) threads (the caller's
/// among them), each taking the next index as it finishes one.
template <typename Job>
void parallel_for(size_t jobs, Job&& job, size_t cap = 8) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs;) {
      try {
        job(i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < parallel_threads(jobs, cap); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tokbench
