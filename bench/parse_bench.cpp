// bench/parse_bench: the per-event cost of tokbench's own reading, without the network: one
// vLLM-shaped chat chunk through client/chunk_parser (simdjson's DOM parse alone beside it), and
// a stream of them through client/sse's framer. Nanoseconds per event, the best of five rounds
// (this VM's noise is mostly slowdowns). With `instructions`, one round of each under a fixed
// count, for `valgrind --tool=callgrind` (deterministic where timings are not).
// Usage: parse_bench [events=2000000] [instructions]
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "client/chunk_parser.hpp"
#include "client/sse.hpp"

namespace {

const std::string kEvent =
    R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1796148530,"model":"tokbench-mock",)"
    R"("choices":[{"index":0,"delta":{"content":" model"},"logprobs":null,"finish_reason":null,"stop_reason":null}]})";

template <class F>
double best_ns_per_event(long events, int rounds, F&& round) {
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    round();
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() /
                              static_cast<double>(events));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const long events = argc > 1 ? std::atol(argv[1]) : 2'000'000;
  const int rounds = argc > 2 && std::string_view(argv[2]) == "instructions" ? 1 : 5;
  long sink = 0;  // what was read, so nothing is optimized away

  std::string padded = kEvent;
  padded.resize(kEvent.size() + simdjson::SIMDJSON_PADDING);
  simdjson::dom::parser dom;
  const double simdjson_ns = best_ns_per_event(events, rounds, [&] {
    for (long i = 0; i < events; ++i) {
      simdjson::dom::element doc;
      if (!dom.parse(padded.data(), kEvent.size(), false).get(doc)) ++sink;
    }
  });

  tokbench::client::ChunkParser parser;
  tokbench::client::ChunkInfo info;
  std::string why;
  const double parser_ns = best_ns_per_event(events, rounds, [&] {
    for (long i = 0; i < events; ++i) {
      parser.parse(kEvent, info, &why);
      sink += static_cast<long>(info.content.size());
    }
  });

  std::string stream;
  for (int i = 0; i < 20; ++i) stream += "data: " + kEvent + "\n\n";  // 20 events a read
  tokbench::client::SseFramer framer;
  const double framer_ns = best_ns_per_event(events, rounds, [&] {
    for (long i = 0; i < events / 20; ++i)
      framer.feed(stream, [&](std::string_view d) { sink += static_cast<long>(d.size()); });
  });

  std::printf("event: %zu bytes; ns per event, best of %d rounds of %ld\n", kEvent.size(), rounds,
              events);
  std::printf(
      "simdjson DOM parse alone: %.1f\nchunk_parser (parse + fields): %.1f\nsse framer (20 events "
      "a read): %.1f\n",
      simdjson_ns, parser_ns, framer_ns);
  return sink == 0 ? 1 : 0;
}
