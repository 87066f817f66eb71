// cli/history_command: `tokbench history add|list|show|trend|check|page` — the results store across
// runs (history/): record folders, list them by scenario, a metric's trend, regression checks.
#include <memory>

#include "cli/commands.hpp"
#include "history/commands.hpp"

namespace tokbench::cli {

namespace {

void add_store(CLI::App* cmd, history::HistoryOptions& o) {
  cmd->add_option("--history", o.store,
                  "the results store (an SQLite file); default: $TOKBENCH_HISTORY");
}

void add_scenario(CLI::App* cmd, history::HistoryOptions& o) {
  cmd->add_option("--scenario-keys", o.scenario_keys,
                  "labels that also tell scenarios apart (model, API, dataset, lengths, stream and "
                  "load point always do)")
      ->delimiter(',');
  cmd->add_option(
      "--where", o.where,
      "only runs with this scenario fact or label, e.g. model=m or hardware=h200 (repeatable)");
}

}  // namespace

void add_history(CLI::App& app, std::function<int()>& action) {
  auto o = std::make_shared<history::HistoryOptions>();
  auto* h = app.add_subcommand(
      "history", "the results store across runs: record folders, trends, regression checks");
  h->require_subcommand(1);
  auto* add = h->add_subcommand("add",
                                "record run folders in the store (a sweep's, search's or series' "
                                "root adds its points); rebuilds it from folders");
  add->add_option("folders", o->folders, "run folders")->required();
  add->add_option("--label", o->labels, "key=value added to each run's labels (repeatable)");
  add_store(add, *o);
  add->callback([&action, o] { action = [o] { return history::history_add(*o, stdout); }; });
  auto* list = h->add_subcommand("list", "the runs in the store, by scenario, oldest first");
  add_store(list, *o);
  add_scenario(list, *o);
  list->callback([&action, o] { action = [o] { return history::history_list(*o, stdout); }; });
  auto* show = h->add_subcommand("show", "one run: its scenario, labels and every metric recorded");
  show->add_option("run", o->run, "an id (history list), a run id or a folder")->required();
  add_store(show, *o);
  show->callback([&action, o] { action = [o] { return history::history_show(*o, stdout); }; });
  auto* trend = h->add_subcommand(
      "trend", "a metric over the VALID runs of each scenario, change points marked");
  trend
      ->add_option("metric", o->metric,
                   "e.g. tpot.p99, ttft.p50, e2el.mean, output_token_throughput")
      ->required();
  trend->add_option("--threshold", o->threshold, "the smallest step marked as a change point")
      ->capture_default_str();
  add_store(trend, *o);
  add_scenario(trend, *o);
  trend->callback([&action, o] { action = [o] { return history::history_trend(*o, stdout); }; });
  auto* check = h->add_subcommand(
      "check", "judge each scenario's newest run against its baseline: exit 3 on a regression");
  check->add_option("--baseline", o->baseline, "earlier VALID runs in the baseline window")
      ->capture_default_str();
  check->add_option("--threshold", o->threshold, "the smallest change that counts, e.g. 5%")
      ->capture_default_str();
  check->add_option("--metric", o->metrics,
                    "a metric to judge (repeatable); default: ttft, tpot and e2el p50 and p99, "
                    "output and request throughput");
  check->add_flag("--json", o->json, "JSON on stdout, for CI");
  add_store(check, *o);
  add_scenario(check, *o);
  check->callback([&action, o] { action = [o] { return history::history_check(*o, stdout); }; });
  auto* page = h->add_subcommand("page",
                                 "write the store as one HTML page: a panel per scenario and "
                                 "metric, bands and changes marked");
  page->add_option("--out", o->page, "the page to write; default: the store's path with .html");
  page->add_option("--baseline", o->baseline, "earlier VALID runs in the baseline window")
      ->capture_default_str();
  page->add_option("--threshold", o->threshold, "the smallest change that counts, e.g. 5%")
      ->capture_default_str();
  page->add_option("--metric", o->metrics,
                   "a metric to draw (repeatable); default: those history check judges");
  page->add_flag("--no-records", o->no_records,
                 "judge by the baseline band alone: do not read the run folders' records");
  add_store(page, *o);
  add_scenario(page, *o);
  page->callback(
      [&action, o] { action = [o] { return history::history_page_command(*o, stdout); }; });
}

}  // namespace tokbench::cli
