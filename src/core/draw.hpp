#pragma once
// core/draw: a request's seeded draws — splitmix64 of (seed, request index, draw k), the same on
// every platform, so the same request draws the same value on every rank, repeat and resume: the
// --lora name and --image pictures it carries (measure/target), its cancellation (core/cancel).
#include <cstdint>

namespace tokbench::core {

inline uint64_t seeded_draw(uint64_t seed, int64_t index, uint64_t k) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(index + 1) + (k << 40));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace tokbench::core
