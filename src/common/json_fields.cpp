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

void raw_or_null(JsonWriter& w, std::string_view k, const std::string& raw) {
  if (raw.empty()) {
    w.key(k).null();
  } else {
    w.field_raw(k, raw);
  }
}

}  // namespace tokbench::json
