#include "load/schedule.hpp"

#include "load/source.hpp"

namespace tokbench::load {

std::vector<int64_t> poisson_schedule(int64_t count, double rate_rps, uint64_t seed) {
  std::vector<int64_t> out;
  if (rate_rps <= 0 || count <= 0) return out;
  out.reserve(static_cast<size_t>(count));
  auto arrivals = poisson(rate_rps, seed);
  for (int64_t i = 0; i < count; ++i) out.push_back(arrivals->next_offset_ns());
  return out;
}

}  // namespace tokbench::load
