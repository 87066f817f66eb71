#pragma once
// common/json_fields: the one reader of a JSON object's fields, and field tables — one table of
// (JSON name, member) per struct, used both to write the struct and to read it back, so a field
// of the run folder is spelled once. Reading is lenient: a field that is absent, null or of
// another type keeps the struct's default, so folders written before a field existed still read.
// The strict readers are for formats where a field of the wrong type is an error to report.
// (The hot path reads SSE payloads through string views of its own: client/api/json_read.)
#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/json_writer.hpp"

namespace tokbench::json {

/// The field `k` of `o` as text, number, integer, boolean or minified raw JSON; `fallback` (raw:
/// "") when it is absent, null or of another type. An integer reads as a number too.
std::string string_or(simdjson::dom::element o, std::string_view k, std::string fallback = {});
double number_or(simdjson::dom::element o, std::string_view k, double fallback);
int64_t int_or(simdjson::dom::element o, std::string_view k, int64_t fallback);
/// A quantity JsonWriter::rate wrote: a number, or "inf" for infinity; `fallback` otherwise.
double rate_or(simdjson::dom::element o, std::string_view k, double fallback);
bool bool_or(simdjson::dom::element o, std::string_view k, bool fallback);
std::string raw_or_empty(simdjson::dom::element o, std::string_view k);
/// Writes `raw` (already JSON) under `k`, or null when it is "".
void raw_or_null(JsonWriter& w, std::string_view k, const std::string& raw);

/// The field `k` of `o` as a list of numbers or of strings; elements of another type are skipped.
std::vector<double> numbers_or_empty(simdjson::dom::element o, std::string_view k);
std::vector<std::string> strings_or_empty(simdjson::dom::element o, std::string_view k);
/// The field `k` of `o` as a number (an integer) when it is one; nullopt when absent or null.
std::optional<double> optional_number(simdjson::dom::element o, std::string_view k);
std::optional<int64_t> optional_int(simdjson::dom::element o, std::string_view k);

/// Strict readers, for formats whose every field must be right (the details lines, the server
/// summary): nullopt when the field is absent or null, std::runtime_error naming the field when
/// it holds another type.
std::optional<int64_t> strict_int(simdjson::dom::element o, std::string_view k);
std::optional<double> strict_number(simdjson::dom::element o, std::string_view k);
std::optional<std::string_view> strict_string(simdjson::dom::element o, std::string_view k);
std::optional<bool> strict_bool(simdjson::dom::element o, std::string_view k);
/// A number (integer or not) itself; std::runtime_error when `e` is not one.
double number_of(simdjson::dom::element e);

/// One field of a struct T in its JSON object.
template <class T>
struct Field {
  std::string_view name;
  std::variant<bool T::*, int T::*, int64_t T::*, uint64_t T::*, double T::*, std::string T::*,
               std::optional<double> T::*, std::optional<int64_t> T::*, std::vector<double> T::*,
               std::vector<std::string> T::*>
      member;
};

/// Writes every field of the table (inside an object the caller opened).
template <class T>
void write_fields(JsonWriter& w, const T& v, std::span<const Field<T>> fields) {
  for (const auto& f : fields) {
    std::visit(
        [&](auto m) {
          const auto& x = v.*m;
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::vector<double>> ||
                        std::is_same_v<X, std::vector<std::string>>) {
            w.key(f.name).begin_array();
            for (const auto& e : x) w.value(e);
            w.end_array();
          } else if constexpr (std::is_same_v<X, std::optional<int64_t>>) {
            w.key(f.name);
            if (x)
              w.value(*x);
            else
              w.null();
          } else {
            w.field(f.name, x);
          }
        },
        f.member);
  }
}

/// The struct as one JSON object of its table's fields.
template <class T>
void write_object(JsonWriter& w, const T& v, std::span<const Field<T>> fields) {
  w.begin_object();
  write_fields(w, v, fields);
  w.end_object();
}

/// Reads every field of the table that `o` has; the others keep their values.
template <class T>
void read_fields(simdjson::dom::element o, T& v, std::span<const Field<T>> fields) {
  for (const auto& f : fields) {
    std::visit(
        [&](auto m) {
          auto& x = v.*m;
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, bool>)
            x = bool_or(o, f.name, x);
          else if constexpr (std::is_same_v<X, std::string>)
            x = string_or(o, f.name, x);
          else if constexpr (std::is_same_v<X, double>)
            x = number_or(o, f.name, x);
          else if constexpr (std::is_same_v<X, std::optional<double>>)
            x = optional_number(o, f.name);
          else if constexpr (std::is_same_v<X, std::optional<int64_t>>)
            x = optional_int(o, f.name);
          else if constexpr (std::is_same_v<X, std::vector<double>>)
            x = numbers_or_empty(o, f.name);
          else if constexpr (std::is_same_v<X, std::vector<std::string>>)
            x = strings_or_empty(o, f.name);
          else if constexpr (std::is_same_v<X, uint64_t>) {
            uint64_t u = 0;
            if (!o[f.name].get_uint64().get(u)) x = u;
          } else
            x = static_cast<X>(int_or(o, f.name, x));
        },
        f.member);
  }
}

}  // namespace tokbench::json
