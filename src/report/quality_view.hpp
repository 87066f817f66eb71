#pragma once
// report/quality_view: metrics/quality's counts in each of a run's views — result.json's
// "quality" object, <ds>_quality.csv, the console's lines and the page's table. Formats only.
#include <string>
#include <vector>

#include "common/json_writer.hpp"
#include "metrics/quality.hpp"

namespace tokbench::report {

/// Whether outputs were read (--check-answers, --determinism-probe): the console and the page then
/// show the lines even when every count is 0; otherwise a non-zero count reaches them as a warning.
bool outputs_read(const metrics::Quality& q);
/// "quality": {answers: {...}, integrity: {...}, determinism: {...}} (the key included).
void write_quality_json(JsonWriter& w, const metrics::Quality& q);
/// check,value,low,high,count,of — one row per count (accuracy's value and interval; the others'
/// counts).
std::string quality_csv(const metrics::Quality& q);
/// The console's and the page's lines: "answers: ...", "integrity: ...", "determinism: ...".
std::vector<std::string> quality_lines(const metrics::Quality& q);

}  // namespace tokbench::report
