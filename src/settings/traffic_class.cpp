#include "settings/traffic_class.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace tokbench::runner {

namespace {

const std::vector<std::string_view> kKeys{"name",    "concurrency", "request-rate", "num-prompts",
                                          "dataset", "priority",    "model",        "extra-body",
                                          "header",  "objective",   "fairness-id",  "slo",
                                          "weight",  "turns",       "arrivals",     "burstiness"};

bool is_key(std::string_view k) { return std::find(kKeys.begin(), kKeys.end(), k) != kKeys.end(); }

// A key's spelling: lower-case letters, digits and '-', from a letter (an SLO's "tpot.p99<=" or a
// JSON object's "\"b\":" is not one).
bool looks_like_key(std::string_view k) {
  return !k.empty() && k.front() >= 'a' && k.front() <= 'z' &&
         std::all_of(k.begin(), k.end(), [](char ch) {
           return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
         });
}

// Splits at the commas that start a key ("key="): the pieces, each "key=value".
std::vector<std::string_view> pieces(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ',') continue;
    const size_t eq = text.find('=', i + 1);
    if (eq == std::string_view::npos || !looks_like_key(text.substr(i + 1, eq - i - 1))) continue;
    out.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  out.push_back(text.substr(start));
  return out;
}

[[noreturn]] void bad(std::string_view cls, std::string_view key, std::string_view value,
                      std::string_view expected) {
  throw std::invalid_argument(fmt::format("--class '{}': {}={} ({})", cls, key, value, expected));
}

template <class T>
T number(std::string_view cls, std::string_view key, std::string_view v,
         std::string_view expected) {
  T out{};
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc{} || end != v.data() + v.size()) bad(cls, key, v, expected);
  return out;
}

// A load key's value: one number, or a list "1,2,4" (a sweep over the class's load).
std::vector<std::string_view> values(std::string_view v) {
  std::vector<std::string_view> out;
  for (size_t at = 0;;) {
    const size_t comma = std::min(v.find(',', at), v.size());
    out.push_back(v.substr(at, comma - at));
    if (comma == v.size()) return out;
    at = comma + 1;
  }
}

}  // namespace

const std::vector<std::string_view>& traffic_class_keys() { return kKeys; }

TrafficClass TrafficClass::at_sweep_point(size_t i) const {
  TrafficClass k = *this;
  if (i < concurrency_sweep.size()) k.concurrency = concurrency_sweep[i];
  if (i < request_rate_sweep.size()) k.request_rate = request_rate_sweep[i];
  k.concurrency_sweep.clear();
  k.request_rate_sweep.clear();
  return k;
}

std::string TrafficClass::sweep_label(size_t i) const {
  std::string out = name;
  if (i < concurrency_sweep.size()) out += fmt::format("-c{}", concurrency_sweep[i]);
  if (i < request_rate_sweep.size()) out += fmt::format("-r{}", request_rate_sweep[i]);
  return out;
}

std::string with_class_key(std::string_view text, std::string_view key, std::string_view value) {
  std::string out;
  bool found = false;
  for (const std::string_view piece : pieces(text)) {
    const bool is = piece.starts_with(key) && piece.size() > key.size() && piece[key.size()] == '=';
    found |= is;
    out += fmt::format("{}{}", out.empty() ? "" : ",",
                       is ? fmt::format("{}={}", key, value) : std::string(piece));
  }
  if (!found) out += fmt::format(",{}={}", key, value);
  return out;
}

size_t class_sweep_points(const std::vector<std::string>& texts) {
  size_t points = 1;
  for (const std::string& text : texts) try {
      points = std::max(points, parse_traffic_class(text).sweep_points());
    } catch (const std::invalid_argument&) {  // plan/ names it
    }
  return points;
}

TrafficClass parse_traffic_class(std::string_view text) {
  TrafficClass c;
  std::vector<std::string_view> seen;
  for (const std::string_view piece : pieces(text)) {
    const size_t eq = piece.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw std::invalid_argument(fmt::format("--class '{}': '{}' is not key=value (keys: {})",
                                              text, piece, fmt::join(kKeys, ", ")));
    const std::string_view key = piece.substr(0, eq), v = piece.substr(eq + 1);
    if (!is_key(key))
      throw std::invalid_argument(fmt::format("--class '{}': unknown key '{}' (keys: {})", text,
                                              key, fmt::join(kKeys, ", ")));
    if (key != "header" && std::find(seen.begin(), seen.end(), key) != seen.end())
      throw std::invalid_argument(fmt::format("--class '{}': {} given twice", text, key));
    seen.push_back(key);
    if (key == "name") {
      const bool fine =
          !v.empty() && v.size() <= 32 && std::all_of(v.begin(), v.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' ||
                   ch == '.';
          });
      if (!fine) bad(text, key, v, "1 to 32 letters, digits, '_', '-' or '.'");
      c.name = v;
    } else if (key == "concurrency") {
      for (const std::string_view one : values(v)) {
        c.concurrency_sweep.push_back(
            number<int>(text, key, one, "an integer >= 1, or a list: 1,2,4"));
        if (c.concurrency_sweep.back() < 1) bad(text, key, v, "an integer >= 1, or a list: 1,2,4");
      }
      c.concurrency = c.concurrency_sweep.front();
      if (c.concurrency_sweep.size() == 1) c.concurrency_sweep.clear();
    } else if (key == "request-rate") {
      for (const std::string_view one : values(v)) {
        const double r = number<double>(text, key, one, "a rate in req/s > 0, or a list: 1,2,4");
        if (!(r > 0) || std::isinf(r)) bad(text, key, v, "a rate in req/s > 0, or a list: 1,2,4");
        c.request_rate_sweep.push_back(r);
      }
      c.request_rate = c.request_rate_sweep.front();
      if (c.request_rate_sweep.size() == 1) c.request_rate_sweep.clear();
    } else if (key == "num-prompts") {
      c.num_prompts = number<int64_t>(text, key, v, "an integer >= 1");
      if (*c.num_prompts < 1) bad(text, key, v, "an integer >= 1");
    } else if (key == "dataset" || key == "model") {
      if (v.empty()) bad(text, key, v, "a value, or leave the key out");
      (key == "dataset" ? c.dataset : c.model) = v;
    } else if (key == "priority") {
      c.priority = number<int64_t>(text, key, v, "an integer: lower is served first");
    } else if (key == "extra-body") {
      if (v.size() < 2 || v.front() != '{' || v.back() != '}')
        bad(text, key, v, "a JSON object, e.g. extra-body={\"top_p\":0.9}");
      c.extra_body = v;
    } else if (key == "header") {
      const size_t colon = v.find(':');
      if (colon == std::string_view::npos || colon == 0) bad(text, key, v, "'Name: value'");
      c.headers.emplace_back(v);
    } else if (key == "objective" || key == "fairness-id") {
      if (v.empty()) bad(text, key, v, "a name");
      c.headers.push_back(fmt::format(
          "{}: {}",
          key == "objective" ? "x-gateway-inference-objective" : "x-gateway-inference-fairness-id",
          v));
    } else if (key == "slo") {
      try {
        c.slos = metrics::parse_run_slos(v);
      } catch (const std::invalid_argument& e) {
        bad(text, key, v, e.what());
      }
    } else if (key == "turns") {
      c.turns = number<int64_t>(text, key, v, "an integer >= 1: each session's turns");
      if (*c.turns < 1) bad(text, key, v, "an integer >= 1: each session's turns");
    } else if (key == "arrivals") {
      c.arrivals = core::kArrivalKinds.parse(v);
      if (!c.arrivals) bad(text, key, v, "poisson, gamma or constant: its open loop's process");
    } else if (key == "burstiness") {
      c.burstiness = number<double>(text, key, v, "a gamma shape > 0");
      if (!(*c.burstiness > 0) || std::isinf(*c.burstiness)) bad(text, key, v, "a gamma shape > 0");
    } else if (key == "weight") {
      c.weight = number<double>(text, key, v, "a number > 0");
      if (!(c.weight > 0) || std::isinf(c.weight)) bad(text, key, v, "a number > 0");
    }
  }
  if (!c.concurrency_sweep.empty() && !c.request_rate_sweep.empty() &&
      c.concurrency_sweep.size() != c.request_rate_sweep.size())
    throw std::invalid_argument(fmt::format(
        "--class '{}': concurrency= has {} values and request-rate= {}: the lists are zipped "
        "point by point; give them one length (or one of them a single value)",
        text, c.concurrency_sweep.size(), c.request_rate_sweep.size()));
  if (c.arrivals && !c.request_rate)
    throw std::invalid_argument(
        fmt::format("--class '{}': arrivals= shapes an open loop: give its request-rate=R", text));
  if (c.burstiness && c.arrivals != core::ArrivalKind::Gamma)
    throw std::invalid_argument(
        fmt::format("--class '{}': burstiness= shapes gamma arrivals: add arrivals=gamma", text));
  if (c.name.empty())
    throw std::invalid_argument(
        fmt::format("--class '{}': every class needs a name (name=chat)", text));
  if (c.concurrency.has_value() == false && !c.request_rate && !c.dataset.starts_with("trace:"))
    throw std::invalid_argument(fmt::format(
        "--class '{}': give its load: concurrency=N (a closed loop), request-rate=R (an open "
        "loop, with concurrency=N as its cap) or dataset=trace:PATH (its own schedule)",
        text));
  return c;
}

}  // namespace tokbench::runner
