#pragma once
// Test helper: the simulator's --trace read back as the truth of each request (when it received
// it, when it wrote each content chunk: CLOCK_MONOTONIC, shared with the client's records).
#include <simdjson.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace tokbench::testing {

struct SimTruth {
  double ttft_ms = 0;  ///< first content write - the kernel's receive time of the request
  double tpot_ms = 0;  ///< (last - first content write) / (content writes - 1); 0 with one write
  size_t content_writes = 0;
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
    std::vector<int64_t> content;
    size_t i = 0;
    for (auto t : times)
      if (kinds[i++] == 'C') content.push_back(t.get_int64().value());
    if (content.empty()) continue;
    const int64_t received = doc["received_ns"].get_int64().value();
    SimTruth t;
    t.ttft_ms = static_cast<double>(content.front() - received) / 1e6;
    if (content.size() > 1)
      t.tpot_ms = static_cast<double>(content.back() - content.front()) / 1e6 /
                  static_cast<double>(content.size() - 1);
    t.content_writes = content.size();
    out[std::string(doc["id"].get_string().value())] = t;
  }
  return out;
}

}  // namespace tokbench::testing
