// history/: the regression rules on known series, and the results store itself — records and reads
// back, rebuilt from folders alone, written by several threads at once, a damaged or newer store
// refused with an error that names it and the fix.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "common/significance.hpp"
#include "history/entry.hpp"
#include "history/regression.hpp"
#include "history/sqlite.hpp"
#include "history/store.hpp"
#include "support/temp_dir.hpp"

namespace tokbench::history {
namespace {

namespace fs = std::filesystem;

std::vector<double> noisy(size_t n, double center, double spread, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(center, spread);
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

TEST(Regression, TenQuietRunsHoldNoRegression) {
  const auto v = noisy(11, 10.0, 0.05, 1);
  const std::vector<double> base(v.begin(), v.end() - 1);
  const Judgement j = judge("tpot.p99", v.back(), base, 0.05);
  EXPECT_FALSE(j.regression) << j.why;
  ASSERT_TRUE(j.band.has_value());
  EXPECT_TRUE(change_points(v, 0.05).empty());
}

TEST(Regression, OneSlowRunIsNoChangePoint) {
  // Issue 40: six runs of a constant 30 ms simulator on a busy machine, one of whose P99s caught a
  // stall; binary segmentation split it off on both sides and dated two "changes".
  EXPECT_TRUE(change_points({30.4, 30.7, 30.5, 30.6, 34.1, 30.6}, 0.05).empty());
  EXPECT_TRUE(change_points({30.4, 30.7, 30.5, 30.6, 34.1, 30.6, 30.5}, 0.05).empty());
  EXPECT_TRUE(change_points({30.4, 36.0, 30.5, 30.6, 30.3, 30.6, 30.5, 30.4}, 0.05).empty());
  // The newest run alone is check's to judge; a level needs two runs of it.
  EXPECT_TRUE(change_points({30.4, 30.7, 30.5, 30.6, 30.3, 34.1}, 0.05).empty());
  // Two runs at a new level are a change, dated to the first of them.
  EXPECT_EQ(change_points({30.4, 30.7, 30.5, 30.6, 30.3, 34.1, 34.3}, 0.05),
            std::vector<size_t>{5});
  // A slow run inside the new level's pair is not a level: one of the two is back in the band.
  EXPECT_TRUE(change_points({30.4, 30.7, 30.5, 30.6, 30.3, 34.1, 30.5}, 0.05).empty());
}

TEST(Regression, TenPercentSlowerIsFlaggedAndDated) {
  auto v = noisy(10, 10.0, 0.05, 2);
  for (double x : noisy(3, 11.0, 0.05, 3)) v.push_back(x);  // runs 10, 11, 12: 10% slower
  const std::vector<double> base(v.end() - 11, v.end() - 1);
  const Judgement j = judge("tpot.p99", v.back(), base, 0.05);
  EXPECT_TRUE(j.regression) << j.why;
  EXPECT_NE(j.why.find("tpot.p99 regressed"), std::string::npos) << j.why;
  EXPECT_EQ(change_points(v, 0.05), std::vector<size_t>{10})
      << "the step is dated to the first slower run";
  // A throughput falls when it gets worse: 10% more is an improvement, 10% less a regression.
  EXPECT_FALSE(judge("output_token_throughput", 110, {100, 101, 99, 100}, 0.05).regression);
  EXPECT_TRUE(judge("output_token_throughput", 90, {100, 101, 99, 100}, 0.05).regression);
  // So does accuracy (--check-answers): answering worse is the regression.
  EXPECT_TRUE(judge("accuracy", 0.70, {0.82, 0.81, 0.83, 0.82}, 0.05).regression);
  EXPECT_FALSE(judge("accuracy", 0.90, {0.82, 0.81, 0.83, 0.82}, 0.05).regression);
}

TEST(Regression, AChangeInsideTheNoiseIsNotFlagged) {
  // 6% worse, beyond the 5% threshold, but the baseline itself swings by ±10%.
  const std::vector<double> base{10.0, 11.0, 9.0, 10.5, 9.5, 10.8, 9.2, 10.0, 11.1, 8.9};
  const Judgement j = judge("tpot.p99", 10.6, base, 0.05);
  EXPECT_TRUE(j.beyond_threshold);
  EXPECT_FALSE(j.outside_band);
  EXPECT_FALSE(j.regression) << j.why;
  EXPECT_NE(j.why.find("inside the baseline's noise"), std::string::npos) << j.why;
  // Beyond the band and the threshold, but the records say the distributions are the same.
  const Judgement k = judge("tpot.p99", 12.0, {10.0, 10.1, 9.9, 10.0}, 0.05, 0.4);
  EXPECT_FALSE(k.regression) << k.why;
  EXPECT_NE(k.why.find("not significant per request"), std::string::npos) << k.why;
  // Too short a baseline is said, never judged.
  EXPECT_FALSE(judge("tpot.p99", 20, {10, 10}, 0.05).regression);
}

TEST(Regression, TypicalRunsArePooledSoOneStalledWaveCannotVeto) {
  // Run-level TPOT medians; run 4 lies nearest the median, then run 6 (a tie with run 1: the
  // newer), then run 1.
  const std::vector<double> runs{10.5, 10.25, 9.5, 10.75, 10.0, 9.25, 9.75};
  const auto band = robust_band(runs);
  ASSERT_TRUE(band);
  EXPECT_EQ(typical_runs(runs, band->median), (std::vector<size_t>{4, 6, 1}));
  EXPECT_EQ(typical_runs({10.0, 11.0}, 10.0).size(), 2u) << "fewer runs than kPooledRuns: all";
  // The case CI met (2026-12-04): the typical run's first wave of 4 requests stalled (21.2 ms
  // each, its median still 10 ms); the newest run is 30% slower on every request.
  std::vector<double> stalled(4, 21.2), quiet;
  for (int i = 0; i < 8; ++i) stalled.push_back(9.8 + 0.05 * i);
  for (int i = 0; i < 12; ++i) quiet.push_back(9.7 + 0.05 * i);
  std::vector<double> newest;
  for (int i = 0; i < 12; ++i) newest.push_back(12.6 + 0.035 * i);
  const double alone = metrics::mann_whitney(stalled, newest).p_value;
  EXPECT_GT(alone, 0.05) << "against the one stalled run, a real step reads as noise";
  std::vector<double> pooled = stalled;
  for (int r = 0; r < 2; ++r) pooled.insert(pooled.end(), quiet.begin(), quiet.end());
  EXPECT_LT(metrics::mann_whitney(pooled, newest).p_value, 0.01)
      << "pooled over three typical runs, the step is significant";
  // An unchanged newest run stays insignificant against the same pool.
  EXPECT_GT(metrics::mann_whitney(pooled, quiet).p_value, 0.05);
}

std::string fmt_name(int i) { return "run-" + std::string(i < 10 ? "0" : "") + std::to_string(i); }

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::fresh_test_dir("tokbench_history"); }
  void TearDown() override { fs::remove_all(dir_); }

  // A finished run folder as `run` leaves it, as far as the store reads it (result.json).
  fs::path folder(const std::string& name, double tpot_p99, const std::string& verdict = "VALID") {
    const fs::path d = dir_ / name;
    fs::create_directories(d);
    std::ofstream(d / "result.json")
        << R"({"tool":{"version":"0.1.0","git_hash":"abc"},"verdict":{"status":")" << verdict
        << R"("},"interrupted":false,"run":{"run_id":")" << name
        << R"(","started_at":"2026-12-02T10:00:)" << name.substr(name.size() - 2)
        << R"(+0000","target_url":"http://127.0.0.1:1/v1/chat/completions","model":"m","dataset":"gsm8k"},)"
        << R"("config":{"endpoint":"chat","concurrency":8,"request_rate":0,"max_tokens":256,"stream":true,)"
        << R"("labels":["hw=h200"]},"metrics":{"TPOT":{"mean":1,"median":2,"p99":)" << tpot_p99
        << R"(,"n":10},"TTFT":null},"common":{"output_token_throughput":812.5}})";
    return d;
  }
  fs::path dir_;
};

TEST_F(StoreTest, RecordsReadsBackAndRebuildsFromFolders) {
  const std::string path = (dir_ / "h.db").string();
  {
    Store s(path, true);
    for (int i = 0; i < 3; ++i) s.record(read_entry(folder(fmt_name(i), 10 + i)));
  }
  Store s(path, false);
  const auto runs = s.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].entry.run_id, "run-00");
  EXPECT_EQ(runs[0].entry.label("hw"), "h200");
  EXPECT_EQ(runs[0].entry.api, "chat");
  EXPECT_EQ(runs[0].entry.concurrency, 8);
  const auto tpot = s.metric("tpot.p99");
  EXPECT_EQ(tpot.at(runs[2].id), 12);
  EXPECT_EQ(s.metric("tpot.p50").at(runs[0].id), 2) << "median is stored as p50";
  EXPECT_EQ(s.metric("output_token_throughput").at(runs[1].id), 812.5);
  EXPECT_TRUE(s.metric("ttft.p99").empty()) << "a row that does not apply is not a value";
  // Recording a folder again replaces its row: the store is an index of folders.
  s.record(read_entry(dir_ / "run-01"));
  EXPECT_EQ(s.runs().size(), 3u);
  // A new store from the folders alone holds the same.
  Store again((dir_ / "rebuilt.db").string(), true);
  for (const auto& r : runs) again.record(read_entry(r.entry.folder));
  EXPECT_EQ(again.metric("tpot.p99").size(), 3u);
  EXPECT_EQ(again.find("run-02")->entry.folder, runs[2].entry.folder);
}

TEST_F(StoreTest, SeveralWritersAtOnce) {
  const std::string path = (dir_ / "h.db").string();
  Store(path, true);  // made once; the writers open it on their own connections
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      Store s(path, false);
      for (int i = 0; i < 10; ++i) s.record(read_entry(folder(fmt_name(t * 10 + i), 10)));
    });
  }
  for (auto& w : writers) w.join();
  EXPECT_EQ(Store(path, false).runs().size(), 40u);
}

TEST_F(StoreTest, DamagedNewerOrMissingStoresAreNamedWithTheFix) {
  const fs::path bad = dir_ / "bad.db";
  std::ofstream(bad) << std::string(4096, 'x');
  try {
    Store s(bad.string(), true);
    FAIL() << "a damaged store opened";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(bad.string()), std::string::npos) << what;
    EXPECT_NE(what.find("rebuild it from the run folders"), std::string::npos) << what;
  }
  const std::string newer = (dir_ / "newer.db").string();
  {
    Database db(newer, true);
    db.exec("PRAGMA user_version = 99");
  }
  try {
    Store s(newer, false);
    FAIL() << "a newer store opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("newer tokbench (schema 99"), std::string::npos)
        << e.what();
  }
  try {
    Store s((dir_ / "none.db").string(), false);
    FAIL() << "a missing store opened for reading";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no results store at"), std::string::npos) << e.what();
  }
  // Issue 41: an SQLite file of something else is named and never adopted (tokbench's tables were
  // added to it); a store missing one of its tables is damaged, not "cannot read it"; a FIFO is
  // refused rather than read for ever.
  const std::string foreign = (dir_ / "notes.db").string();
  Database(foreign, true).exec("CREATE TABLE notes (x TEXT)");
  try {
    Store s(foreign, true);
    FAIL() << "a foreign database was adopted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is an SQLite database of something else (its tables: "
                                         "notes): tokbench will not add its own to it"),
              std::string::npos)
        << e.what();
  }
  {
    Database db(foreign, false);
    Statement t = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'runs'");
    ASSERT_TRUE(t.step());
    EXPECT_EQ(t.integer(0), 0) << "tokbench's tables were added to it";
  }
  const std::string dropped = (dir_ / "dropped.db").string();
  Store(dropped, true);
  Database(dropped, false).exec("DROP TABLE metrics");
  try {
    Store s(dropped, false);
    FAIL() << "a store without its metrics table opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged: its table 'metrics' is missing: move it "
                                         "aside and rebuild it"),
              std::string::npos)
        << e.what();
  }
  const fs::path fifo = dir_ / "fifo.db";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  try {
    Store s(fifo.string(), true);
    FAIL() << "a FIFO opened as a store";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a regular file (it is a FIFO)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_label("novalue", "--label"), std::invalid_argument);
  EXPECT_EQ(parse_label("hw=h200", "--label"), (std::pair<std::string, std::string>{"hw", "h200"}));
}

}  // namespace
}  // namespace tokbench::history
