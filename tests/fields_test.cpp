// settings/fields: each settings part is one table, a row per flag; the settings' JSON, the range
// checks and the CLI's options all come from the rows, so a row that is wrong shows here.
#include "settings/fields.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "settings/run_config.hpp"

namespace tokbench::runner {
namespace {

// Calls f(table, part) for each of the seven parts of `c`.
template <class F>
void each_part(RunConfig& c, F f) {
  f(target_fields(), c.target);
  f(request_fields(), c.request);
  f(load_fields(), c.load);
  f(workload_fields(), c.workload);
  f(experiment_fields(), c.experiment);
  f(observe_fields(), c.observe);
  f(output_fields(), c.output);
}

TEST(Fields, FlagsAndKeysAreEachDeclaredOnce) {
  RunConfig c;
  std::set<std::string> flags, keys;
  size_t rows = 0;
  each_part(c, [&](const auto& table, auto&) {
    for (const auto& f : table) {
      ++rows;
      EXPECT_TRUE(flags.insert(std::string(long_flag(f.flag))).second) << f.flag;
      EXPECT_TRUE(long_flag(f.flag).starts_with("--")) << f.flag;
      EXPECT_FALSE(f.help.empty()) << f.flag;
      EXPECT_TRUE(keys.insert(json_key(f)).second) << json_key(f);
    }
  });
  EXPECT_GT(rows, 90u);  // every flag of `run` but --config and --print-config
  // The keys of the settings' JSON are what older run folders hold (series.json, which --resume
  // compares key by key, and config.json): a renamed flag keeps its key.
  // ("bursts", "tools" and "tool_choice" are written only when given: a series saved before those
  // flags resumes as it was.)
  std::istringstream words(
      "url host port endpoint model skip_model_check api_key headers request_id_header "
      "trace_context "
      "ca_bundle tls_cert tls_key insecure transport engine server_cmd deploy_sh model_path "
      "server_ready_timeout_s server_stop_grace_s server_grid server_devices stream max_tokens "
      "ignore_eos min_tokens temperature extra_body continuous_usage compat timeout_s retries "
      "max_event_bytes max_body_bytes concurrency num_prompts request_rate arrivals burstiness "
      "duration_s grace_s ramp_up_s ramp_up_strategy ramp_up_start_rps ramp_up_measured "
      "pressure warmup warm_connections seed workers drain_s cancel_rate cancel_after classes "
      "dataset "
      "tokenizer "
      "input_len "
      "output_len input_len_range prefix_len output_len_range sharegpt_output_len lora turns "
      "think_time_ms multi_turn image images_per_request documents trace_block_size trace_speed "
      "search slo search_min search_max search_resolution search_margin repeats confidence "
      "adaptive_window_s adaptive_max goodput resume reset_prefix_cache schema_paired "
      "interference stop_on_saturation "
      "saturation_window_s server_metrics scrape_interval_ms server_metrics_auth profile_window "
      "slice_s telemetry telemetry_interval_ms telemetry_idle_s price_per_device_hour "
      "price_per_kwh otlp_receive otlp_wait_s client_share_budget otlp_endpoint live check_answers "
      "keep_outputs "
      "determinism_probe output_dir model_abbr history "
      "labels quiet verbose progress_interval_s bursts tools tool_choice json_schema");
  const std::set<std::string> saved{std::istream_iterator<std::string>(words), {}};
  EXPECT_EQ(keys, saved);
  EXPECT_EQ(json_key(request_fields().front()), "stream");      // "--stream,!--no-stream"
  EXPECT_TRUE(keys.count("tls_cert") && keys.count("labels"));  // a key of its own
}

// Each row, given a value unlike its default through its own member, shows that value under its
// own key in the settings' JSON: the row binds the member the flag names to the key it writes.
TEST(Fields, EveryRowWritesItsMemberUnderItsKey) {
  RunConfig c;
  std::vector<std::pair<std::string, std::string>> expected;  // key, its JSON text
  each_part(c, [&](const auto& table, auto& part) {
    using Part = std::decay_t<decltype(part)>;
    for (const auto& f : table) {
      const std::string key = json_key(f);
      std::visit(
          [&](const auto& m) {
            using M = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<M, ChoiceField<Part>> ||
                          std::is_same_v<M, CustomField<Part>>) {
              return;  // their own syntax: below
            } else if constexpr (std::is_same_v<M, bool Part::*>) {
              part.*m = !(part.*m);
              expected.emplace_back(key, part.*m ? "true" : "false");
            } else if constexpr (std::is_same_v<M, std::string Part::*>) {
              part.*m = "v-" + key;
              if (f.redact == Redact::Secret)
                expected.emplace_back(key, "\"" + std::string(kRedacted) + "\"");
              else
                expected.emplace_back(key, "\"v-" + key + "\"");
            } else if constexpr (std::is_same_v<M, std::vector<std::string> Part::*>) {
              part.*m = {"k=v-" + key};
              expected.emplace_back(key, "[\"k=v-" + key + "\"]");
            } else if constexpr (std::is_same_v<M, std::optional<int64_t> Part::*> ||
                                 std::is_same_v<M, std::optional<double> Part::*>) {
              part.*m = 7;
              expected.emplace_back(key, "7");
            } else {
              part.*m = part.*m + 3;
              expected.emplace_back(key, fmt::format("{}", part.*m));
            }
          },
          f.value);
    }
  });
  const std::string json = c.to_json();
  ASSERT_GT(expected.size(), 80u);
  for (const auto& [key, text] : expected)
    EXPECT_NE(json.find(fmt::format("\"{}\":{}", key, text)), std::string::npos)
        << key << " = " << text << " in " << json;
}

TEST(Fields, WordsAndOwnSyntaxGoThroughTheirRows) {
  RunConfig c;
  const auto& load = load_fields();
  auto row = [](const auto& table, std::string_view flag) {
    for (const auto& f : table)
      if (long_flag(f.flag) == flag) return f;
    ADD_FAILURE() << flag;
    return table.front();
  };
  const auto arrivals = std::get<ChoiceField<LoadSettings>>(row(load, "--arrivals").value);
  EXPECT_TRUE(arrivals.parse(c.load, "gamma"));
  EXPECT_FALSE(arrivals.parse(c.load, "bursty"));
  EXPECT_EQ(c.load.arrivals, core::ArrivalKind::Gamma);
  EXPECT_NE(arrivals.alternatives.find("poisson"), std::string::npos);

  const auto concurrency = std::get<CustomField<LoadSettings>>(row(load, "--concurrency").value);
  EXPECT_EQ(concurrency.text(c.load), "auto");
  concurrency.set(c.load, "1,4,16");
  EXPECT_EQ(c.load.concurrency, 1);
  EXPECT_EQ(c.load.concurrency_sweep, (std::vector<int>{1, 4, 16}));
  EXPECT_EQ(concurrency.text(c.load), "1,4,16");
  EXPECT_THROW(concurrency.set(c.load, "0"), std::invalid_argument);
  try {
    concurrency.set(c.load, "4,x");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--concurrency: bad value 'x' (expected a positive integer; a comma list is a "
                 "sweep)");
  }
  concurrency.set(c.load, "1,4,16");  // the list again: a bad value ends the command line
  const auto rate = std::get<CustomField<LoadSettings>>(row(load, "--request-rate").value);
  rate.set(c.load, "2,inf");
  EXPECT_EQ(rate.text(c.load), "2,inf");
  const std::string json = c.to_json();
  EXPECT_NE(json.find("\"request_rate_sweep\":[2,\"inf\"]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"arrivals\":\"gamma\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"concurrency_sweep\":[1,4,16]"), std::string::npos) << json;
}

// A help text's start up to the first character Markdown escapes.
std::string plain_start(const std::string& help) {
  return help.substr(0, std::min<size_t>(30, help.find_first_of("<>|`*_\\")));
}

// Every row is an option of `tokbench run` with its help: docs/CLI.md is the binary's own
// reference (cli_reference_test holds them equal), so a row the binder missed is missing there.
TEST(Fields, EveryRowIsAnOptionOfRun) {
  std::ifstream in(std::string(TOKBENCH_SOURCE_DIR) + "/docs/CLI.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  RunConfig c;
  each_part(c, [&](const auto& table, auto&) {
    for (const auto& f : table) {
      const std::string flag(long_flag(f.flag));
      const size_t at = doc.str().find("| `" + flag);
      EXPECT_NE(at, std::string::npos) << flag;
      if (at != std::string::npos) {  // its help on its row (a word flag's after its words)
        EXPECT_NE(doc.str().find(plain_start(f.help), at), std::string::npos) << flag;
      }
    }
  });
}

TEST(Fields, SecretsAreRedactedByTheirRows) {
  RunConfig c;
  c.target.url = "http://user:pw@127.0.0.1:8000/v1/chat/completions";
  c.target.api_key = "sk-secret";
  c.target.tls_key = "/keys/client.pem";
  c.target.headers = {"Authorization: Bearer sk-h"};
  c.target.server_cmd = "vllm serve m --api-key sk-c";
  c.observe.telemetry = {"http://u:pw2@gpu:9400/metrics"};
  const std::string json = c.to_json();
  for (const char* secret : {"pw@", "sk-secret", "client.pem", "sk-h", "sk-c", "pw2"})
    EXPECT_EQ(json.find(secret), std::string::npos) << secret << " in " << json;
}

// A range is enforced by validate() with the row's words; a value inside passes.
TEST(Fields, RangesAreCheckedWithTheirRowsWords) {
  RunConfig c;
  std::vector<std::string> e;
  c.target.port = 0;
  c.request.min_tokens = -1;
  c.load.burstiness = 0;
  c.workload.think_time_ms = std::numeric_limits<double>::infinity();
  c.observe.telemetry_interval_ms = 60001;
  check_ranges(c.target, target_fields(), e);
  check_ranges(c.request, request_fields(), e);
  check_ranges(c.load, load_fields(), e);
  check_ranges(c.workload, workload_fields(), e);
  check_ranges(c.observe, observe_fields(), e);
  EXPECT_EQ(e, (std::vector<std::string>{
                   "--port: bad value 0 (expected 1..65535)",
                   "--min-tokens: bad value -1 (expected >= 0)",
                   "--burstiness: bad value 0 (expected > 0: 1 = Poisson, < 1 burstier, > 1 "
                   "steadier)",
                   "--think-time-ms: bad value inf (expected >= 0)",
                   "--telemetry-interval-ms: bad value 60001 (expected 100 to 60000)"}));
  RunConfig fine;
  std::vector<std::string> none;
  fine.request.min_tokens.reset();
  check_ranges(fine.target, target_fields(), none);
  check_ranges(fine.request, request_fields(), none);
  check_ranges(fine.load, load_fields(), none);
  check_ranges(fine.workload, workload_fields(), none);
  check_ranges(fine.experiment, experiment_fields(), none);
  check_ranges(fine.observe, observe_fields(), none);
  EXPECT_TRUE(none.empty()) << none.front();  // the defaults lie in their ranges
  c.validate_target(none);
  EXPECT_NE(std::find(none.begin(), none.end(), "--port: bad value 0 (expected 1..65535)"),
            none.end());  // validate() runs the rows' checks
}

}  // namespace
}  // namespace tokbench::runner
