// client/api + mock/routes: the API seam. The registry (names and paths found both ways, a
// gateway's prefix, errors that list what there is), the simulator mirroring every generating API
// the client speaks, and one TEST_P per API — as EngineOn runs every engine test on both
// transports — that benchmarks the built-in simulator through that API, streamed and not, and
// holds it to the same truth: every request answered, the output count exact, TPOT the
// simulator's, the audit of the API's own default body free of warnings.
#include "client/api.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "client/request_body.hpp"
#include "mock/route.hpp"
#include "support/run_test.hpp"

namespace tokbench::client {
namespace {

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

// The simulator mirrors the client: every API that generates has a route of the same path.
TEST(ApiRegistry, TheSimulatorServesEveryGeneratingApi) {
  for (const ApiAdapter* a : all_apis()) {
    if (!a->caps().generates) continue;
    const mock::MockRoute* route = mock::route_of(a->path());
    ASSERT_NE(route, nullptr)
        << a->path() << ": add mock/routes/<api>.cpp and a line in mock/routes/registry.cpp";
  }
  for (const mock::MockRoute* r : mock::all_routes())
    EXPECT_NE(api_of_path(r->path()), nullptr) << r->path();
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
  runner::RunOutcome run_through_api(bool stream) {
    return run(testing::RunSettings()
                   .endpoint(std::string(GetParam()->name()))
                   .stream(stream)
                   .concurrency(4)
                   .prompts(16)
                   .max_tokens(12)
                   .ignore_eos());
  }
};

INSTANTIATE_TEST_SUITE_P(Apis, ApiOn, ::testing::ValuesIn(generating_apis()),
                         [](const auto& info) { return std::string(info.param->name()); });

TEST_P(ApiOn, StreamedRunMeetsTheSimulatorsTruth) {
  const runner::RunOutcome out = run_through_api(true);
  std::string all;
  for (const auto& r : out.verdict.reasons) all += r + "\n";
  // 16 requests are too few for P99: the only reason allowed for INVALID here.
  for (const auto& r : out.verdict.reasons) EXPECT_NE(r.find("too few"), std::string::npos) << all;
  const auto& m = out.metrics;
  ASSERT_TRUE(m.row("TPOT") && m.row("TPOT")->stats && m.row("TTFT")->stats) << all;
  EXPECT_EQ(m.row("TPOT")->stats->n, 16);
  EXPECT_NEAR(m.row("TPOT")->stats->mean, 10.0, 1.0);  // serve-mock's default --tpot-ms
  EXPECT_NEAR(m.row("TTFT")->stats->mean, 50.0,
              15.0);  // its default --ttft-ms, connections opened in it
  EXPECT_DOUBLE_EQ(m.row("OutputTokens")->stats->mean, 12);
  for (const auto& r : records(out)) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.completion_tokens, 12);
    EXPECT_GT(r.prompt_tokens, 0);
    EXPECT_EQ(std::count_if(r.chunks.begin(), r.chunks.end(),
                            [](const auto& ch) { return ch.has_text(); }),
              12);
    EXPECT_NE(r.done_ns, record::kNone) << "the stream's end was not seen";
    EXPECT_FALSE(r.request_id.empty());
  }
}

TEST_P(ApiOn, BodyRunCountsTheSameOutput) {
  const runner::RunOutcome out = run_through_api(false);
  ASSERT_TRUE(out.metrics.row("OutputTokens") && out.metrics.row("OutputTokens")->stats);
  EXPECT_DOUBLE_EQ(out.metrics.row("OutputTokens")->stats->mean, 12);
  for (const auto& r : records(out)) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.completion_tokens, 12);
    EXPECT_GT(r.output_chars, 0);
  }
}

// What tokbench sends by default sets off no warning of the API's own audit.
TEST_P(ApiOn, DefaultBodyPassesItsOwnAudit) {
  BodySettings s;
  s.api = GetParam();
  s.model = "m";
  dataset::RequestSpec spec;
  spec.prompt = "hi";
  for (const auto& f : audit_body(build_body(s, spec), *GetParam()))
    EXPECT_NE(f.level, "warning") << f.text;
}

}  // namespace
}  // namespace tokbench::client
