#pragma once
// report/chart_asset: the browser code of tokbench's pages, embedded in the binary at build time
// so every page works offline and running tokbench never needs Node or a CDN: the chart library
// (ECharts, from web/node_modules, pinned by web/package-lock.json) and each page's own script
// (web/*.js).
#include <string_view>

namespace tokbench::report {

/// echarts.min.js, as pinned by web/package-lock.json.
std::string_view chart_library();

/// A page's own script, from web/.
enum class WebAsset {
  Report,   ///< web/report.js: the run report (<ds>_plot.html)
  Sweep,    ///< web/sweep.js: sweep/sweep.html
  Search,   ///< web/search.js: search/search.html
  Compare,  ///< web/compare.js: compare.html's load-point curves
  History,  ///< web/history.js: the results store's dashboard (tokbench history page)
  Grid,     ///< web/grid.js: a server grid's grid/grid.html
  Live,     ///< web/live.js: --live's page, served during the run (live/live_server)
};
std::string_view web_asset(WebAsset which);

}  // namespace tokbench::report
