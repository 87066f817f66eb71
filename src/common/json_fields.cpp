#include "common/json_fields.hpp"

namespace tokbench::json {

std::string string_or(simdjson::dom::element o, std::string_view k, std::string fallback) {
  std::string_view s;
  if (o[k].get_string().get(s)) return fallback;
  return std::string(s);
}

double number_or(simdjson::dom::element o, std::string_view k, double fallback) {
  simdjson::dom::element v;
  if (o[k].get(v) || v.is_null()) return fallback;
  if (v.is_int64()) return static_cast<double>(v.get_int64().value_unsafe());
  double d = 0;
  return v.get_double().get(d) ? fallback : d;
}

int64_t int_or(simdjson::dom::element o, std::string_view k, int64_t fallback) {
  int64_t v = 0;
  return o[k].get_int64().get(v) ? fallback : v;
}

bool bool_or(simdjson::dom::element o, std::string_view k, bool fallback) {
  bool v = false;
  return o[k].get_bool().get(v) ? fallback : v;
}

std::string raw_or_empty(simdjson::dom::element o, std::string_view k) {
  simdjson::dom::element v;
  if (o[k].get(v) || v.is_null()) return {};
  return simdjson::minify(v);
}

std::vector<double> numbers_or_empty(simdjson::dom::element o, std::string_view k) {
  std::vector<double> out;
  simdjson::dom::array a;
  if (o[k].get_array().get(a)) return out;
  for (simdjson::dom::element e : a) {
    double d = 0;
    if (e.is_int64()) out.push_back(static_cast<double>(e.get_int64().value_unsafe()));
    else if (!e.get_double().get(d)) out.push_back(d);
  }
  return out;
}

std::vector<std::string> strings_or_empty(simdjson::dom::element o, std::string_view k) {
  std::vector<std::string> out;
  simdjson::dom::array a;
  if (o[k].get_array().get(a)) return out;
  for (simdjson::dom::element e : a) {
    std::string_view s;
    if (!e.get_string().get(s)) out.emplace_back(s);
  }
  return out;
}

std::optional<double> optional_number(simdjson::dom::element o, std::string_view k) {
  simdjson::dom::element v;
  if (o[k].get(v) || v.is_null() || !v.is_number()) return std::nullopt;
  return number_or(o, k, 0);
}

std::optional<int64_t> optional_int(simdjson::dom::element o, std::string_view k) {
  int64_t v = 0;
  if (o[k].get_int64().get(v)) return std::nullopt;
  return v;
}

void raw_or_null(JsonWriter& w, std::string_view k, const std::string& raw) {
  if (raw.empty()) {
    w.key(k).null();
  } else {
    w.field_raw(k, raw);
  }
}

}  // namespace tokbench::json
