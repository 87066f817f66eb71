// `tokbench doctor` end to end (a short measurement against the built-in simulator, then the
// limits and the estimate), and the warning `run` prints before it sends when the streams asked
// for exceed the open-file limit.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "support/process.hpp"

namespace tokbench {
namespace {

TEST(Doctor, MeasuresTheCostPerEventAgainstTheSimulatorAndEstimatesStreams) {
  const auto r = testing::run_tokbench({"doctor", "--streams", "8", "--requests", "16",
                                        "--max-tokens", "20", "--tokens-per-s", "50,100",
                                        "--hosts-needed", "100000", "50", "--json"});
  ASSERT_EQ(r.code, 0) << r.output;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.output).get(doc), simdjson::SUCCESS) << r.output;
  // 16 answers of 20 tokens, one event each at least (a role chunk or usage chunk may add some).
  EXPECT_GE(doc["measured"]["events"].get_int64().value(), 16 * 20);
  EXPECT_LE(doc["measured"]["events"].get_int64().value(), 16 * 25);
  const double us = doc["measured"]["us_per_event"].get_double().value();
  EXPECT_GT(us, 0);
  EXPECT_LT(us, 100'000);  // generous: a busy machine, a sanitizer build
  EXPECT_EQ(doc["measured"]["streams"].get_int64().value(), 8);
  EXPECT_TRUE(doc["estimate"]["estimated"].get_bool().value());
  const double eps = doc["estimate"]["events_per_s"].get_double().value();
  const double cpus = doc["estimate"]["cpus"].get_double().value();
  EXPECT_NEAR(eps, cpus * 0.7 * 1e6 / us, eps * 1e-6);
  const auto at = doc["estimate"]["streams_at"].get_array();
  ASSERT_EQ(at.size(), 2u);
  EXPECT_GE(at.at(0)["streams"].get_int64().value(), at.at(1)["streams"].get_int64().value());
  EXPECT_GE(doc["estimate"]["hosts_needed"]["hosts"].get_int64().value(), 1);
  EXPECT_GE(doc["limits"]["affinity_cpus"].get_int64().value(), 1);

  const auto text =
      testing::run_tokbench({"doctor", "--streams", "4", "--requests", "4", "--max-tokens", "8"});
  ASSERT_EQ(text.code, 0) << text.output;
  for (const char* line : {"open files", "local ports", "cost per SSE event", "streams at 20 tok/s",
                           "estimate (from the cost per event"})
    EXPECT_NE(text.output.find(line), std::string::npos) << line << "\n" << text.output;
}

TEST(Doctor, TheMeasurementStaysWithinTheOpenFiles) {
  // 512 streams to a simulator in the same process need 1,088 descriptors; 200 allow 68.
  const auto r = testing::run_cmd({"/usr/bin/prlimit", "--nofile=200:200", TOKBENCH_BINARY,
                                   "doctor", "--requests", "68", "--max-tokens", "4", "--json"});
  ASSERT_EQ(r.code, 0) << r.output;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.output).get(doc), simdjson::SUCCESS) << r.output;
  EXPECT_EQ(doc["measured"]["streams"].get_int64().value(), 68);
  EXPECT_EQ(doc["estimate"]["stream_cap"].get_int64().value(), 136);
}

TEST(Doctor, NoMeasureAndBadFlagsSayWhatTheyDo) {
  const auto r = testing::run_tokbench({"doctor", "--no-measure"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("not measured (--no-measure)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("cost per SSE event"), std::string::npos) << r.output;
  const auto bad = testing::run_tokbench({"doctor", "--hosts-needed", "100"});
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find("--hosts-needed"), std::string::npos) << bad.output;
}

TEST(RunChecksHostLimits, MoreStreamsThanOpenFilesAreWarnedOfBeforeSending) {
  // Nothing listens on port 1: the run ends at once; the warning comes before it tries.
  const auto r = testing::run_cmd({"/usr/bin/prlimit", "--nofile=200:200", TOKBENCH_BINARY, "run",
                                   "--url", "http://127.0.0.1:1/v1/chat/completions", "--model",
                                   "m", "--concurrency", "150", "--num-prompts", "150"});
  EXPECT_NE(r.output.find("warning: 150 streams need 214 open files but this process may hold "
                          "136 (ulimit -Hn 200)"),
            std::string::npos)
      << r.output;
  // Fewer requests than streams: only as many connections as requests.
  const auto few = testing::run_cmd({"/usr/bin/prlimit", "--nofile=200:200", TOKBENCH_BINARY, "run",
                                     "--url", "http://127.0.0.1:1/v1/chat/completions", "--model",
                                     "m", "--concurrency", "150", "--num-prompts", "20"});
  EXPECT_EQ(few.output.find("open files"), std::string::npos) << few.output;
}

}  // namespace
}  // namespace tokbench
