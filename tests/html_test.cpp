// report/html: the run page from records streamed through it. Its size is bounded at any run
// length (binned histograms and series, a stated sample of the timeline past its limit that keeps
// every failure and the slowest), and what it bins still counts every request.
#include "report/html.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "metrics/metrics.hpp"
#include "report/page_rows.hpp"
#include "support/records.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::report {
namespace {

namespace fs = std::filesystem;
using record::ChunkKind;

// Request i: sent at i ms, first token 20..39 ms later, two tokens; every 997th fails with a 500.
record::RequestRecord request(int64_t i) {
  const double t = static_cast<double>(i);
  const double ttft = 20 + static_cast<double>(i % 20);
  auto r = testing::stream_record(
      t, {{t + ttft, ChunkKind::Content}, {t + ttft + 5, ChunkKind::Content}}, t + ttft + 6, 2, 10);
  r.index = i;
  r.client_request_id = "run-" + std::to_string(i);
  if (i % 997 == 500) {
    r.outcome = record::Outcome::HttpStatus;
    r.http_status = 500;
  }
  return r;
}

struct Page {
  std::string html;
  simdjson::dom::parser parser;
  simdjson::dom::element data;
};

// Writes the page for n requests and parses the data it embeds (`classes`: request i is of class
// i % their count).
void make_page(int64_t n, Page& page, const std::vector<std::string>& classes = {}) {
  std::vector<record::RequestRecord>
      few;  // the tables' statistics: their range spans the histograms
  for (int64_t i = 0; i < 2000; ++i) few.push_back(request(i));
  const auto m = metrics::compute(few, {64, true}, metrics::Definitions::Tokbench);
  RunInfo info;
  info.run_id = "run";
  const Verdict verdict;
  const std::vector<metrics::DefinitionColumn> none;
  HtmlInputs in{m, info, verdict, none};
  in.span_ns = testing::ms(static_cast<double>(n) + 50);
  in.classes = classes;
  if (const auto* itl = m.row("ITL"); itl && itl->stats) in.itl_ms = itl->stats;
  const fs::path path = testing::test_dir() / "page.html";
  write_html_report(path, in, [&](const std::function<void(const record::RequestRecord&)>& fn) {
    for (int64_t i = 0; i < n; ++i) {
      auto r = request(i);
      if (!classes.empty()) r.traffic_class = classes[static_cast<size_t>(i) % classes.size()];
      fn(r);
    }
  });
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  page.html = ss.str();
  fs::remove(path);
  const std::string open = "<script type=\"application/json\" id=\"tokbench-data\">";
  const size_t a = page.html.find(open) + open.size(), b = page.html.find("</script>", a);
  ASSERT_NE(b, std::string::npos);
  ASSERT_EQ(page.parser.parse(page.html.substr(a, b - a)).get(page.data), simdjson::SUCCESS);
}

int64_t failures_in(int64_t n) { return n <= 500 ? 0 : (n - 501) / 997 + 1; }

TEST(HtmlPage, ShortRunDrawsEveryRequest) {
  Page p;
  make_page(1000, p);
  EXPECT_TRUE(p.data["sampling"].is_null());
  EXPECT_EQ(p.data["requests"].get_array().size(), 1000u);
  EXPECT_TRUE(p.data["request_ids"].get_bool().value());
  // The histograms are made here over every success: their counts sum to them.
  double sum = 0;
  for (auto c : p.data["hist"]["TTFT"]["counts"].get_array()) sum += c.get_double().value();
  EXPECT_EQ(sum, 1000 - failures_in(1000));
}

// --class: each class binned on the run's edges and bins, so its bars stack into the run's exactly.
TEST(HtmlPage, EachClassIsBinnedOnTheRunsEdges) {
  Page p;
  make_page(1200, p, {"a", "b", "c"});
  const auto hist = p.data["class_hist"].get_array();
  ASSERT_EQ(hist.size(), 3u);
  for (const char* row : {"TTFT", "TPOT", "E2EL", "ITL"}) {
    const auto all = row == std::string("ITL") ? p.data["itl_hist"] : p.data["hist"][row];
    const auto edges = all["edges"].get_array(), counts = all["counts"].get_array();
    std::vector<double> sum(counts.size(), 0);
    double a = 0;
    for (size_t k = 0; k < 3; ++k) {
      const auto own = hist.at(k)[row];
      EXPECT_EQ(own["edges"].get_array().size(), edges.size());
      EXPECT_EQ(own["edges"].at(7).get_double().value(), edges.at(7).get_double().value());
      size_t i = 0;
      for (auto c : own["counts"].get_array()) {
        sum[i++] += c.get_double().value();
        if (k == 0) a += c.get_double().value();
      }
    }
    for (size_t i = 0; i < sum.size(); ++i)
      EXPECT_EQ(sum[i], counts.at(i).get_double().value()) << row << " bin " << i;
    // Class a: requests 0, 3, 6, ..., none failed (request 500 is c's); one token gap each.
    EXPECT_EQ(a, 400) << row;
  }
  const auto tput = p.data["throughput"].get_array();
  const auto own = p.data["class_throughput"].get_array();
  ASSERT_EQ(own.size(), 3u);
  for (size_t i = 0; i < tput.size(); i += 97) {
    double sum = 0;
    for (size_t k = 0; k < 3; ++k) {
      ASSERT_EQ(own.at(k).get_array().size(), tput.size());
      EXPECT_EQ(own.at(k).at(i).at(0).get_double().value(), tput.at(i).at(0).get_double().value());
      sum += own.at(k).at(i).at(1).get_double().value();
    }
    EXPECT_NEAR(sum, tput.at(i).at(1).get_double().value(), 1e-9);
  }
}

TEST(HtmlPage, LongRunIsBoundedSaysItsSampleAndKeepsEveryFailure) {
  const int64_t n = 150'000, more = 300'000;
  Page p, big;
  make_page(n, p);
  make_page(more, big);
  const auto s = p.data["sampling"];
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["total"].get_int64().value(), n);
  EXPECT_EQ(s["failed"].get_int64().value(), failures_in(n));
  EXPECT_EQ(s["failed_drawn"].get_int64().value(), failures_in(n));
  const auto rows = p.data["requests"].get_array();
  EXPECT_EQ(static_cast<int64_t>(rows.size()), s["drawn"].get_int64().value());
  EXPECT_EQ(rows.size(),
            static_cast<size_t>(failures_in(n)) + RowSampler::kSlowest + RowSampler::kSample);
  int64_t failed_rows = 0;
  bool slowest_drawn = false;
  for (auto r : rows) {
    failed_rows += r.at(3).get_int64().value() == 0;
    // Among the slowest successes (TTFT 39 ms: i % 20 == 19), the last; equal latencies keep the
    // later.
    slowest_drawn = slowest_drawn || r.at(9).get_int64().value() == n - 1;
  }
  EXPECT_EQ(failed_rows, failures_in(n));
  EXPECT_TRUE(slowest_drawn);
  double sum = 0;
  for (auto c : p.data["hist"]["E2EL"]["counts"].get_array()) sum += c.get_double().value();
  EXPECT_EQ(sum, n - failures_in(n)) << "the histogram counts every request, not the drawn ones";
  // In flight from every request: 150,000 requests of 26..45 ms, one started each ms: about 35.5.
  double peak = 0;
  for (auto pt : p.data["inflight"]["points"].get_array())
    peak = std::max(peak, pt.at(1).get_double().value());
  EXPECT_NEAR(peak, 35.5, 2.0);
  // Bounded: twice the requests, about the same page (the chart library included), under 10 MB.
  EXPECT_LT(big.html.size(), 10u << 20);
  EXPECT_LT(static_cast<double>(big.html.size()), static_cast<double>(p.html.size()) * 1.05);
}

}  // namespace
}  // namespace tokbench::report
