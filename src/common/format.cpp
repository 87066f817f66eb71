#include "common/format.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tokbench {

double round_to(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

std::string format_short(double v) {
  const double a = std::fabs(v);
  if (a >= 10000) return fmt::format("{:.0f}", v);
  if (a >= 1000) return fmt::format("{:.1f}", v);
  if (a >= 100) return fmt::format("{:.2f}", v);
  if (a >= 0.1 || a == 0) return fmt::format("{:.3f}", v);
  return fmt::format("{:.2g}", v);
}

std::string format_round4(double v) {
  if (!std::isfinite(v)) return "nan";
  std::string s = fmt::format("{:.4f}", round_to(v, 4));
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.push_back('0');
  if (s == "-0.0") s = "0.0";
  return s;
}

}  // namespace tokbench
