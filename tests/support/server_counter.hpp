#pragma once
// Test helper: one counter of a server's Prometheus /metrics, read until it reaches what the test
// expects (a server learns of a client that left at its next write) or 5 s pass.
#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include "net/http_get.hpp"

namespace tokbench::testing {

/// The first number `pattern` captures in `metrics_url`'s body once it equals `want`, or the
/// last one read after 5 s (-1: never found).
inline int64_t counter_at(const std::string& metrics_url, const std::string& pattern,
                          int64_t want) {
  int64_t n = -1;
  for (int i = 0; i < 100 && n != want; ++i) {
    if (i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto got = net::http_get(metrics_url, {}, "", 2000);
    std::smatch m;
    if (std::regex_search(got.body, m, std::regex(pattern))) n = std::stoll(m[1]);
  }
  return n;
}

/// vLLM's aborted requests: request_success_total{finished_reason="abort"}.
inline int64_t aborted_at(const std::string& metrics_url, int64_t want) {
  return counter_at(metrics_url, R"(finished_reason="abort"\} (\d+))", want);
}

}  // namespace tokbench::testing
