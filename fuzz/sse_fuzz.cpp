// Fuzz target: client/sse — any bytes, split at any point, with a small size cap; every event
// handed out must fit the cap, and the framer must never read out of bounds.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "client/sse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t split = size > 1 ? data[0] % size : 0;  // the first byte picks where the read splits
  tokbench::client::SseFramer framer(256);
  auto on_event = [](std::string_view event) {
    if (event.size() > 256) std::abort();  // the cap is the contract
  };
  framer.feed(all.substr(0, std::min(split, all.size())), on_event);
  framer.feed(all.substr(std::min(split, all.size())), on_event);
  (void)framer.has_partial();
  return 0;
}
