// report/: the AISBench-style table, CSV and JSON, and result.json's documented shape.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <sstream>

#include "metrics/metrics.hpp"
#include "report/compare_page.hpp"
#include "report/outputs.hpp"
#include "report/tables.hpp"
#include "runfolder/files.hpp"
#include "support/records.hpp"

namespace tokbench::report {
namespace {

using record::ChunkKind;

metrics::MetricSet sample(bool stream = true) {
  auto r = testing::stream_record(0,
                                  {{90, ChunkKind::Role},
                                   {100, ChunkKind::Content},
                                   {120, ChunkKind::Content},
                                   {120, ChunkKind::Usage, 2}},
                                  121, 2, 10);
  r.stream = stream;
  return metrics::compute({r}, {4, stream}, metrics::Definitions::Tokbench);
}

TEST(Tables, BoxDrawnLikeAisbench) {
  const auto t = console_tables(sample());
  EXPECT_EQ(t.rfind("╒", 0), 0u);
  EXPECT_NE(t.find("│ Performance Parameters "), std::string::npos) << t;
  EXPECT_NE(t.find(" │ Average │ Min "), std::string::npos) << t;
  EXPECT_NE(t.find("│ TTFT (ms) "), std::string::npos) << t;
  EXPECT_NE(t.find(" │ 100.00  │ "), std::string::npos)
      << t;  // short numbers on the console, the unit in the name
  EXPECT_NE(t.find("│ Common Metric"), std::string::npos);
  EXPECT_NE(t.find("│ Max Concurrency         │ 4 "), std::string::npos) << t;
  EXPECT_NE(t.find("╘"), std::string::npos);
  EXPECT_NE(console_tables(sample(), "stable").find("│ Performance Parameters (stable) "),
            std::string::npos);
  // An unknown total reads n/a in the table and null in the JSON.
  auto m = sample();
  for (auto& c : m.common)
    if (c.key == "total_input_tokens") c.known = false;
  EXPECT_NE(console_tables(m).find("│ Total Input Tokens      │ n/a"), std::string::npos)
      << console_tables(m);
  EXPECT_NE(common_json(m).find("\"Total Input Tokens\":{\"total\":null}"), std::string::npos)
      << common_json(m);
  // "Tokens" that were SSE chunks are labelled so, in the table and the CSV.
  m.output_tokens_from_chunks = 1'000'000;
  EXPECT_NE(console_tables(m).find("│ TPOT (ms, per chunk)"), std::string::npos)
      << console_tables(m);
  EXPECT_NE(performance_csv(m).find("TPOT (per chunk),"), std::string::npos) << performance_csv(m);
  EXPECT_EQ(console_tables(m).find("TTFT (ms, per chunk)"), std::string::npos);
  EXPECT_NE(summary_table(m).find("│ TPOT (ms, per chunk) │"), std::string::npos)
      << summary_table(m);
}

// The default console's table: four latency rows, no rules between them; rows that do not apply
// are named under it with the reason, not drawn as dashes.
TEST(Tables, SummaryTableIsDense) {
  const auto t = summary_table(sample());
  EXPECT_NE(t.find("│ Latency   │ Mean   │ P50    │ P90    │ P99    │ Max    │ N │"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("│ TTFT (ms) │ 100.00 │ 100.00 │"), std::string::npos) << t;
  EXPECT_NE(t.find("│ E2EL (ms) │ 121.00 │"), std::string::npos) << t;
  EXPECT_EQ(t.find("├"), std::string::npos) << t;
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 3 + 4 + 1) << t;
  const auto ns = summary_table(sample(false));
  EXPECT_EQ(ns.find("│ TTFT"), std::string::npos) << ns;
  EXPECT_NE(ns.find("n/a (non-streaming): TTFT, TPOT, ITL\n"), std::string::npos) << ns;
  // The full console tables fit 120 columns whatever the reasons: n/a reasons go under them.
  auto m = sample(false);
  for (auto& r : m.rows)
    if (!r.stats)
      r.na_reason =
          "embeddings: nothing is generated, and a reason this long would widen every column";
  const auto full = console_tables(m);
  std::istringstream lines(full);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("│", 0) == 0) {  // display width: UTF-8 continuation bytes take no column
      EXPECT_LE(
          std::count_if(line.begin(), line.end(),
                        [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }),
          120)
          << line;
    }
  }
  EXPECT_NE(full.find("n/a (embeddings: nothing is generated, and a reason this long would widen "
                      "every column): TTFT, TPOT, ITL"),
            std::string::npos)
      << full;
  EXPECT_EQ(format_short(30.28471), "30.285");
  EXPECT_EQ(format_short(1305.4504), "1305.5");
  EXPECT_EQ(format_short(123456.7), "123457");
  EXPECT_EQ(format_short(0.0123), "0.012");
}

TEST(Tables, CsvRowsAndUnits) {
  const auto csv = performance_csv(sample());
  EXPECT_NE(csv.find("Performance Parameters,Stage,Average,Min,Max,Median,P75,P90,P99,N\n"),
            std::string::npos);
  EXPECT_NE(
      csv.find("E2EL,total,121.0 ms,121.0 ms,121.0 ms,121.0 ms,121.0 ms,121.0 ms,121.0 ms,1\n"),
      std::string::npos);
  EXPECT_NE(csv.find("OutputTokens,total,2.0,"), std::string::npos);
  EXPECT_NE(csv.find("OutputTokenThroughput,total,16.5289 token/s"), std::string::npos);
  const auto ns = performance_csv(sample(false));
  EXPECT_NE(ns.find("TTFT,total,n/a (non-streaming),-,-"), std::string::npos);
}

TEST(Tables, CommonJsonIsAisbenchShaped) {
  simdjson::dom::parser p;
  auto doc = p.parse(common_json(sample()));
  EXPECT_EQ(std::string(doc["Benchmark Duration"]["total"].get_string().value()), "121.0 ms");
  EXPECT_EQ(doc["Total Requests"]["total"].get_int64().value(), 1);
  EXPECT_EQ(doc["Max Concurrency"]["total"].get_int64().value(), 4);
  EXPECT_EQ(std::string(doc["Output Token Throughput"]["total"].get_string().value()),
            "16.5289 token/s");
  EXPECT_TRUE(doc["Concurrency"]["total"].is_double());
}

TEST(ResultJson, DocumentedShape) {
  RunInfo info;
  info.dataset_abbr = "gsm8k";
  Verdict v{false, {"1 of 2 requests failed"}, {"30 successful requests: P99 interpolates"}, {}};
  simdjson::dom::parser p;
  auto doc = p.parse(result_json(sample(), info, v));
  ASSERT_FALSE(doc.error());
  for (const char* row : {"E2EL", "TTFT", "TPOT", "ITL", "InputTokens", "OutputTokens",
                          "OutputTokenThroughput", "PrefillTokenThroughput"}) {
    for (const char* k : {"mean", "min", "max", "median", "p75", "p90", "p99", "n"})
      EXPECT_FALSE(doc["metrics"][row][k].error()) << row << "." << k;
  }
  EXPECT_DOUBLE_EQ(doc["metrics"]["TTFT"]["mean"].get_double().value(), 100.0);
  EXPECT_DOUBLE_EQ(doc["common"]["output_token_throughput"].get_double().value(), 2 / 0.121);
  EXPECT_EQ(doc["common"]["success_requests"].get_double().value(), 1);
  EXPECT_EQ(std::string(doc["verdict"]["status"].get_string().value()), "INVALID");
  EXPECT_FALSE(doc["interrupted"].get_bool().value());
  EXPECT_EQ(simdjson::dom::array(doc["verdict"]["warnings"]).size(), 1u);
  EXPECT_FALSE(doc["tool"]["git_hash"].error());
  EXPECT_FALSE(doc["definitions"]["TTFT"].error());
  auto ns = p.parse(result_json(sample(false), info, v));
  EXPECT_TRUE(ns["metrics"]["TTFT"]["mean"].is_null());
  EXPECT_EQ(std::string(ns["metrics"]["TTFT"]["na"].get_string().value()), "non-streaming");
}

// The compare page shows what compare/compare decided: highlighted rows, escaped text, the
// thresholds' outcome, and a load curve only when the runs are different load points.
TEST(ComparePage, ShowsTheRowsAndACurveOnlyAcrossLoadPoints) {
  CompareContents c;
  c.runs = {"a", "b<x>"};
  c.rows = {{"TTFT.median", {"10", "20 (+100.00%, p=0.001 significant)"}, true},
            {"TPOT.mean", {"5", "5 (+0.00%)"}, false}};
  c.differences = "  config.max_tokens: 16 -> 32\n";
  c.thresholds = true;
  c.crossed = {"ttft.p99 > +5%: b is 100%"};
  std::string page = compare_page(c);
  EXPECT_NE(page.find("<th>b&lt;x&gt;</th>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"sig\"><td>TTFT.median</td>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>TPOT.mean</td>"), std::string::npos);
  EXPECT_NE(page.find("config.max_tokens: 16 -&gt; 32"), std::string::npos);
  EXPECT_NE(page.find("FAIL ttft.p99 &gt; +5%: b is 100%"), std::string::npos);
  EXPECT_EQ(page.find("id=\"curve-data\""), std::string::npos);  // one load point: no curve
  c.x_name = "concurrency";
  c.points = {{"a", 1, 12.5, std::nullopt, 100}, {"b", 4, 30, 7, 350}};
  page = compare_page(c);
  EXPECT_NE(page.find(R"("x_name":"concurrency","points":[{"x":1,"ttft_p99":12.5,"tpot_p99":null)"),
            std::string::npos)
      << page.substr(page.find("curve-data"), 300);
}

TEST(RunFolderFiles, FileSafeNames) {
  EXPECT_EQ(runfolder::file_safe("Qwen/Qwen3-8B"), "Qwen_Qwen3-8B");
  EXPECT_EQ(runfolder::file_safe(".."), "model");
}

}  // namespace
}  // namespace tokbench::report
