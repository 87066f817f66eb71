#include "common/json_fields.hpp"

#include <limits>
#include <stdexcept>

namespace tokbench::json {

std::string string_or(simdjson::dom::element o, std::string_view k, std::string fallback) {
  std::string_view s;
  if (o[k].get_string().get(s)) return fallback;
  return std::string(s);
}

double rate_or(simdjson::dom::element o, std::string_view k, double fallback) {
  if (string_or(o, k) == "inf") return std::numeric_limits<double>::infinity();
  return number_or(o, k, fallback);
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
    if (e.is_int64())
      out.push_back(static_cast<double>(e.get_int64().value_unsafe()));
    else if (!e.get_double().get(d))
      out.push_back(d);
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

namespace {

// The field `k` of `o`, nullopt when absent or null.
std::optional<simdjson::dom::element> present(simdjson::dom::element o, std::string_view k) {
  simdjson::dom::element v;
  if (o[k].get(v) || v.is_null()) return std::nullopt;
  return v;
}

[[noreturn]] void wrong_type(std::string_view k, std::string_view expected) {
  throw std::runtime_error("\"" + std::string(k) + "\" must be " + std::string(expected));
}

}  // namespace

std::optional<int64_t> strict_int(simdjson::dom::element o, std::string_view k) {
  const auto v = present(o, k);
  if (!v) return std::nullopt;
  int64_t out = 0;
  if (v->get_int64().get(out)) wrong_type(k, "an integer");
  return out;
}

std::optional<double> strict_number(simdjson::dom::element o, std::string_view k) {
  const auto v = present(o, k);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong_type(k, "a number");
  return number_of(*v);
}

std::optional<std::string_view> strict_string(simdjson::dom::element o, std::string_view k) {
  const auto v = present(o, k);
  if (!v) return std::nullopt;
  std::string_view s;
  if (v->get_string().get(s)) wrong_type(k, "a string");
  return s;
}

std::optional<bool> strict_bool(simdjson::dom::element o, std::string_view k) {
  const auto v = present(o, k);
  if (!v) return std::nullopt;
  bool b = false;
  if (v->get_bool().get(b)) wrong_type(k, "true or false");
  return b;
}

double number_of(simdjson::dom::element e) {
  if (e.is_int64()) return static_cast<double>(e.get_int64().value_unsafe());
  if (e.is_uint64()) return static_cast<double>(e.get_uint64().value_unsafe());
  double d = 0;
  if (e.get_double().get(d)) throw std::runtime_error("expected a number");
  return d;
}

void raw_or_null(JsonWriter& w, std::string_view k, const std::string& raw) {
  if (raw.empty()) {
    w.key(k).null();
  } else {
    w.field_raw(k, raw);
  }
}

}  // namespace tokbench::json
