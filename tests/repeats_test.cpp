// series/repeats: --repeats N against the simulator — N normal run folders, every headline
// metric as mean ± a Student-t interval over the runs (each run's value kept), and `compare`
// of two series testing per-run values with Welch's t-test and applying --fail-if to the means.
#include "series/repeats.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <vector>

#include "client/engine.hpp"
#include "compare/compare.hpp"
#include "runfolder/run_folder.hpp"
#include "runfolder/series.hpp"
#include "support/in_process_run.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench::runner {
namespace {

namespace fs = std::filesystem;

TEST(Repeats, SeriesOfRunsWithIntervalsAndCompareBetweenSeries) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "2"});
  const fs::path dir = testing::fresh_test_dir("tokbench_repeats");
  auto series = [&](int64_t max_tokens) {
    auto c = testing::RunSettings()
                 .url(sim.url())
                 .concurrency(2)
                 .prompts(8)
                 .max_tokens(max_tokens)
                 .ignore_eos()
                 .with([&](auto& x) { x.experiment.repeats = 3; })
                 .build();
    return testing::run_in_process(c, dir).run_dir;
  };
  const fs::path a = series(10), b = series(20);
  for (int i = 1; i <= 3; ++i)
    EXPECT_TRUE(runfolder::load_run_folder(a / ("run-" + std::to_string(i))).end.has_value()) << i;
  const auto s = runfolder::load_repeat_series(a);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->values.at("e2el_mean_ms").size(), 3u);
  EXPECT_EQ(s->level, 0.95);
  // E2EL ≈ 5 + 9 × 2 ms. The written interval (repeats/summary.json) is checked against one
  // computed here, independently of the product's function: mean ± t(0.975, 2) × s/√3 with s of
  // ddof 1, t = 4.302652729911275 (Student's t table, 2 degrees of freedom).
  simdjson::dom::parser parser;
  const simdjson::dom::element e2el =
      parser.load((a / "repeats" / "summary.json").string()).value()["metrics"]["e2el_mean_ms"];
  std::vector<double> v;
  for (auto x : simdjson::dom::array(e2el["values"])) v.push_back(x.get_double().value());
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v, s->values.at("e2el_mean_ms"));  // each run's value, as each run's result.json has it
  const double mean = (v[0] + v[1] + v[2]) / 3;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double half = 4.302652729911275 * std::sqrt(ss / 2) / std::sqrt(3.0);
  EXPECT_NEAR(e2el["mean"].get_double().value(), mean, 1e-9);
  EXPECT_NEAR(e2el["half_width"].get_double().value(), half, 1e-9 + 1e-9 * half);
  EXPECT_NEAR(e2el["ci_low"].get_double().value(), mean - half, 1e-9 + 1e-9 * half);
  EXPECT_NEAR(e2el["ci_high"].get_double().value(), mean + half, 1e-9 + 1e-9 * half);
  EXPECT_NEAR(mean, 23, 5);
  // Twice the tokens: E2EL rises well beyond the runs' spread, and a threshold on the mean trips.
  compare::CompareOptions o;
  o.runs = {a.string(), b.string()};
  o.fail_if = {"e2el.mean > +20%"};
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  EXPECT_EQ(compare::compare_runs(o, out), 3);
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("e2el_mean_ms"), std::string::npos) << printed;
  EXPECT_NE(printed.find("significant"), std::string::npos) << printed;
  EXPECT_NE(printed.find("FAIL e2el.mean > +20%"), std::string::npos) << printed;
  o.runs = {a.string(),
            (b / "run-1").string()};  // a series against a single run: refused, with the fix
  EXPECT_THROW(compare::compare_runs(o, stdout), std::invalid_argument);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tokbench::runner
