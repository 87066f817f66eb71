// --cancel-rate as a user runs it (issue 43, item 4): against the simulator, the asked share of
// requests is cancelled (within the binomial interval), counted apart in result.json and on the
// console — neither successes nor failures — the run is VALID, and the simulator's abort counter
// agrees with the client; bad spellings are refused naming the fix.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "plan/plan.hpp"
#include "runfolder/files.hpp"
#include "support/run_test.hpp"
#include "support/server_counter.hpp"
#include "support/sim_process.hpp"

namespace tokbench {
namespace {

class CancelRunTest : public testing::RunTest {};

TEST_F(CancelRunTest, TheAskedShareIsCancelledCountedApartAndTheServerAgrees) {
  testing::Sim sim({"--ttft-ms", "5", "--tpot-ms", "1"});
  const runner::RunConfig c = testing::RunSettings()
                                  .url(sim.url())
                                  .concurrency(16)
                                  .prompts(200)
                                  .max_tokens(48)
                                  .ignore_eos()
                                  .with([](runner::RunConfig& r) { r.load.cancel_rate = 0.2; })
                                  .build();
  const runner::RunOutcome out = run(c);
  EXPECT_TRUE(testing::IsValidUnlessBusy(out));
  int64_t cancelled = 0, planned = 0, ok = 0;
  for (const auto& r : records(out)) {
    planned += r.cancel_planned;
    if (r.outcome == record::Outcome::ClientCancelled) {
      ++cancelled;
      EXPECT_TRUE(r.cancel_planned);
      EXPECT_EQ(std::count_if(r.chunks.begin(), r.chunks.end(),
                              [](const auto& e) { return e.has_text(); }),
                16);  // the default --cancel-after 16tok
    } else {
      EXPECT_EQ(r.outcome, record::Outcome::Ok) << r.error;
      ++ok;
    }
  }
  // 20% of 200 ± 3 standard deviations of the binomial; every drawn request was cancelled (its
  // answer of 48 tokens outlasts 16).
  EXPECT_NEAR(static_cast<double>(cancelled), 40, 3 * std::sqrt(200 * 0.2 * 0.8));
  EXPECT_EQ(cancelled, planned);
  EXPECT_EQ(ok + cancelled, 200);
  auto doc = result(out);
  EXPECT_EQ(doc["common"]["cancelled_requests"].get_double().value(), cancelled);
  EXPECT_EQ(doc["common"]["success_requests"].get_double().value(), ok);
  EXPECT_EQ(doc["common"]["failed_requests"].get_double().value(), 0);
  EXPECT_EQ(doc["common"]["total_requests"].get_double().value(), ok);  // apart: not in the total
  bool noted = false;
  for (auto n : doc["verdict"]["notes"].get_array()) {
    const std::string_view s = n.get_string().value();
    noted |= s.find("cancelled by the client as asked (--cancel-rate 0.2 --cancel-after 16tok)") !=
             std::string_view::npos;
  }
  EXPECT_TRUE(noted);
  // The server's side: the simulator counts each one under finished_reason="abort".
  EXPECT_EQ(testing::aborted_at(sim.url("/metrics"), cancelled), cancelled);
  const std::string server = runfolder::read_file(out.run_dir / "server.json");
  EXPECT_NE(server.find("\"requests aborted\""), std::string::npos) << server;
  // The page draws them apart (status 2 in its rows: neither failed nor succeeded) and says so.
  const std::string page =
      runfolder::read_file(out.run_dir / "performances/tokbench-mock/builtin_plot.html");
  const std::string open_tag = "id=\"tokbench-data\">";
  const size_t from = page.find(open_tag) + open_tag.size();
  const std::string data = page.substr(from, page.find("</script>", from) - from);
  simdjson::dom::parser page_parser;
  int64_t drawn_apart = 0, drawn_failed = 0;
  const simdjson::dom::element page_data = page_parser.parse(data).value();
  const simdjson::dom::array rows = page_data["requests"].get_array().value();
  for (auto row : rows) {
    const int64_t status = row.at(3).get_int64().value();
    drawn_apart += status == 2;
    drawn_failed += status == 0;
  }
  EXPECT_EQ(drawn_apart, cancelled);
  EXPECT_EQ(drawn_failed, 0);
  EXPECT_NE(page.find(fmt::format("{} cancelled by the client", cancelled)), std::string::npos);
  // `report` reads the folder back to the same counts, said on the console.
  char* text = nullptr;
  size_t size = 0;
  std::FILE* console = open_memstream(&text, &size);
  const runner::RunOutcome again = runner::recompute(out.run_dir, std::nullopt, console);
  std::fclose(console);
  const std::string said(text, size);
  std::free(text);
  EXPECT_EQ(again.verdict.valid, out.verdict.valid);
  EXPECT_NE(said.find(fmt::format("succeeded ({} more cancelled by the client)", cancelled)),
            std::string::npos)
      << said;
}

TEST(CancelRunFlags, BadValuesAreRefusedNamingTheFix) {
  auto problems = [](auto edit) {
    runner::RunConfig c;
    c.load.cancel_rate = 0.2;
    edit(c);
    std::string all;
    for (const auto& e : runner::validate(c)) all += e + "\n";
    return all;
  };
  EXPECT_NE(problems([](auto& c) { c.load.cancel_after = "5"; }).find("--cancel-after 5"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) { c.load.cancel_rate = 20; }).find("--cancel-rate"),
            std::string::npos);
  EXPECT_NE(problems([](auto& c) { c.request.stream = false; }).find("needs a stream"),
            std::string::npos);
  EXPECT_EQ(problems([](auto& c) {
              c.request.stream = false;
              c.load.cancel_after = "500ms";
            }),
            "");
  EXPECT_NE(problems([](auto& c) { c.workload.turns = 3; }).find("--cancel-rate cancels single"),
            std::string::npos);
}

}  // namespace
}  // namespace tokbench
