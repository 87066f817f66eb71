// report/chart_asset: the chart library and the pages' scripts, each file embedded whole with
// .incbin (CMake passes the paths and rebuilds this file when one changes).
#include "report/chart_asset.hpp"

#define TOKBENCH_STR2(x) #x
#define TOKBENCH_STR(x) TOKBENCH_STR2(x)

// One embedded file: tokbench_<name>_begin .. tokbench_<name>_end in .rodata.
#define TOKBENCH_EMBED(name, path)                 \
  asm(".section .rodata\n"                         \
      ".global tokbench_" #name                    \
      "_begin\n"                                   \
      "tokbench_" #name                            \
      "_begin:\n"                                  \
      ".incbin \"" path                            \
      "\"\n"                                       \
      ".global tokbench_" #name                    \
      "_end\n"                                     \
      "tokbench_" #name                            \
      "_end:\n"                                    \
      ".previous\n");                              \
  extern "C" const char tokbench_##name##_begin[]; \
  extern "C" const char tokbench_##name##_end[];

TOKBENCH_EMBED(echarts, TOKBENCH_STR(TOKBENCH_ECHARTS_JS))
TOKBENCH_EMBED(report_js, TOKBENCH_STR(TOKBENCH_WEB_DIR) "/report.js")
TOKBENCH_EMBED(sweep_js, TOKBENCH_STR(TOKBENCH_WEB_DIR) "/sweep.js")
TOKBENCH_EMBED(search_js, TOKBENCH_STR(TOKBENCH_WEB_DIR) "/search.js")
TOKBENCH_EMBED(compare_js, TOKBENCH_STR(TOKBENCH_WEB_DIR) "/compare.js")
TOKBENCH_EMBED(history_js, TOKBENCH_STR(TOKBENCH_WEB_DIR) "/history.js")
TOKBENCH_EMBED(grid_js, TOKBENCH_STR(TOKBENCH_WEB_DIR) "/grid.js")
TOKBENCH_EMBED(live_js, TOKBENCH_STR(TOKBENCH_WEB_DIR) "/live.js")

namespace tokbench::report {

namespace {

std::string_view view(const char* begin, const char* end) {
  return {begin, static_cast<size_t>(end - begin)};
}

}  // namespace

std::string_view chart_library() { return view(tokbench_echarts_begin, tokbench_echarts_end); }

std::string_view web_asset(WebAsset which) {
  switch (which) {
    case WebAsset::Report:
      return view(tokbench_report_js_begin, tokbench_report_js_end);
    case WebAsset::Sweep:
      return view(tokbench_sweep_js_begin, tokbench_sweep_js_end);
    case WebAsset::Search:
      return view(tokbench_search_js_begin, tokbench_search_js_end);
    case WebAsset::Compare:
      return view(tokbench_compare_js_begin, tokbench_compare_js_end);
    case WebAsset::History:
      return view(tokbench_history_js_begin, tokbench_history_js_end);
    case WebAsset::Grid:
      return view(tokbench_grid_js_begin, tokbench_grid_js_end);
    case WebAsset::Live:
      return view(tokbench_live_js_begin, tokbench_live_js_end);
  }
  return {};
}

}  // namespace tokbench::report
