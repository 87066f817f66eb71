// client/api + mockapi/routes: the API seam. The registry (names and paths found both ways, a
// gateway's prefix, errors that list what there is), the simulator mirroring every generating API
// the client speaks, and one TEST_P per API — as EngineOn runs every engine test on both
// transports — that benchmarks the built-in simulator through that API, streamed and not, and
// holds it to the same truth: every request answered, the output count exact, TPOT the
// simulator's, the audit of the API's own default body free of warnings.
#include "client/api.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "client/request_body.hpp"
#include "mockapi/route.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"
#include "support/sim_trace.hpp"

namespace tokbench::client {
namespace {

// A test's name from an API's ("ollama-generate" -> "ollama_generate": gtest takes no '-').
std::string test_name(std::string_view api) {
  std::string out(api);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

TEST(ApiRegistry, NamesAndPathsAreFoundBothWays) {
  std::set<std::string_view> names, paths;
  for (const ApiAdapter* a : all_apis()) {
    EXPECT_TRUE(names.insert(a->name()).second) << a->name();
    EXPECT_TRUE(paths.insert(a->path()).second) << a->path();
    EXPECT_EQ(find_api(a->name()), a);
    EXPECT_EQ(api_of_path(a->path()), a) << a->path();
    EXPECT_EQ(api_of_path(std::string(a->path()) + "/"), a) << a->path();
    EXPECT_TRUE(a->path().ends_with(a->path_tail())) << a->name();
    EXPECT_FALSE(a->title().empty());
  }
  EXPECT_EQ(&default_api(), find_api("chat"));
  EXPECT_EQ(api_of_path("/openai/v1/responses"), find_api("responses"));  // a gateway's prefix
  EXPECT_EQ(api_of_path("/api/v2/chat/completions"), find_api("chat"));
  EXPECT_EQ(api_of_path("/v1/models"), nullptr);
  EXPECT_EQ(find_api("nope"), nullptr);
  try {
    (void)api_named("nope");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    for (const ApiAdapter* a : all_apis())
      EXPECT_NE(std::string(e.what()).find(a->name()), std::string::npos) << e.what();
  }
}

// The simulator mirrors the client: every API has a route of the same path — a generating one
// for an API that generates, a one-shot one for an API that answers once.
TEST(ApiRegistry, TheSimulatorServesEveryApi) {
  for (const ApiAdapter* a : all_apis()) {
    const bool served = a->caps().generates ? mock::route_of(a->path()) != nullptr
                                            : mock::one_shot_route_of(a->path()) != nullptr;
    EXPECT_TRUE(served)
        << a->path() << ": add mockapi/routes/<api>.cpp and a line in mockapi/routes/registry.cpp";
    if (a->body_path() == a->path()) continue;
    // Whole answers at a path another API shares (TGI's /generate, SGLang's too): the route that
    // claims this API's body answers whole.
    BodySettings s;
    s.api = a;
    s.model = "m";
    s.stream = false;
    dataset::RequestSpec spec;
    spec.prompt = "hi";
    const std::string body = build_body(s, spec);
    const mock::MockRoute* whole = mock::route_of(a->body_path(), body);
    ASSERT_NE(whole, nullptr) << a->body_path();
    std::string why;
    const auto req = whole->parse(body, "m", &why);
    ASSERT_TRUE(req) << a->name() << ": " << why;
    EXPECT_FALSE(req->stream) << a->name();
    EXPECT_NE(whole, mock::route_of(a->body_path(), R"({"text":"hi"})"))
        << "a body of the other API's goes to its own route";
  }
  for (const mock::MockRoute* r : mock::all_routes()) {
    ASSERT_NE(api_of_path(r->path()), nullptr) << r->path();
    EXPECT_TRUE(api_of_path(r->path())->caps().generates) << r->path();
  }
  for (const mock::OneShotRoute* r : mock::all_one_shot_routes()) {
    ASSERT_NE(api_of_path(r->path()), nullptr) << r->path();
    EXPECT_FALSE(api_of_path(r->path())->caps().generates) << r->path();
  }
  EXPECT_EQ(api_of_path("/v2/rerank"), find_api("rerank"));  // vLLM's Cohere-style path
  EXPECT_EQ(api_of_path("/rerank"), find_api("rerank"));     // and its Jina-style one
}

// Credentials: the key goes in the API's header, and a --header of that name wins.
TEST(ApiRegistry, CredentialsGoInEachApisHeader) {
  EXPECT_EQ(default_api().credential_headers({}, "k"),
            std::vector<std::string>{"Authorization: Bearer k"});
  EXPECT_TRUE(default_api().credential_headers({"authorization: Bearer mine"}, "k").empty());
  EXPECT_TRUE(default_api().credential_headers({}, "").empty());
  const auto anthropic = api_named("messages").credential_headers({}, "k");
  EXPECT_EQ(anthropic, (std::vector<std::string>{"x-api-key: k", "anthropic-version: 2023-06-01"}));
  EXPECT_EQ(api_named("messages").credential_headers({"X-Api-Key: mine"}, "k"),
            std::vector<std::string>{"anthropic-version: 2023-06-01"});
}

std::vector<const ApiAdapter*> generating_apis() {
  std::vector<const ApiAdapter*> out;
  for (const ApiAdapter* a : all_apis())
    if (a->caps().generates) out.push_back(a);
  return out;
}

// The built-in simulator (no --url) through one API: a TEST_P over the adapters, as EngineOn is
// over the transports.
class ApiOn : public testing::RunTest, public ::testing::WithParamInterface<const ApiAdapter*> {
 protected:
  // ignore_eos where the API has it; TGI has not, and the cap of 12 cuts before the simulator's
  // EOS (16 tokens or more) anyway. The simulator runs with serve-mock's defaults and its
  // --trace: `sent_tpot` is what it sent per token, the truth a TPOT is held to (beside a
  // compile at nice 19 it sent 11.6-12.1 ms for its nominal 10).
  runner::RunOutcome run_through_api(bool stream, double* sent_tpot = nullptr) {
    const ApiAdapter& api = *GetParam();
    const std::filesystem::path trace = dir_ / "trace.jsonl";
    testing::Sim sim({"--trace", trace.string()});
    runner::RunOutcome out =
        run(testing::RunSettings()
                .url(sim.url(std::string(stream ? api.path() : api.body_path())))
                .endpoint(std::string(api.name()))
                .stream(stream)
                .concurrency(4)
                .prompts(16)
                .max_tokens(12)
                .ignore_eos(api.caps().sampling_extensions));
    if (sent_tpot) *sent_tpot = testing::sim_tpot_ms(trace, 12, 16);
    return out;
  }
};

INSTANTIATE_TEST_SUITE_P(Apis, ApiOn, ::testing::ValuesIn(generating_apis()),
                         [](const auto& info) { return test_name(info.param->name()); });

TEST_P(ApiOn, StreamedRunMeetsTheSimulatorsTruth) {
  double sent = 0;
  const runner::RunOutcome out = run_through_api(true, &sent);
  std::string all;
  for (const auto& r : out.verdict.reasons) all += r + "\n";
  // 16 requests are too few for P99: the only reason allowed for INVALID here, but for what a
  // busy machine gives a loopback run (CI, beside another test: "the client's busiest worker
  // thread was on a CPU only 1% of the time"; support/busy_machine.hpp).
  for (const auto& r : out.verdict.reasons)
    EXPECT_TRUE(r.find("too few") != std::string::npos || testing::busy_machine_reason(r)) << all;
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("TPOT") && m.row("TPOT")->stats && m.row("TTFT")->stats) << all;
  EXPECT_EQ(m.row("TPOT")->stats->n, 16);
  EXPECT_NEAR(sent, 10.0, 3.0);  // serve-mock's default --tpot-ms, as a busy machine keeps it
  EXPECT_NEAR(m.row("TPOT")->stats->mean, sent, 1.0);
  EXPECT_NEAR(m.row("TTFT")->stats->mean, 50.0,
              15.0);  // its default --ttft-ms, connections opened in it
  EXPECT_DOUBLE_EQ(m.row("OutputTokens")->stats->mean, 12);
  const std::string_view api = GetParam()->name();
  for (const auto& r : records(out)) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.completion_tokens, 12);
    if (api == "mindie")  // MindIE's /infer counts no prompt tokens: unknown, not 0
      EXPECT_EQ(r.prompt_tokens, record::kNone);
    else
      EXPECT_GT(r.prompt_tokens, 0);
    EXPECT_EQ(std::count_if(r.chunks.begin(), r.chunks.end(),
                            [](const auto& ch) { return ch.has_text(); }),
              12);
    EXPECT_NE(r.done_ns, record::kNone) << "the stream's end was not seen";
    // The server's id of the answer; TGI's and MindIE's events and Ollama's lines name none.
    EXPECT_EQ(r.request_id.empty(),
              api == "tgi" || api == "ollama" || api == "ollama-generate" || api == "mindie");
  }
}

std::vector<const ApiAdapter*> body_apis() {  // generating APIs that can answer in one body
  std::vector<const ApiAdapter*> out;
  for (const ApiAdapter* a : generating_apis())
    if (a->caps().whole_body) out.push_back(a);
  return out;
}

class ApiBodyOn : public ApiOn {};

INSTANTIATE_TEST_SUITE_P(Apis, ApiBodyOn, ::testing::ValuesIn(body_apis()),
                         [](const auto& info) { return test_name(info.param->name()); });

TEST_P(ApiBodyOn, BodyRunCountsTheSameOutput) {
  const runner::RunOutcome out = run_through_api(false);
  ASSERT_TRUE(out.metrics.row("OutputTokens") && out.metrics.row("OutputTokens")->stats);
  EXPECT_DOUBLE_EQ(out.metrics.row("OutputTokens")->stats->mean, 12);
  for (const auto& r : records(out)) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.completion_tokens, 12);
    EXPECT_GT(r.output_chars, 0);
  }
}

// With no --url the built-in simulator is started at the path of the mode: an API whose whole
// answers live at another path (TGI's /generate) is answered there.
using BuiltInSimulator = testing::RunTest;
TEST_F(BuiltInSimulator, AnswersWholeAtTheBodyPath) {
  const runner::RunOutcome out =
      run(testing::RunSettings().endpoint("tgi").stream(false).prompts(2).max_tokens(4));
  const auto recs = records(out);
  ASSERT_EQ(recs.size(), 2u);
  for (const auto& r : recs) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_FALSE(r.stream);
    EXPECT_EQ(r.completion_tokens, 4);
    EXPECT_NE(r.server_queue_us, record::kNone) << "TGI's /generate headers were read";
  }
}

// What tokbench sends by default sets off no warning of the API's own audit, for every API (an
// API that ranks gets its documents, as measure/target gives it them).
TEST(ApiRegistry, DefaultBodiesPassTheirOwnAudit) {
  for (const ApiAdapter* a : all_apis()) {
    BodySettings s;
    s.api = a;
    s.model = "m";
    dataset::RequestSpec spec;
    spec.prompt = "hi";
    if (a->caps().documents) spec.payload = core::Ranking{{"a", "b"}};
    for (const auto& f : audit_body(build_body(s, spec), *a))
      EXPECT_NE(f.level, "warning") << a->name() << ": " << f.text;
  }
}

std::vector<const ApiAdapter*> one_shot_apis() {
  std::vector<const ApiAdapter*> out;
  for (const ApiAdapter* a : all_apis())
    if (!a->caps().generates) out.push_back(a);
  return out;
}

// The built-in simulator through each API that answers once (embeddings, rerank), with the
// README's flags: every request answered whole after the simulator's prefill (--ttft-ms 50),
// input tokens from usage, nothing generated; an API that ranks sends the --documents default
// (each builtin prompt ranks the four after it) and counts them.
class OneShotOn : public testing::RunTest,
                  public ::testing::WithParamInterface<const ApiAdapter*> {};

INSTANTIATE_TEST_SUITE_P(Apis, OneShotOn, ::testing::ValuesIn(one_shot_apis()),
                         [](const auto& info) { return test_name(info.param->name()); });

TEST_P(OneShotOn, RunAnswersEveryRequestWhole) {
  const runner::RunOutcome out = run(
      testing::RunSettings().endpoint(std::string(GetParam()->name())).concurrency(4).prompts(16));
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("E2EL") && m.row("E2EL")->stats);
  EXPECT_EQ(m.row("E2EL")->stats->n, 16);
  EXPECT_GE(m.row("E2EL")->stats->min, 50.0);
  EXPECT_FALSE(m.row("TTFT")->stats.has_value());
  EXPECT_FALSE(m.common_metric("output_token_throughput")->known);
  const bool ranks = GetParam()->caps().documents;
  for (const auto& r : records(out)) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_FALSE(r.stream);
    EXPECT_GT(r.prompt_tokens, 0);
    EXPECT_EQ(r.documents, ranks ? 4 : 0);
    EXPECT_FALSE(r.request_id.empty());
  }
  const metrics::Common* docs = m.common_metric("document_throughput");
  ASSERT_EQ(docs != nullptr, ranks);
  if (ranks) {
    EXPECT_NEAR(docs->value, 4 * m.common_metric("request_throughput")->value, 1e-9 * docs->value);
  }
}

}  // namespace
}  // namespace tokbench::client
