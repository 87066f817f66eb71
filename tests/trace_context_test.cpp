// W3C trace context on every request (issue 46, item 1): each request carries a `traceparent`
// (00-<trace id>-<span id>-01) — its own trace, a span per attempt — and a `tracestate` naming
// its request id (tokbench=<id>) over either transport, as a server that is not ours (llama.cpp's,
// closing the connection after every stream) reads them; the details record what was sent, so a
// server's spans (parented to it) find the request.
// --no-trace-context sends none, and a --header traceparent is the user's own, sent as given.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>

#include "client/slot.hpp"
#include "support/engine_like.hpp"
#include "support/run_test.hpp"

namespace tokbench {
namespace {

// The `name` header of each chat request the server read ("" when none), in order.
std::vector<std::string> sent_headers(const testing::EngineLike& server, const std::string& name) {
  std::vector<std::string> out;
  const std::string key = name + ":";
  for (const std::string& req : server.requests()) {
    if (req.find("POST /v1/chat/completions") != 0) continue;
    const std::string head = req.substr(0, req.find("\r\n\r\n") + 2);
    std::string found;
    int lines = 0;
    for (size_t at = head.find("\r\n") + 2; at < head.size();) {
      const size_t end = head.find("\r\n", at);
      const std::string line = head.substr(at, end - at);
      if (line.size() > key.size() &&
          std::equal(key.begin(), key.end(), line.begin(),
                     [](char a, char b) { return a == std::tolower(b); })) {
        found = line.substr(line.find_first_not_of(' ', key.size()));
        ++lines;
      }
      at = end + 2;
    }
    EXPECT_LE(lines, 1) << head;  // never two
    out.push_back(found);
  }
  return out;
}
std::vector<std::string> sent_traceparents(const testing::EngineLike& server) {
  return sent_headers(server, "traceparent");
}

class TraceContextTest : public testing::RunTest {
 protected:
  runner::RunOutcome run_against(const testing::EngineLike& server, core::TransportKind transport,
                                 const std::function<void(runner::RunConfig&)>& edit = {}) {
    return run(testing::RunSettings()
                   .url(server.url())
                   .concurrency(3)
                   .prompts(12)
                   .max_tokens(4)
                   .with([&](runner::RunConfig& r) {
                     r.target.transport = transport;
                     if (edit) edit(r);
                   })
                   .build());
  }
};

TEST_F(TraceContextTest, EveryRequestCarriesItsOwnTraceOverEitherTransport) {
  const std::regex format("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
  for (const auto transport : {core::TransportKind::Sockets, core::TransportKind::Curl}) {
    SCOPED_TRACE(std::string(core::kTransportChoices.name(transport)));
    testing::EngineLike llama(testing::EngineKind::Llamacpp);
    const runner::RunOutcome out = run_against(llama, transport);
    EXPECT_TRUE(testing::IsValidUnlessBusy(out));
    const std::vector<std::string> sent = sent_traceparents(llama);
    ASSERT_EQ(sent.size(), 12u);
    std::multiset<std::string> on_the_wire(sent.begin(), sent.end());
    // Each request's tracestate names it by its id: one per request, beside its traceparent.
    std::map<std::string, std::string> state_of;
    const std::vector<std::string> states = sent_headers(llama, "tracestate");
    for (size_t i = 0; i < sent.size(); ++i) state_of[sent[i]] = states[i];
    std::set<std::string> traces;
    for (const auto& r : records(out)) {
      ASSERT_TRUE(std::regex_match(r.traceparent, format)) << r.traceparent;
      EXPECT_EQ(on_the_wire.count(r.traceparent), 1u) << r.traceparent;  // what went out
      ASSERT_FALSE(r.client_request_id.empty());
      EXPECT_EQ(state_of[r.traceparent], "tokbench=" + r.client_request_id);
      traces.insert(r.traceparent.substr(3, 32));
    }
    EXPECT_EQ(traces.size(), 12u);  // one trace per request
  }
}

TEST_F(TraceContextTest, NoneWhenAskedAndTheUsersOwnWhenGiven) {
  testing::EngineLike off(testing::EngineKind::Llamacpp);
  const runner::RunOutcome none =
      run_against(off, core::TransportKind::Sockets,
                  [](runner::RunConfig& r) { r.target.trace_context = false; });
  EXPECT_EQ(sent_traceparents(off), std::vector<std::string>(12, ""));
  EXPECT_EQ(sent_headers(off, "tracestate"), std::vector<std::string>(12, ""));
  for (const auto& r : records(none)) EXPECT_EQ(r.traceparent, "");
  const std::string own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  for (const auto transport : {core::TransportKind::Sockets, core::TransportKind::Curl}) {
    testing::EngineLike given(testing::EngineKind::Llamacpp);
    const runner::RunOutcome out = run_against(given, transport, [&](runner::RunConfig& r) {
      r.target.headers = {"traceparent: " + own};
    });
    EXPECT_EQ(sent_traceparents(given), std::vector<std::string>(12, own));
    for (const auto& r : records(out)) EXPECT_EQ(r.traceparent, "");  // not ours to record
  }
}

TEST(TraceContext, ATraceIsTheRequestsAndASpanTheAttempts) {
  const uint64_t seed = client::trace_seed_of("20261207_010345-7db9");
  EXPECT_NE(seed, client::trace_seed_of("20261207_010345-7db9-chat"));  // a class's lane apart
  const std::string first = client::traceparent(seed, 7, false, 0);
  const std::string retry = client::traceparent(seed, 7, false, 1);
  EXPECT_EQ(first.substr(0, 36), retry.substr(0, 36));    // the same trace
  EXPECT_NE(first.substr(36, 16), retry.substr(36, 16));  // its own span
  EXPECT_NE(client::traceparent(seed, 7, true, 0).substr(3, 32), first.substr(3, 32));  // warm-up
  EXPECT_EQ(first, client::traceparent(seed, 7, false, 0));  // drawn, not random
}

}  // namespace
}  // namespace tokbench
