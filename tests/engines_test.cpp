// core/engines and the dialects keyed by it: the engine table, each engine's /tokenize
// (client/server_tokenizer), its /metrics names (probe/server_metrics) and its prefix-cache reset
// (probe/cache_reset), each against a loopback server that speaks that engine's dialect as its
// source defines it (support/engine_like.hpp), not against tokbench's simulator.
#include "core/engines.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <set>
#include <string>

#include "client/api.hpp"
#include "metrics/cross_check.hpp"
#include "net/http_get.hpp"
#include "probe/cache_reset.hpp"
#include "probe/prometheus.hpp"
#include "probe/server_metrics.hpp"
#include "support/engine_like.hpp"
#include "workload/server_tokenizer.hpp"

namespace tokbench {
namespace {

using testing::EngineKind;
using testing::EngineLike;

runner::ServerTokenizer tokenizer_of(const EngineLike& srv) {
  return {net::root_url_for(srv.url()), "tiny.gguf", {}, "", {}};
}

// One chat answer, not streamed; its usage as the server put it.
simdjson::dom::element chat(const EngineLike& srv, const std::string& text,
                            simdjson::dom::parser& parser, int max_tokens = 4) {
  const auto r = net::http_post(srv.url(),
                                R"({"model":"tiny","max_tokens":)" + std::to_string(max_tokens) +
                                    R"(,"messages":[{"role":"user","content":")" + text + "\"}]}",
                                {}, "", 5000);
  EXPECT_EQ(r.status, 200) << r.body;
  return parser.parse(r.body).value();
}

TEST(Engines, EachIsNamedOnceAndItsMetricsDialectIsItsOwn) {
  std::set<std::string_view> names;
  for (const core::Engine& e : core::all_engines()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_EQ(core::engine_named(e.name), &e);
    // An engine with a /metrics tokbench reads has its dialect under its name, with a mark.
    if (const probe::Dialect* d = probe::dialect_named(e.name)) {
      EXPECT_FALSE(std::string_view(d->mark).empty()) << e.name;
    }
  }
  EXPECT_EQ(probe::dialect_named("ollama"), nullptr);  // no Prometheus /metrics
  ASSERT_NE(probe::dialect_named("mindie"), nullptr);  // unprefixed, told by a name only it has
  EXPECT_EQ(std::string_view(probe::dialect_named("mindie")->mark), "request_received_total");
  EXPECT_EQ(names.size(), 8u);  // the issue's eight: vLLM, SGLang, llama.cpp, TGI, Ollama, ...
  for (const probe::Dialect& d : probe::all_dialects())
    EXPECT_NE(core::engine_named(d.name), nullptr) << d.name;
  EXPECT_EQ(core::engine_named("vllm-v0"), nullptr);
  EXPECT_NE(core::engine_names().find("llamacpp, tgi"), std::string::npos);
}

// The engine a run faced, and how that is known: the built-in simulator first, then --engine, the
// /metrics names, an API only one engine speaks, llama.cpp's /tokenize shape; evidence that names
// another engine is said beside ("but"); nothing that names one is no engine. Every engine's own
// API is an --endpoint of its own (client/api/registry.cpp names them).
TEST(Engines, WhichOneAnsweredAndHowThatIsKnown) {
  using core::EngineEvidence;
  using core::identify_engine;
  auto seen = [](EngineEvidence e) {
    const core::EngineSeen s = identify_engine(e);
    return s.name + " | " + s.how;
  };
  EXPECT_EQ(seen({.api = "chat", .metrics_dialect = "vllm", .simulator = true}),
            "tokbench-mock | the built-in simulator answered (no --url)");
  EXPECT_EQ(seen({.named = "sglang", .api = "chat", .metrics_dialect = "sglang"}),
            "sglang | named with --engine; its /metrics names are sglang's");
  EXPECT_EQ(seen({.named = "auto",
                  .api = "chat",
                  .metrics_dialect = "llamacpp",
                  .llamacpp_tokenize = true}),
            "llamacpp | its /metrics names are llamacpp's; its /tokenize answered in llama.cpp's "
            "shape");
  EXPECT_EQ(seen({.named = "auto", .api = "mindie"}),
            "mindie | the requests went through mindie's own API (--endpoint mindie)");
  EXPECT_EQ(seen({.named = "auto", .api = "tgi", .metrics_dialect = "vllm"}),
            "vllm | its /metrics names are vllm's; but the requests went through tgi's own API "
            "(--endpoint tgi)");
  EXPECT_EQ(seen({.named = "auto", .api = "chat"}), " | ");
  EXPECT_EQ(seen({}), " | ");
  EXPECT_EQ(seen({.named = "auto", .api = "ollama-generate"}),
            "ollama | the requests went through ollama's own API (--endpoint ollama-generate)");
  // Each API is one engine's at most, and the engines' own APIs are APIs tokbench speaks (a
  // misspelt name would drop out of the set).
  std::set<std::string_view> own;
  for (const core::Engine& e : core::all_engines())
    for (const client::ApiAdapter* a : client::all_apis())
      if (e.owns_api(a->name())) {
        EXPECT_TRUE(own.insert(a->name()).second) << e.name;
      }
  EXPECT_EQ(own,
            (std::set<std::string_view>{"generate", "tgi", "ollama", "ollama-generate", "mindie"}));
  EXPECT_FALSE(core::engine_named("ollama")->owns_api("ollama-gen"));  // a whole name, not a prefix
  EXPECT_FALSE(core::engine_named("ollama")->owns_api(""));
}

TEST(EngineTokenize, LlamacppsIsLearntFromItsAnswersAndCountsLikeItsServer) {
  EngineLike srv(EngineKind::Llamacpp);
  runner::ServerTokenizer st = tokenizer_of(srv);
  ASSERT_TRUE(runner::has_tokenize(st));  // vLLM's body gets {"tokens": []}: not taken for it
  EXPECT_EQ(st.dialect, core::TokenizeDialect::Llamacpp);
  // A chat's count is its template's: 3 words + 8 (/v1/chat/completions/input_tokens); a
  // completion's prompt gets its BOS.
  EXPECT_EQ(runner::server_count(st, "one two three", true), 11);
  EXPECT_EQ(runner::server_count(st, "one two three", false), 4);
  const auto codec = runner::server_codec(st);
  const auto ids = codec->encode("alpha beta gamma");
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(codec->decode(ids), "alpha beta gamma");  // /detokenize's "content"
  EXPECT_GT(codec->pool().size(), 50u);
  EXPECT_NE(codec->name().find("llama.cpp"), std::string::npos);
}

TEST(EngineTokenize, ANamedEngineWithoutOneIsNotAskedAndTgisIsNotTakenForVllms) {
  EngineLike tgi(EngineKind::Tgi);
  runner::ServerTokenizer st = tokenizer_of(tgi);
  EXPECT_FALSE(runner::has_tokenize(st));  // its /tokenize answers pieces, or 422 without inputs
  EXPECT_EQ(st.dialect, core::TokenizeDialect::None);
  const int asked = tgi.connections();
  st.named = true;  // --engine tgi: no tokenize dialect, so nothing is asked
  EXPECT_FALSE(runner::has_tokenize(st));
  EXPECT_EQ(tgi.connections(), asked);
}

// Scrapes before and after two answers; the summary in the dialect the exposition speaks.
std::optional<probe::ServerSummary> scrape_around(EngineLike& srv, const std::string& engine,
                                                  std::string* error = nullptr) {
  probe::Scraper scraper(srv.url("/metrics"), {}, "", 1000, 0, 1 << 20, {}, engine);
  if (!scraper.scrape_once()) {
    if (error) *error = scraper.last_error();
    return std::nullopt;
  }
  simdjson::dom::parser parser;
  chat(srv, "a b c d", parser, 5);
  chat(srv, "e f", parser, 7);
  scraper.stop();  // the last scrape
  return scraper.summary();
}

TEST(EngineMetrics, LlamacppsAreReadAndItsPromptCounterShowsTheCache) {
  EngineLike srv(EngineKind::Llamacpp);
  const auto s = scrape_around(srv, "auto");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->dialect, "llamacpp");
  EXPECT_EQ(s->generation_tokens, 12);
  EXPECT_EQ(s->prompt_tokens, 4 + 8 + 2 + 8);
  EXPECT_FALSE(s->ttft);  // no histograms: nothing is made up
  ASSERT_FALSE(s->running_waiting.empty());
  const auto checks = metrics::cross_check(*s, 12, std::nullopt, std::nullopt);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_TRUE(checks[0].agree);
  EXPECT_NE(checks[0].note.find("llamacpp:tokens_predicted_total"), std::string::npos);
  // 22 prompt tokens by usage, all evaluated: nothing from the cache.
  const auto none = metrics::prompt_check(*s, 22, 0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->agree);
  // Had usage reported 40 with 18 cached, the evaluated 22 agree; with 30 cached they do not.
  EXPECT_TRUE(metrics::prompt_check(*s, 40, 18)->agree);
  EXPECT_FALSE(metrics::prompt_check(*s, 40, 30)->agree);
  EXPECT_NE(metrics::prompt_check(*s, 40, -1)->note.find("18 of the 40"), std::string::npos);
  // In flight: this client never had more than 1; the server's peak is at most that.
  const auto in_flight = metrics::in_flight_check(*s, 1);
  ASSERT_TRUE(in_flight);
  EXPECT_TRUE(in_flight->agree);
  EXPECT_NE(in_flight->note.find("llamacpp:requests_processing"), std::string::npos);
}

// The server's peak against the client's: a request finished on the client may still count on the
// server beside the one sent in its place, so one more than the client's 4 (and a quarter) is the
// hand-over, not other traffic; 7 at a client peak of 4 is.
TEST(EngineMetrics, InFlightAllowsTheHandOverButNotOtherTraffic) {
  probe::ServerSummary s;
  s.dialect = "vllm";
  s.running_waiting = {{0, 3.0, 0.0}, {1, 4.0, 1.0}};
  EXPECT_TRUE(metrics::in_flight_check(s, 4)->agree);  // 5: 4 and one being retired
  s.running_waiting.emplace_back(2, 6.0, 0.0);
  EXPECT_TRUE(metrics::in_flight_check(s, 4)->agree);  // 6 = 4 + 1 + 4 / 4
  s.running_waiting.emplace_back(3, 6.0, 1.0);
  const auto seven = metrics::in_flight_check(s, 4);
  EXPECT_FALSE(seven->agree);
  EXPECT_EQ(seven->server, 7);
  EXPECT_NE(seven->note.find("up to 2 more"), std::string::npos) << seven->note;
  EXPECT_FALSE(metrics::in_flight_check(s, 0));  // no client figure: nothing to check against
}

TEST(EngineMetrics, TgisAndMindiesAreReadOllamaHasNoneAndAnEngineIsNotGuessed) {
  for (auto [kind, name] : {std::pair{EngineKind::Tgi, "tgi"}, {EngineKind::Mindie, "mindie"}}) {
    EngineLike srv(kind);
    const auto s = scrape_around(srv, "auto");
    ASSERT_TRUE(s) << name;
    EXPECT_EQ(s->dialect, name);
    EXPECT_EQ(s->generation_tokens, 12) << name;
    EXPECT_EQ(s->prompt_tokens, 4 + 8 + 2 + 8) << name;
    EXPECT_TRUE(metrics::cross_check(*s, 12, std::nullopt, std::nullopt).at(0).agree) << name;
    EXPECT_FALSE(metrics::prompt_check(*s, 22, 0)) << name;  // their counters hold every token
  }
  EngineLike ollama(EngineKind::Ollama);
  std::string why;
  EXPECT_FALSE(scrape_around(ollama, "auto", &why));
  EXPECT_NE(why.find("HTTP 404"), std::string::npos) << why;
  // --engine names the dialect: a llama.cpp exposition is not read as vLLM's.
  EngineLike llama(EngineKind::Llamacpp);
  EXPECT_FALSE(scrape_around(llama, "vllm"));
  EXPECT_FALSE(scrape_around(llama, "ollama", &why));
  EXPECT_NE(why.find("--engine ollama has no Prometheus /metrics"), std::string::npos) << why;
}

TEST(EngineMetrics, EachExpositionIsToldByItsOwnNames) {
  // Written from each engine's source (docs/COMPATIBILITY.md): the first names an exposition of
  // that engine carries. A gateway's or an exporter's own families are nobody's.
  const std::pair<const char*, const char*> cases[] = {
      {"vllm", "vllm:num_requests_running{model_name=\"m\"} 1\n"},
      {"sglang", "sglang:num_running_reqs{model_name=\"m\"} 1\n"},
      {"llamacpp", "llamacpp:prompt_tokens_total 10\nllamacpp:requests_deferred 0\n"},
      {"tgi", "tgi_queue_size 0\ntgi_request_count 3\n"},
      {"lmdeploy", "lmdeploy:num_requests_running{model_name=\"m\",engine=\"0\"} 2\n"},
      {"trtllm", "trtllm:time_to_first_token_seconds_count 4\n"},
      {"mindie",
       "request_received_total{model_name=\"m\"} 5\nnum_requests_running{model_name=\"m\"} 1\n"},
  };
  for (const auto& [name, text] : cases) {
    const probe::Snapshot snap{0, probe::parse_text(text)};
    const probe::Dialect* d = probe::dialect_of(snap);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_STREQ(d->name, name);
  }
  // vLLM's names without the prefix are not MindIE's unless MindIE's own counter is there.
  EXPECT_EQ(probe::dialect_of({0, probe::parse_text("num_requests_running 1\n")}), nullptr);
  EXPECT_EQ(probe::dialect_of({0, probe::parse_text("go_goroutines 9\nprocess_cpu_seconds_total "
                                                    "1\n")}),
            nullptr);
  // LMDeploy's TTFT reads as a TTFT: the same histogram names under its prefix.
  const probe::Snapshot a{0, probe::parse_text("lmdeploy:time_to_first_token_seconds_bucket{le="
                                               "\"+Inf\"} 0\nlmdeploy:time_to_first_token_"
                                               "seconds_sum 0\nlmdeploy:time_to_first_token_"
                                               "seconds_count 0\n")};
  const probe::Snapshot b{1'000'000'000,
                          probe::parse_text("lmdeploy:time_to_first_token_seconds_bucket{le="
                                            "\"+Inf\"} 2\nlmdeploy:time_to_first_token_"
                                            "seconds_sum 0.1\nlmdeploy:time_to_first_token_"
                                            "seconds_count 2\n")};
  const auto s = probe::summarize({a, b}, "u");
  ASSERT_TRUE(s && s->ttft);
  EXPECT_DOUBLE_EQ(s->ttft->mean(), 0.05);
}

TEST(EngineCacheReset, LlamacppsSlotsAreErasedAndTheNextPromptIsEvaluatedAgain) {
  EngineLike srv(EngineKind::Llamacpp);
  simdjson::dom::parser parser;
  chat(srv, "the same prompt", parser);
  int64_t cached =
      chat(srv, "the same prompt", parser)["usage"]["prompt_tokens_details"]["cached_tokens"]
          .get_int64()
          .value();
  EXPECT_EQ(cached, 3 + 8 - 1);  // all but the last token, as llama.cpp re-evaluates it
  const auto r = probe::reset_prefix_cache(srv.url(), {}, "", {});  // auto: vLLM's, SGLang's, ...
  ASSERT_TRUE(r.done) << r.how;
  EXPECT_NE(r.how.find("/slots"), std::string::npos);
  cached = chat(srv, "the same prompt", parser)["usage"]["prompt_tokens_details"]["cached_tokens"]
               .get_int64()
               .value();
  EXPECT_EQ(cached, 0);
  // An engine without a reset says so by name, asking nothing.
  const auto tgi = probe::reset_prefix_cache(srv.url(), {}, "", {}, "tgi");
  EXPECT_FALSE(tgi.done);
  EXPECT_NE(tgi.how.find("--engine tgi"), std::string::npos) << tgi.how;
}

}  // namespace
}  // namespace tokbench
