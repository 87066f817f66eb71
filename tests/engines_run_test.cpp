// `tokbench run` against servers that speak other engines' dialects (support/engine_like.hpp),
// the issue-39 findings as a user meets them: against llama.cpp's server a synthetic run needs
// no --tokenizer and its prompts are exact, nothing is re-sent though every stream closes its
// connection, its llamacpp:* /metrics are cross-checked, and a re-run of the same prompts says
// that the cache served them; TGI's and MindIE's metrics are read; --engine is checked.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>

#include "support/cli_fixture.hpp"
#include "support/engine_like.hpp"
#include "support/sim_process.hpp"

namespace tokbench::testing {
namespace {

class EnginesRun : public CliFixture {
 protected:
  // The measured lines of the run's details file.
  std::vector<std::string> measured_lines(const fs::path& run_dir) {
    std::vector<std::string> out;
    for (const auto& f : fs::recursive_directory_iterator(run_dir / "performances")) {
      if (!f.path().string().ends_with("_details.jsonl")) continue;
      std::ifstream in(f.path());
      for (std::string line; std::getline(in, line);)
        if (line.find("\"warmup\":true") == std::string::npos) out.push_back(line);
    }
    return out;
  }
  // The cross-check row `what` of result.json's server view; false when there is none.
  static bool check_named(simdjson::dom::element r, std::string_view what,
                          simdjson::dom::element* out) {
    simdjson::dom::array checks;
    if (r["server"]["cross_check"].get_array().get(checks)) return false;
    for (simdjson::dom::element c : checks) {
      std::string_view name;
      if (!c["what"].get_string().get(name) && name == what) {
        *out = c;
        return true;
      }
    }
    return false;
  }
  std::vector<std::string> synthetic(const EngineLike& srv, int prompts = 12) {
    return {"--url",         srv.url(),
            "--dataset",     "synthetic",
            "--input-len",   "32",
            "--output-len",  "8",
            "--num-prompts", std::to_string(prompts),
            "--concurrency", "2",
            "--seed",        "7"};
  }
};

TEST_F(EnginesRun, LlamacppSyntheticWithoutTokenizerIsExactAndNothingIsResent) {
  EngineLike srv(EngineKind::Llamacpp);
  const fs::path rd = run(synthetic(srv));
  ASSERT_FALSE(rd.empty()) << last_.output;
  // The template's 8 tokens were measured at /v1/chat/completions/input_tokens and subtracted
  // (as with vLLM's /tokenize): every prompt is 24 words of content and 32 tokens by usage,
  // the asked length; unmeasured, usage would say 40.
  EXPECT_NE(last_.output.find("server-added tokens: 8"), std::string::npos) << last_.output;
  const auto lines = measured_lines(rd);
  ASSERT_EQ(lines.size(), 12u);
  simdjson::dom::parser p;
  for (const auto& l : lines) {
    auto rec = p.parse(l).value();
    EXPECT_EQ(rec["input_tokens"].get_int64().value(), 32) << l;
    int64_t resent = 0;
    if (!rec["resent"].get_int64().get(resent)) {
      EXPECT_EQ(resent, 0) << l;
    }
  }
  // Every stream closed its connection (llama.cpp's habit): replaced, never re-sent or warned of.
  EXPECT_EQ(last_.output.find("sent a second time"), std::string::npos) << last_.output;
  auto r = result(rd);
  EXPECT_EQ(r["server"]["dialect"].get_string().value(), "llamacpp");
  // Which engine answered, and how that is known: its /metrics names and its /tokenize's shape.
  EXPECT_EQ(r["engine"]["name"].get_string().value(), "llamacpp");
  EXPECT_EQ(r["engine"]["how"].get_string().value(),
            "its /metrics names are llamacpp's; its /tokenize answered in llama.cpp's shape");
  // The console says it too, where the server line alone does not.
  EXPECT_NE(last_.output.find("\nengine: llamacpp (its /metrics names are llamacpp's; its "
                              "/tokenize answered in llama.cpp's shape)\n"),
            std::string::npos)
      << last_.output;
  simdjson::dom::element c;
  ASSERT_TRUE(check_named(r, "output tokens", &c)) << last_.output;
  EXPECT_TRUE(c["agree"].get_bool().value());
  ASSERT_TRUE(check_named(r, "requests in flight (peak)", &c));
  EXPECT_TRUE(c["agree"].get_bool().value());
  EXPECT_LE(c["server"].get_double().value(), 2);
  ASSERT_TRUE(check_named(r, "prompt tokens evaluated", &c));
  EXPECT_TRUE(c["agree"].get_bool().value());
  EXPECT_DOUBLE_EQ(r["prefix_cache"]["share"].get_double().value(), 0);
  // llama.cpp's own times of each answer (`timings` in its last chunk), read back from the
  // details: 5 ms of prompt processing, 16 ms for 8 tokens.
  const auto extra = r["extra_metrics"];
  EXPECT_DOUBLE_EQ(extra["ServerPromptTime"]["mean"].get_double().value(), 5.0);
  EXPECT_DOUBLE_EQ(extra["ServerTimePerToken"]["mean"].get_double().value(), 2.0);
  EXPECT_EQ(extra["ServerTimePerToken"]["n"].get_int64().value(), 12);
  EXPECT_NE(last_.output.find("the server's own times (12 answer(s) carried the server's timings): "
                              "prompt processing mean 5.000 ms"),
            std::string::npos)
      << last_.output;
}

TEST_F(EnginesRun, ARerunOfTheSamePromptsIsServedFromCacheAndTheVerdictSaysSo) {
  EngineLike srv(EngineKind::Llamacpp);
  ASSERT_FALSE(run(synthetic(srv, 8)).empty()) << last_.output;
  EXPECT_EQ(last_.output.find("served from the server's prefix cache"), std::string::npos);
  const fs::path again = run(synthetic(srv, 8));  // the same seed: the same prompts
  ASSERT_FALSE(again.empty()) << last_.output;
  auto r = result(again);
  const auto pc = r["prefix_cache"];
  EXPECT_EQ(pc["requests"].get_int64().value(), 8);
  EXPECT_EQ(pc["hit_requests"].get_int64().value(), 8);
  EXPECT_DOUBLE_EQ(pc["cached_prompt_tokens"].get_double().value(), 8 * 31);  // all but one each
  EXPECT_GT(pc["share"].get_double().value(), 0.9);
  // The console's line, and the verdict's note (console, result.json, page).
  EXPECT_NE(last_.output.find("prefix cache: 248 of 256 prompt tokens (96.9%) came from the "
                              "server's cache, 31.0 per request (8 of 8 requests hit"),
            std::string::npos)
      << last_.output;
  EXPECT_NE(last_.output.find("96.9% of the prompt tokens (248 of 256) were served from the "
                              "server's prefix cache"),
            std::string::npos)
      << last_.output;
  bool noted = false;
  simdjson::dom::array notes;  // held: a range-for over .value() would outlive its result
  ASSERT_FALSE(r["verdict"]["notes"].get_array().get(notes));
  for (auto n : notes)
    noted |= n.get_string().value().find("prefix cache") != std::string_view::npos;
  EXPECT_TRUE(noted);
  std::ifstream page(again / "performances/tiny.gguf/synthetic_plot.html");
  const std::string html((std::istreambuf_iterator<char>(page)), {});
  EXPECT_NE(html.find("prefix cache: 248 of 256"), std::string::npos);
  // The server's side agrees: llama.cpp evaluated only the 8 tokens usage did not call cached.
  simdjson::dom::element c;
  ASSERT_TRUE(check_named(r, "prompt tokens evaluated", &c));
  EXPECT_TRUE(c["agree"].get_bool().value());
  EXPECT_DOUBLE_EQ(c["server"].get_double().value(), 8);
  // --reset-prefix-cache erases llama.cpp's slots first: cold again.
  auto args = synthetic(srv, 8);
  args.push_back("--reset-prefix-cache");
  const fs::path cold = run(args);
  ASSERT_FALSE(cold.empty()) << last_.output;
  EXPECT_DOUBLE_EQ(result(cold)["prefix_cache"]["share"].get_double().value(), 0);
}

TEST_F(EnginesRun, TgisMindiesAndLmdeploysMetricsAreCrossCheckedAndEngineIsChecked) {
  for (auto [kind, name] : {std::pair{EngineKind::Tgi, "tgi"},
                            {EngineKind::Mindie, "mindie"},
                            {EngineKind::Lmdeploy, "lmdeploy"}}) {
    EngineLike srv(kind);
    const fs::path rd =
        run({"--url", srv.url(), "--num-prompts", "6", "--max-tokens", "5", "--engine", name});
    ASSERT_FALSE(rd.empty()) << last_.output;
    auto r = result(rd);
    EXPECT_EQ(r["server"]["dialect"].get_string().value(), name);
    simdjson::dom::element c;
    ASSERT_TRUE(check_named(r, "output tokens", &c)) << name << last_.output;
    EXPECT_TRUE(c["agree"].get_bool().value()) << name;
    EXPECT_EQ(r["config"]["engine"].get_string().value(), name);
    EXPECT_EQ(r["engine"]["name"].get_string().value(), name);
    EXPECT_EQ(r["engine"]["how"].get_string().value(),
              std::string("named with --engine; its /metrics names are ") + name + "'s");
  }
  run({"--engine", "vllm-v0", "--num-prompts", "1"}, 2);
  EXPECT_NE(last_.output.find("--engine: unknown engine 'vllm-v0' (expected auto or one of vllm, "
                              "sglang, llamacpp"),
            std::string::npos)
      << last_.output;
}

// TGI's native /generate_stream as its router writes it ("data:" with no space, an event per
// token, no [DONE]): the API is told from the path, every token is a chunk, the counts are TGI's
// own (details: the EOS it generated is counted though it has no text), nothing is re-sent, and
// its tgi_* /metrics agree with the client on output tokens.
TEST_F(EnginesRun, TgisNativeStreamIsReadTokenByToken) {
  EngineLike srv(EngineKind::Tgi);
  for (const auto& [cap, tokens, texts, finish] :
       {std::tuple{"5", 5, 5, "length"}, std::tuple{"30", 21, 20, "eos_token"}}) {
    const fs::path rd = run({"--url", srv.url("/generate_stream"), "--num-prompts", "6",
                             "--concurrency", "2", "--max-tokens", cap});
    ASSERT_FALSE(rd.empty()) << last_.output;
    std::ifstream body_file(rd / "configs" / "request_body.json");
    const std::string body((std::istreambuf_iterator<char>(body_file)), {});
    EXPECT_NE(
        body.find(std::string("\"parameters\":{\"max_new_tokens\":") + cap + ",\"details\":true}"),
        std::string::npos)
        << body;
    const auto lines = measured_lines(rd);
    ASSERT_EQ(lines.size(), 6u);
    simdjson::dom::parser p;
    for (const auto& l : lines) {
      auto rec = p.parse(l).value();
      EXPECT_TRUE(rec["success"].get_bool().value()) << l;
      EXPECT_EQ(rec["output_tokens"].get_int64().value(), tokens) << l;
      EXPECT_GT(rec["input_tokens"].get_int64().value(), 1) << l;  // details.input_length
      EXPECT_EQ(rec["finish_reason"].get_string().value(), finish) << l;
      EXPECT_EQ(rec["token_source"].get_string().value(), "usage") << l;
      const std::string_view kinds = rec["chunks"]["kinds"].get_string().value();
      EXPECT_EQ(kinds.size(), static_cast<size_t>(tokens)) << l;  // one event per token
      EXPECT_EQ(std::count(kinds.begin(), kinds.end(), 'C'), texts) << l;
      EXPECT_NE(rec["timing_ns"]["done"].get_int64().value(), 0) << l;
    }
    EXPECT_EQ(last_.output.find("sent a second time"), std::string::npos) << last_.output;
    auto r = result(rd);
    EXPECT_EQ(r["config"]["endpoint"].get_string().value(), "tgi");
    EXPECT_EQ(r["engine"]["name"].get_string().value(), "tgi");
    EXPECT_EQ(r["engine"]["how"].get_string().value(),
              "its /metrics names are tgi's; the requests went through tgi's own API "
              "(--endpoint tgi)");
    simdjson::dom::element c;
    ASSERT_TRUE(check_named(r, "output tokens", &c)) << last_.output;
    EXPECT_TRUE(c["agree"].get_bool().value()) << last_.output;
  }
  // What TGI has not, refused by name before anything is sent.
  run({"--url", srv.url("/generate_stream"), "--num-prompts", "1", "--ignore-eos"}, 2);
  EXPECT_NE(last_.output.find("--ignore-eos / --min-tokens: Text Generation Inference"),
            std::string::npos)
      << last_.output;
}

// TGI's /generate, the same API's answers sent whole (--endpoint tgi --no-stream: /generate
// alone is SGLang's): the counts come from its headers (x-prompt-tokens: the body says no
// prompt length) and its details, its queue and inference times are joined per request
// (ServerQueueTime; ServerTimePerToken = x-inference-time / x-generated-tokens), nothing re-sent.
TEST_F(EnginesRun, TgisWholeAnswersAtGenerateCarryItsHeaders) {
  EngineLike srv(EngineKind::Tgi);
  for (const auto& [cap, tokens, finish] :
       {std::tuple{"5", 5, "length"}, std::tuple{"30", 21, "eos_token"}}) {
    const fs::path rd = run({"--url", srv.url("/generate"), "--endpoint", "tgi", "--no-stream",
                             "--num-prompts", "6", "--concurrency", "2", "--max-tokens", cap});
    ASSERT_FALSE(rd.empty()) << last_.output;
    const auto lines = measured_lines(rd);
    ASSERT_EQ(lines.size(), 6u);
    simdjson::dom::parser p;
    for (const auto& l : lines) {
      auto rec = p.parse(l).value();
      EXPECT_TRUE(rec["success"].get_bool().value()) << l;
      EXPECT_EQ(rec["output_tokens"].get_int64().value(), tokens) << l;
      EXPECT_GT(rec["input_tokens"].get_int64().value(), 1) << l;  // x-prompt-tokens
      EXPECT_EQ(rec["finish_reason"].get_string().value(), finish) << l;
      EXPECT_EQ(rec["server_timings"]["queue_us"].get_int64().value(), 7000) << l;
      EXPECT_EQ(rec["server_timings"]["predicted_us"].get_int64().value(), 2000 * tokens) << l;
      EXPECT_EQ(rec["server_timings"]["predicted_n"].get_int64().value(), tokens) << l;
    }
    EXPECT_EQ(last_.output.find("sent a second time"), std::string::npos) << last_.output;
    auto r = result(rd);
    EXPECT_EQ(r["config"]["endpoint"].get_string().value(), "tgi");
    EXPECT_DOUBLE_EQ(r["extra_metrics"]["ServerQueueTime"]["mean"].get_double().value(), 7.0);
    EXPECT_DOUBLE_EQ(r["extra_metrics"]["ServerTimePerToken"]["mean"].get_double().value(), 2.0);
    EXPECT_NE(last_.output.find("the server's queue (6 answer(s) said it): mean 7.000 ms"),
              std::string::npos)
        << last_.output;
  }
  // Streaming at /generate, or a body asked of /generate_stream: refused, naming the fix.
  run({"--url", srv.url("/generate"), "--endpoint", "tgi", "--num-prompts", "1"}, 2);
  EXPECT_NE(last_.output.find("answers there with one body; add --no-stream"), std::string::npos)
      << last_.output;
}

// Ollama's native /api/chat (newline-delimited JSON, not SSE), streamed and not: the counts are
// its own (eval_count, prompt_eval_count), each line a chunk, and its durations are joined per
// request as the server's own times beside the client's: 3 ms of prompt, 2 ms per token. Its
// first request waited 300 ms for the model to load (load_duration): a warning says so, and
// nothing does once it is loaded, nor when a warm-up request took the load.
TEST_F(EnginesRun, OllamasNativeChatIsReadLineByLineWithItsOwnTimes) {
  EngineLike srv(EngineKind::Ollama);
  auto warnings = [](simdjson::dom::element r) {
    std::string all;
    const simdjson::dom::array list = r["verdict"]["warnings"].get_array().value();
    for (auto w : list) all += std::string(w.get_string().value()) + "\n";
    return all;
  };
  for (const char* stream : {"--stream", "--no-stream"}) {
    const fs::path rd = run({"--url", srv.url("/api/chat"), "--num-prompts", "6", "--concurrency",
                             "2", "--max-tokens", "7", stream});
    ASSERT_FALSE(rd.empty()) << last_.output;
    const auto lines = measured_lines(rd);
    ASSERT_EQ(lines.size(), 6u);
    simdjson::dom::parser p;
    const bool streamed = std::string_view(stream) == "--stream";
    for (const auto& l : lines) {
      auto rec = p.parse(l).value();
      EXPECT_TRUE(rec["success"].get_bool().value()) << l;
      EXPECT_EQ(rec["output_tokens"].get_int64().value(), 7) << l;
      EXPECT_GT(rec["input_tokens"].get_int64().value(), 8) << l;  // prompt_eval_count: 8 + words
      EXPECT_EQ(rec["finish_reason"].get_string().value(), "length") << l;
      if (streamed) {
        EXPECT_EQ(rec["chunks"]["kinds"].get_string().value(), "CCCCCCC") << l;
      }
    }
    auto r = result(rd);
    EXPECT_EQ(r["config"]["endpoint"].get_string().value(), "ollama");
    // No /metrics: its own API alone names it.
    EXPECT_EQ(r["engine"]["name"].get_string().value(), "ollama");
    EXPECT_EQ(r["engine"]["how"].get_string().value(),
              "the requests went through ollama's own API (--endpoint ollama)");
    EXPECT_NE(last_.output.find(
                  "\nengine: ollama (the requests went through ollama's own API (--endpoint "
                  "ollama))\n"),
              std::string::npos)
        << last_.output;
    std::string page;  // and the page, beside the target
    for (const auto& e : fs::recursive_directory_iterator(rd / "performances"))
      if (e.path().string().ends_with("_plot.html")) page = slurp(e.path());
    EXPECT_NE(page.find("&middot; engine ollama (the requests went through ollama"),
              std::string::npos);
    const auto extra = r["extra_metrics"];
    EXPECT_DOUBLE_EQ(extra["ServerPromptTime"]["mean"].get_double().value(), 3.0) << stream;
    EXPECT_DOUBLE_EQ(extra["ServerTimePerToken"]["mean"].get_double().value(), 2.0) << stream;
    EXPECT_EQ(extra["ServerTimePerToken"]["n"].get_int64().value(), 6);
    EXPECT_EQ(extra["ServerLoadTime"]["n"].get_int64().value(), 6);
    const std::string said = warnings(r);
    if (streamed) {  // the first run met the cold model
      EXPECT_DOUBLE_EQ(extra["ServerLoadTime"]["max"].get_double().value(), 300.0);
      EXPECT_NE(said.find("1 of 6 request(s) waited for the server to load the model: 0.30 s in "
                          "all, 0.30 s at most (its answers' load_duration; ServerLoadTime)"),
                std::string::npos)
          << said;
      EXPECT_NE(said.find("--warmup 1"), std::string::npos) << said;
    } else {
      EXPECT_DOUBLE_EQ(extra["ServerLoadTime"]["max"].get_double().value(), 0.001);
      EXPECT_EQ(said.find("load the model"), std::string::npos) << said;
    }
  }
  // Its /api/generate, told from the path (before SGLang's /generate): a prompt in, each line's
  // "response" a chunk, the same counts and times.
  const fs::path gen = run({"--url", srv.url("/api/generate"), "--num-prompts", "4",
                            "--concurrency", "2", "--max-tokens", "5"});
  ASSERT_FALSE(gen.empty()) << last_.output;
  {
    const auto lines = measured_lines(gen);
    ASSERT_EQ(lines.size(), 4u);
    simdjson::dom::parser p;
    for (const auto& l : lines) {
      auto rec = p.parse(l).value();
      EXPECT_TRUE(rec["success"].get_bool().value()) << l;
      EXPECT_EQ(rec["output_tokens"].get_int64().value(), 5) << l;
      EXPECT_EQ(rec["chunks"]["kinds"].get_string().value(), "CCCCC") << l;
    }
    auto r = result(gen);
    EXPECT_EQ(r["config"]["endpoint"].get_string().value(), "ollama-generate");
    EXPECT_EQ(r["engine"]["name"].get_string().value(), "ollama");
    EXPECT_DOUBLE_EQ(r["extra_metrics"]["ServerTimePerToken"]["mean"].get_double().value(), 2.0);
    EXPECT_NE(
        std::string(r["run"]["request_body_example"].get_string().value()).find("\"prompt\":"),
        std::string::npos);
  }
  // The advice holds: a warm-up request takes the load, and the measured ones do not wait.
  EngineLike cold(EngineKind::Ollama);
  const fs::path rd = run(
      {"--url", cold.url("/api/chat"), "--num-prompts", "4", "--warmup", "1", "--max-tokens", "3"});
  ASSERT_FALSE(rd.empty()) << last_.output;
  auto r = result(rd);
  EXPECT_EQ(cold.generations(), 5);
  EXPECT_DOUBLE_EQ(r["extra_metrics"]["ServerLoadTime"]["max"].get_double().value(), 0.001);
  EXPECT_EQ(warnings(r).find("load the model"), std::string::npos) << warnings(r);
}

// MindIE's native /infer, streamed and not: the API is told from the path; each step's event a
// chunk, the last one's text read from the whole text it carries (an EOS adds none: a finish);
// the counts are MindIE's (details; it counts no prompt tokens); a stream's own step times are
// joined per request (3 ms to the first token, 2 ms per step); nothing is re-sent; what /infer
// does not take is refused by name.
TEST_F(EnginesRun, MindiesNativeInferIsReadStepByStepWithItsOwnTimes) {
  EngineLike srv(EngineKind::Mindie);
  for (const auto& [cap, tokens, kinds, finish, stream] :
       {std::tuple{"5", 5, "CCCCC", "length", "--stream"},
        std::tuple{"30", 21, "CCCCCCCCCCCCCCCCCCCCF", "eos_token", "--stream"},
        std::tuple{"5", 5, "", "length", "--no-stream"}}) {
    const fs::path rd = run({"--url", srv.url("/infer"), "--num-prompts", "6", "--concurrency", "2",
                             "--max-tokens", cap, stream});
    ASSERT_FALSE(rd.empty()) << last_.output;
    const bool streamed = std::string_view(stream) == "--stream";
    std::ifstream body_file(rd / "configs" / "request_body.json");
    const std::string body((std::istreambuf_iterator<char>(body_file)), {});
    EXPECT_NE(body.find(std::string("\"stream\":") + (streamed ? "true" : "false") +
                        ",\"parameters\":{\"max_new_tokens\":" + cap + ",\"details\":true}"),
              std::string::npos)
        << body;
    const auto lines = measured_lines(rd);
    ASSERT_EQ(lines.size(), 6u);
    simdjson::dom::parser p;
    for (const auto& l : lines) {
      auto rec = p.parse(l).value();
      EXPECT_TRUE(rec["success"].get_bool().value()) << l;
      EXPECT_EQ(rec["output_tokens"].get_int64().value(), tokens) << l;
      EXPECT_EQ(rec["finish_reason"].get_string().value(), finish) << l;
      if (streamed) {
        EXPECT_EQ(rec["chunks"]["kinds"].get_string().value(), kinds) << l;
        EXPECT_NE(rec["timing_ns"]["done"].get_int64().value(), 0) << l;
      }
    }
    EXPECT_EQ(last_.output.find("sent a second time"), std::string::npos) << last_.output;
    auto r = result(rd);
    EXPECT_EQ(r["config"]["endpoint"].get_string().value(), "mindie");
    EXPECT_EQ(r["engine"]["name"].get_string().value(), "mindie");
    if (streamed) {
      const auto extra = r["extra_metrics"];
      EXPECT_DOUBLE_EQ(extra["ServerPromptTime"]["mean"].get_double().value(), 3.0) << cap;
      EXPECT_DOUBLE_EQ(extra["ServerTimePerToken"]["mean"].get_double().value(), 2.0) << cap;
    }
  }
  run({"--url", srv.url("/infer"), "--num-prompts", "1", "--ignore-eos"}, 2);
  EXPECT_NE(last_.output.find("--ignore-eos / --min-tokens: MindIE native /infer"),
            std::string::npos)
      << last_.output;
}

}  // namespace
}  // namespace tokbench::testing
