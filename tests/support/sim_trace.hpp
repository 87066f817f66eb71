#pragma once
// Test helper: the simulator's --trace read back as the truth of each request (when it received
// it, when it wrote each content chunk: CLOCK_MONOTONIC, shared with the client's records).
#include <simdjson.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace tokbench::testing {

struct SimTruth {
  double ttft_ms = 0;  ///< first content write - the kernel's receive time of the request
  double tpot_ms = 0;  ///< (last - first content write) / (content writes - 1); 0 with one write
  size_t content_writes = 0;
  /// --reasoning-tokens: the first reasoning write - the receive time (< 0: none), and the
  /// reasoning writes' pace ((last - first) / (writes - 1); 0 with one).
  double first_reasoning_ms = -1, reasoning_tpot_ms = 0;
  size_t reasoning_writes = 0;
};

/// Per completion id, what the simulator did (requests with no content write are left out).
inline std::map<std::string, SimTruth> read_sim_trace(const std::filesystem::path& trace) {
  std::map<std::string, SimTruth> out;
  simdjson::dom::parser p;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    auto doc = p.parse(line);
    const std::string_view kinds = doc["kinds"].get_string().value();
    simdjson::dom::array times =
        doc["t_ns"].get_array();  // a named array: value() of a temporary dangles
    std::vector<int64_t> content, reasoning;
    size_t i = 0;
    for (auto t : times) {
      const char kind = kinds[i++];
      if (kind == 'C') content.push_back(t.get_int64().value());
      if (kind == 'T') reasoning.push_back(t.get_int64().value());
    }
    if (content.empty()) continue;
    const int64_t received = doc["received_ns"].get_int64().value();
    SimTruth t;
    if (!reasoning.empty()) {
      t.first_reasoning_ms = static_cast<double>(reasoning.front() - received) / 1e6;
      t.reasoning_writes = reasoning.size();
      if (reasoning.size() > 1)
        t.reasoning_tpot_ms = static_cast<double>(reasoning.back() - reasoning.front()) / 1e6 /
                              static_cast<double>(reasoning.size() - 1);
    }
    t.ttft_ms = static_cast<double>(content.front() - received) / 1e6;
    if (content.size() > 1)
      t.tpot_ms = static_cast<double>(content.back() - content.front()) / 1e6 /
                  static_cast<double>(content.size() - 1);
    t.content_writes = content.size();
    out[std::string(doc["id"].get_string().value())] = t;
  }
  return out;
}

/// Per answer id, the simulator's latency of each whole-body answer (a one-shot API's, or a
/// non-streamed generation's): its body write - the kernel's receive time of the request, in ms.
inline std::map<std::string, double> read_sim_body_ms(const std::filesystem::path& trace) {
  std::map<std::string, double> out;
  simdjson::dom::parser p;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    auto doc = p.parse(line);
    const std::string_view kinds = doc["kinds"].get_string().value();
    const int64_t received = doc["received_ns"].get_int64().value();
    if (kinds != "B" || received < 0) continue;
    simdjson::dom::array times = doc["t_ns"].get_array();
    out[std::string(doc["id"].get_string().value())] =
        static_cast<double>(times.at(0).get_int64().value() - received) / 1e6;
  }
  return out;
}

/// What the simulator did per token: the mean over the trace's requests of (last - first content
/// write) / (tokens - 1), each request `tokens` tokens long (ignore_eos): the TPOT a client must
/// read. On a busy machine the simulator writes its first token late and catches up, so this
/// reads under its nominal --tpot-ms (9.7 for 10 beside `stress-ng --cpu 4`); a test holds the
/// client to what was sent, not to the nominal. Waits (up to 5 s) for at least `requests` lines:
/// the simulator writes a request's line after its last write, which the client may read first.
inline double sim_tpot_ms(const std::filesystem::path& trace, int64_t tokens, size_t requests) {
  std::map<std::string, SimTruth> truth;
  for (int tries = 0; tries < 100; ++tries) {
    truth = read_sim_trace(trace);
    if (truth.size() >= requests) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (truth.empty() || tokens < 2) return 0;
  double sum = 0;
  for (const auto& [id, t] : truth)
    sum += t.tpot_ms * static_cast<double>(t.content_writes - 1) / static_cast<double>(tokens - 1);
  return sum / static_cast<double>(truth.size());
}

}  // namespace tokbench::testing
