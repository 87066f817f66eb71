#pragma once
// load/: decides WHEN each request may start. Knows nothing about HTTP, JSON or tokens; the
// client engine asks it for intended start times and enforces the concurrency cap itself.
#include <cstdint>
#include <vector>

namespace tokbench::load {

/// Intended start offsets (ns from the start of the measured phase) for `count` requests
/// arriving as a Poisson process of `rate_rps` requests per second: exponential gaps drawn from
/// a seeded generator, accumulated on an absolute schedule so lateness never shifts later
/// requests (wrk2's lesson). rate_rps <= 0 means "as fast as concurrency allows": empty result.
std::vector<int64_t> poisson_schedule(int64_t count, double rate_rps, uint64_t seed);

}  // namespace tokbench::load
