#pragma once
// common/format: number formatting shared by tables, CSV and JSON reports.
#include <string>

namespace tokbench {

/// Python's str(round(v, 4)): at most 4 decimals, trailing zeros dropped, but always one
/// decimal ("200.0"). This is how AISBench prints every statistic, so our tables read the same.
std::string format_round4(double v);

/// A console number: 4 significant-ish digits ("30.285", "1305.2", "5.000"); files keep 4 decimals.
std::string format_short(double v);

/// Rounds half away from zero to `decimals` places (numpy rounds half to even; the difference
/// only shows on exact binary ties, which measured values never are).
double round_to(double v, int decimals);

}  // namespace tokbench
