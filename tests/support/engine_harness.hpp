#pragma once
// Test helper for the engine's tests (engine_test, engine_api_test, engine_faults_test): the
// simulator in this process (Harness), request bodies, the engine run over a list of bodies with
// an optional schedule, and EngineOn, the fixture every behaviour test runs once per transport
// through (each test file instantiates it: TOKBENCH_ENGINE_ON_BOTH_TRANSPORTS()).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/engine.hpp"
#include "client/request_body.hpp"
#include "common/clock.hpp"
#include "load/source.hpp"
#include "mock/mock_server.hpp"

namespace tokbench::client {

using record::Outcome;
using record::RequestRecord;

struct Harness {
  explicit Harness(mock::MockSettings s = {}) : server(on_free_port(std::move(s))) {
    port = server.start();
  }
  static mock::MockSettings on_free_port(mock::MockSettings s) {
    s.port = 0;
    return s;
  }
  std::string url(bool chat = true) const {
    return "http://127.0.0.1:" + std::to_string(port) +
           (chat ? "/v1/chat/completions" : "/v1/completions");
  }
  mock::MockServer server;
  uint16_t port = 0;
};

inline mock::MockSettings fast() {
  mock::MockSettings s;
  s.ttft_ms = 5;
  s.tpot_ms = 1;
  return s;
}

inline std::vector<std::string> bodies(int n, bool chat, bool stream, int max_tokens = 8) {
  BodySettings b;
  b.model = "tokbench-mock";
  b.api = find_api(chat ? "chat" : "completions");
  b.stream = stream;
  b.max_tokens = max_tokens;
  b.ignore_eos = true;
  return std::vector<std::string>(static_cast<size_t>(n), build_body(b, {"hello there", -1}));
}

// Every behaviour test runs once per transport: the plain-socket reader and libcurl.
class EngineOn : public ::testing::TestWithParam<TransportKind> {
 protected:
  static EngineSettings settings() {
    EngineSettings es;
    es.transport = GetParam();
    return es;
  }
};

/// Every record of `source` run by an engine with `es`, in index order.
inline std::vector<RequestRecord> run_source(EngineSettings es, load::RequestSource& source,
                                             std::atomic<int>* stop_in = nullptr) {
  std::atomic<int> local{kRunning};
  std::atomic<int>& stop = stop_in ? *stop_in : local;
  std::mutex mu;
  std::vector<RequestRecord> out;
  Engine engine(std::move(es));
  engine.run(
      source, steady_now_ns(),
      [&](RequestRecord&& r) {
        std::lock_guard l(mu);
        out.push_back(std::move(r));
      },
      stop);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  return out;
}

inline std::vector<RequestRecord> run(EngineSettings es, const std::vector<std::string>& bs,
                                      const std::vector<int64_t>& schedule = {},
                                      std::atomic<int>* stop_in = nullptr) {
  // The given schedule as arrivals (empty: closed loop); bodies cycle as a dataset does.
  struct Offsets final : load::Arrivals {
    explicit Offsets(const std::vector<int64_t>& s) : s(s) {}
    int64_t next_offset_ns() override { return s.empty() ? core::kNotSet : s[i++]; }
    const std::vector<int64_t>& s;
    size_t i = 0;
  };
  load::CountedSource source(static_cast<int64_t>(bs.size()), false,
                             std::make_unique<Offsets>(schedule), [&](int64_t i) {
                               core::PlannedRequest p;
                               p.body = bs[static_cast<size_t>(i)];
                               return p;
                             });
  return run_source(std::move(es), source, stop_in);
}

/// The parameter names of EngineOn's instances: "sockets", "libcurl".
inline std::string transport_param_name(const ::testing::TestParamInfo<TransportKind>& info) {
  return std::string(transport_name(info.param));
}

}  // namespace tokbench::client

/// EngineOn's two instances, sockets and libcurl, in a test file of its own.
#define TOKBENCH_ENGINE_ON_BOTH_TRANSPORTS()                                               \
  INSTANTIATE_TEST_SUITE_P(Transports, EngineOn,                                           \
                           ::testing::Values(TransportKind::Sockets, TransportKind::Curl), \
                           transport_param_name)
