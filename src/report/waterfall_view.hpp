#pragma once
// report/waterfall_view: --otlp-receive's waterfall (metrics/waterfall) as result.json's
// "waterfall" object, the console's lines and <ds>_waterfall.csv (one row per joined request);
// its bucket table is report/tables' waterfall_table.
#include <string>
#include <vector>

#include "metrics/waterfall.hpp"

namespace tokbench::report {

std::string waterfall_json(const metrics::Waterfall& w);
/// The join's count and the requests over the budget, for the console and the page.
std::vector<std::string> waterfall_lines(const metrics::Waterfall& w);
std::string waterfall_csv(const metrics::Waterfall& w);

}  // namespace tokbench::report
