// history/page: `tokbench history page` — the results store as one self-contained HTML page (the
// chart library embedded, no network): a panel per scenario and metric (web/history.js draws them).
#include <fmt/format.h>

#include <filesystem>

#include "common/json_writer.hpp"
#include "history/analysis.hpp"
#include "report/chart_asset.hpp"
#include "report/html.hpp"

namespace tokbench::history {

namespace fs = std::filesystem;

namespace {

// The run's own page (<folder>/performances/<model>/<ds>_plot.html) as a file:// link, or "".
std::string run_page(const std::string& folder) {
  std::error_code ec;
  for (const auto& model : fs::directory_iterator(fs::path(folder) / "performances", ec)) {
    for (const auto& f : fs::directory_iterator(model.path(), ec)) {
      const std::string name = f.path().filename().string();
      if (name.size() > 10 && name.ends_with("_plot.html")) return "file://" + f.path().string();
    }
  }
  return {};
}

}  // namespace

std::string history_page(const std::vector<ScenarioAnalysis>& scenarios, double threshold) {
  JsonWriter w;
  int64_t regressions = 0, panel = 0;
  w.begin_object().field("threshold", threshold).key("scenarios").begin_array();
  for (const auto& sc : scenarios) {
    w.begin_object()
        .field("scenario", sc.scenario)
        .field("newest", sc.newest.entry.run_id)
        .key("panels")
        .begin_array();
    for (const auto& m : sc.metrics) {
      w.begin_object().field("id", fmt::format("p{}", panel++)).field("metric", m.metric);
      w.key("points").begin_array();  // [index, value, run id, started at, its page]
      for (size_t i = 0; i < m.series.size(); ++i) {
        const auto& p = m.series[i];
        w.begin_array()
            .value(static_cast<int64_t>(i))
            .value(p.value)
            .value(p.run_id)
            .value(p.started_at)
            .value(run_page(p.folder))
            .end_array();
      }
      w.end_array().key("change_points").begin_array();
      for (size_t i : m.change_points) w.value(static_cast<int64_t>(i));
      w.end_array();
      const bool regression = m.judgement && m.judgement->regression;
      regressions += regression;
      w.field("regression", regression)
          .field("why", m.judgement ? m.judgement->why : "the newest run is not VALID: not judged");
      w.key("band");
      if (m.judgement && m.judgement->band) {
        w.begin_array().value(m.judgement->band->low).value(m.judgement->band->high).end_array();
      } else {
        w.null();
      }
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().field("regressions", regressions).end_object();
  std::string page =
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>tokbench "
      "history</title><style>"
      "body{font-family:sans-serif;margin:16px;color:#222}.panel{width:100%;height:340px}"
      "h2{font-size:15px;margin-top:28px}</style><script>";
  page += report::chart_library();
  page += "</script></head><body><h1>tokbench history</h1>";
  page += fmt::format(
      "<p>{} scenario(s), {} regression(s). Each panel: a metric over the scenario's VALID runs, "
      "oldest "
      "first; the green band is the baseline's median ± {} scaled MADs; dashed lines are change "
      "points "
      "(binary segmentation, steps beyond {:.1f}% and the noise band, two runs or more on each "
      "side); a red mark is the newest run's regression. "
      "Click a "
      "point for its run page.</p>",
      scenarios.size(), regressions, kBandMads, 100 * threshold);
  page += "<div id=\"panels\"></div><script type=\"application/json\" id=\"history-data\">";
  page += report::script_safe(w.take());
  page += "</script><script>";
  page += report::web_asset(report::WebAsset::History);
  page += "</script></body></html>\n";
  return page;
}

}  // namespace tokbench::history
