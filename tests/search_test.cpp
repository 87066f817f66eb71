// series/search: bracket-then-bisect on fake servers of known capacity (integer and rate, every
// probe failing, every probe passing), the too-close-to-call rule, and a real search against the
// simulator whose capacity --max-num-seqs sets: it finds that capacity, probe folders included.
#include "series/search.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <filesystem>

#include "client/engine.hpp"
#include "common/exit_codes.hpp"
#include "support/in_process_run.hpp"
#include "support/run_test.hpp"
#include "support/sim_process.hpp"

namespace tokbench::runner {
namespace {

namespace fs = std::filesystem;

// A fake server: loads up to `capacity` pass.
std::function<Probe(double)> capacity(double c, int* probes = nullptr) {
  return [c, probes](double x) {
    if (probes) ++*probes;
    Probe p;
    p.load = x;
    p.pass = x <= c;
    return p;
  };
}
auto never = [] { return false; };

TEST(Search, FindsAnIntegerCapacityExactly) {
  for (double cap : {1.0, 4.0, 37.0, 100.0, 1023.0}) {
    int probes = 0;
    const SearchResult r =
        bracket_and_bisect({true, 1, 1024, 1, false}, capacity(cap, &probes), never);
    ASSERT_TRUE(r.answer) << cap;
    EXPECT_EQ(*r.answer, cap);
    EXPECT_LE(probes, 2 * 11 + 1) << cap;  // log2 bracketing plus log2 bisection
    EXPECT_NE(r.text.find("highest load meeting every SLO is"), std::string::npos) << r.text;
  }
}

// Issue 40: an interrupted search has no answer, however far it got; it says what it had seen.
TEST(Search, AnInterruptedSearchAnswersNothing) {
  int probes = 0;
  const SearchResult r = bracket_and_bisect({true, 1, 1024, 1, false}, capacity(37, &probes),
                                            [&probes] { return probes >= 5; });
  EXPECT_EQ(probes, 5);
  EXPECT_FALSE(r.answer) << r.text;
  EXPECT_EQ(r.text,
            "no answer: the search was interrupted after 5 probe(s) (so far 16 met every "
            "SLO; the search had not closed in on the highest); rerun with --resume to "
            "complete it");
}

TEST(Search, RateToARelativeResolutionAndTheEdges) {
  const SearchResult r = bracket_and_bisect({false, 1, 1024, 0.05, true}, capacity(13.7), never);
  ASSERT_TRUE(r.answer);
  EXPECT_LE(*r.answer, 13.7);
  EXPECT_GE(*r.answer, 13.7 / 1.05);
  const SearchResult none = bracket_and_bisect({true, 2, 64, 1, false}, capacity(1), never);
  EXPECT_FALSE(none.answer);
  EXPECT_NE(none.text.find("lower --search-min"), std::string::npos);
  // A first probe that failed because its run was INVALID: lowering the load is not the advice.
  const SearchResult invalid = bracket_and_bisect(
      {true, 2, 64, 1, false},
      [](double x) {
        Probe p;
        p.load = x;
        p.verdict = "INVALID";
        p.why = "3 of 40 requests failed (3 http_500)";
        return p;
      },
      never);
  EXPECT_FALSE(invalid.answer);
  EXPECT_NE(invalid.text.find("the first probe (2) was INVALID (3 of 40 requests failed"),
            std::string::npos)
      << invalid.text;
  EXPECT_EQ(invalid.text.find("lower --search-min"), std::string::npos) << invalid.text;
  const SearchResult all = bracket_and_bisect({true, 1, 64, 1, false}, capacity(1e9), never);
  EXPECT_EQ(*all.answer, 64);
  EXPECT_NE(all.text.find("raise --search-max"), std::string::npos);
}

TEST(Search, TooCloseToCallIsRunTwiceAndDisagreementFails) {
  const auto slos = metrics::parse_run_slos("ttft.p99<=100ms");
  int runs = 0;
  auto flaky = [&] {  // 98 ms then 103 ms: both within 5% of the bound
    Probe p;
    p.label = "c8";
    p.values = {runs++ == 0 ? 98.0 : 103.0};
    p.pass = *p.values[0] <= 100;
    return p;
  };
  const Probe p = decide_probe(flaky, slos, 0.05, never);
  EXPECT_EQ(runs, 2);
  EXPECT_TRUE(p.uncertain);
  EXPECT_FALSE(p.pass);
  EXPECT_EQ(p.label, "c8,c8");
  runs = 0;
  auto clear = [&] {
    ++runs;
    Probe q;
    q.values = {50.0};
    q.pass = true;
    return q;
  };
  EXPECT_TRUE(decide_probe(clear, slos, 0.05, never).pass);
  EXPECT_EQ(runs, 1);  // far from the bound: one run
}

TEST(Search, FindsTheSimulatorsCapacity) {
  testing::Sim sim({"--max-num-seqs", "4", "--ttft-ms", "10", "--tpot-ms", "4"});
  const fs::path dir = testing::fresh_test_dir("tokbench_search");
  auto c = testing::RunSettings()
               .url(sim.url())
               .with([&](auto& x) { x.experiment.search = SearchAxis::MaxConcurrency; })
               .build();
  // Unqueued TTFT is ~10 ms; above 4 in flight a request waits for a seat: a quarter of a request
  // (~32 ms) when the requests are spread out, up to a whole one (~130 ms) in lockstep waves.
  c.experiment.slo = "ttft.p90<=25ms";
  c.experiment.search_max = 16;
  c.load.num_prompts = 24;
  c.request.max_tokens = 30;
  c.request.ignore_eos = true;
  const RunOutcome out = testing::run_in_process(c, dir);  // run_benchmark hands it to run_search
  EXPECT_TRUE(testing::ExitedValidUnlessBusy(out));
  simdjson::dom::parser parser;
  auto s = parser.load((out.run_dir / "search" / "search.json").string()).value();
  EXPECT_EQ(double(s["answer"]), 4);
  size_t probes = 0;
  for (auto p : simdjson::dom::array(s["history"])) {
    ++probes;
    const double load = double(p["load"]);
    EXPECT_EQ(bool(p["pass"]), load <= 4) << load;
    const std::string folder{std::string_view(p["folder"])};
    EXPECT_TRUE(fs::exists(out.run_dir / folder / "end.json"))
        << folder;  // each probe is a full run folder
  }
  EXPECT_GE(probes, 5u);  // 1, 2, 4, 8, then bisection
  EXPECT_TRUE(fs::exists(out.run_dir / "search" / "search.html"));
  fs::remove_all(dir);
}

// A first probe that is INVALID (here every third request fails): no answer, and the search exits
// as an INVALID run does (4: its reports are written), so a script tells it from a failure (1).
TEST(Search, AnInvalidFirstProbeExitsAsAnInvalidRun) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "2", "--fail-every", "3"});
  const fs::path dir = testing::fresh_test_dir("tokbench_search_invalid");
  auto c = testing::RunSettings()
               .url(sim.url())
               .with([&](auto& x) { x.experiment.search = SearchAxis::MaxConcurrency; })
               .build();
  c.experiment.slo = "ttft.p90<=500ms";
  c.experiment.search_max = 4;
  c.load.num_prompts = 12;
  c.request.max_tokens = 8;
  const RunOutcome out = testing::run_in_process(c, dir);
  EXPECT_EQ(out.exit_code, kExitInvalid);
  ASSERT_FALSE(out.verdict.reasons.empty());
  EXPECT_NE(out.verdict.reasons.front().find("was INVALID"), std::string::npos)
      << out.verdict.reasons.front();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tokbench::runner
