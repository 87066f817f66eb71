#include "load/schedule.hpp"

#include <random>

namespace tokbench::load {

std::vector<int64_t> poisson_schedule(int64_t count, double rate_rps, uint64_t seed) {
  std::vector<int64_t> out;
  if (rate_rps <= 0 || count <= 0) return out;
  out.reserve(static_cast<size_t>(count));
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap_s(rate_rps);
  double t = 0;
  for (int64_t i = 0; i < count; ++i) {
    out.push_back(static_cast<int64_t>(t * 1e9));
    t += gap_s(rng);  // the first request starts at once, as vLLM bench and AISBench do
  }
  return out;
}

}  // namespace tokbench::load
