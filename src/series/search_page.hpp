#pragma once
// series/search_page: what an SLO search writes — search/search.json (the answer, its rule and
// resolution, every probe with its SLO values) and search/search.html (the probes' table and
// their SLO values against the bounds, ECharts embedded).
#include <string>
#include <vector>

#include "series/slo_search.hpp"

namespace tokbench::report {

/// What the search's JSON says about how it was asked.
struct SearchAsked {
  std::string search;  ///< max-concurrency | max-rate
  double margin = 0;   ///< --search-margin
};

std::string search_json(const metrics::SearchResult& r, const SearchAsked& asked,
                        const std::vector<metrics::RunSlo>& slos,
                        const metrics::SearchSpace& space);
/// The page, around `json` (search_json's).
std::string search_page(const metrics::SearchResult& r, const std::string& json,
                        const std::vector<metrics::RunSlo>& slos);

}  // namespace tokbench::report
