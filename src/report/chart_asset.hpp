#pragma once
// report/chart_asset: the embedded chart library's source text.
#include <string_view>

namespace tokbench::report {

/// echarts.min.js, as pinned by web/package-lock.json.
std::string_view chart_library();

}  // namespace tokbench::report
