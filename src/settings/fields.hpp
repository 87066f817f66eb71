#pragma once
// settings/fields: each part of `tokbench run`'s settings as one table of fields, a row per flag:
// its name, its JSON key, the member it sets, its help, whether --help shows its default, how
// config.json hides it, and the range a value must lie in. Every view is produced from the rows:
// the CLI binder (cli/run_command), --config/--print-config (through the bound options), the
// settings' JSON (RunConfig::to_json), the range checks of validate() and docs/CLI.md (from the
// bound options). A new flag is one row; a check across fields stays in settings/checks.
#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/choice.hpp"
#include "common/json_writer.hpp"
#include "common/redact.hpp"
#include "settings/settings.hpp"

namespace tokbench::runner {

/// A word from a fixed set (common/choice), seen through its table: parsed, named, listed.
template <class Part>
struct ChoiceField {
  std::function<bool(Part&, std::string_view)> parse;  ///< false: not one of the words
  std::function<std::string_view(const Part&)> name;
  std::string bars;          ///< "a | b | c" for --help
  std::string alternatives;  ///< "a, b or c" for errors
};

/// A value with its own syntax (a sweep list, a --dataset spec): set from text (throws
/// std::invalid_argument naming the fix), shown as text, written to JSON under one or more keys.
template <class Part>
struct CustomField {
  std::function<void(Part&, const std::string&)> set;
  std::function<std::string(const Part&)> text;
  std::function<void(JsonWriter&, const Part&)> write;  ///< its keys and values
};

template <class Part>
using FieldValue =
    std::variant<bool Part::*, int Part::*, int64_t Part::*, uint64_t Part::*, double Part::*,
                 std::string Part::*, std::vector<std::string> Part::*,
                 std::optional<int64_t> Part::*, std::optional<double> Part::*, ChoiceField<Part>,
                 CustomField<Part>>;

/// How the settings' JSON (config.json, the manifest) writes a value that may hold a secret.
enum class Redact { None, Url, Secret, Header, Command };

/// The values a number may take, checked by validate(): "--flag: bad value V (expected ...)".
struct Range {
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
  bool above = false;         ///< min itself is refused (> min, not >= min)
  std::string_view expected;  ///< "" = any value; else the error's "(expected ...)"
  bool holds(double v) const { return (above ? v > min : v >= min) && v <= max; }
};

template <class Part>
struct Field {
  // A row names its flag, value and help; the rest, in this order, only when they differ.
  Field(std::string_view flag_, FieldValue<Part> value_, std::string help_,
        bool show_default_ = false, Range range_ = {}, Redact redact_ = Redact::None,
        std::string_view key_ = {}, char delimiter_ = 0)
      : flag(flag_),
        value(std::move(value_)),
        help(std::move(help_)),
        show_default(show_default_),
        range(range_),
        redact(redact_),
        key(key_),
        delimiter(delimiter_) {}

  std::string_view flag;  ///< CLI11's names: "--port", "--stream,!--no-stream"
  FieldValue<Part> value;
  std::string help;
  bool show_default = false;  ///< --help and --print-config show the default
  Range range{};
  Redact redact = Redact::None;
  std::string_view key;  ///< JSON key; "" = the long flag's name with underscores
  char delimiter = 0;    ///< a list flag that also splits on this character ("a,b")
};

/// "--stream,!--no-stream" -> "--stream".
inline std::string_view long_flag(std::string_view flag) { return flag.substr(0, flag.find(',')); }

/// "--max-tokens" -> "max_tokens": a flag's JSON key unless its row names another.
inline std::string flag_key(std::string_view flag) {
  std::string k(long_flag(flag).substr(2));
  for (char& c : k)
    if (c == '-') c = '_';
  return k;
}

/// The JSON key of a field: its own, else its flag's.
template <class Part>
std::string json_key(const Field<Part>& f) {
  return f.key.empty() ? flag_key(f.flag) : std::string(f.key);
}

// The seven tables (settings/fields.cpp), in the order of `run --help`'s sections.
const std::vector<Field<TargetSettings>>& target_fields();
const std::vector<Field<RequestSettings>>& request_fields();
const std::vector<Field<LoadSettings>>& load_fields();
const std::vector<Field<WorkloadSettings>>& workload_fields();
const std::vector<Field<ExperimentSettings>>& experiment_fields();
const std::vector<Field<ObserveSettings>>& observe_fields();
const std::vector<Field<OutputSettings>>& output_fields();

/// A word field over an enum member and its table of spellings.
template <class Part, class E, size_t N>
ChoiceField<Part> choice(E Part::*m, const Choices<E, N>& table) {
  return {[m, &table](Part& p, std::string_view v) {
            const std::optional<E> e = table.parse(v);
            if (e) p.*m = *e;
            return e.has_value();
          },
          [m, &table](const Part& p) { return table.name(p.*m); }, table.bars(),
          table.alternatives()};
}

/// Every field of a part whose value lies outside its range, as "--flag: bad value V (expected
/// ...)" (an optional one only when given).
template <class Part>
void check_ranges(const Part& part, const std::vector<Field<Part>>& fields,
                  std::vector<std::string>& errors) {
  for (const Field<Part>& f : fields) {
    if (f.range.expected.empty()) continue;
    std::visit(
        [&](const auto& m) {
          using M = std::decay_t<decltype(m)>;
          auto judge = [&](auto v) {
            if (!f.range.holds(static_cast<double>(v)))
              errors.push_back(
                  fmt::format("{}: bad value {} ({})", long_flag(f.flag), v, f.range.expected));
          };
          if constexpr (std::is_same_v<M, std::optional<int64_t> Part::*> ||
                        std::is_same_v<M, std::optional<double> Part::*>) {
            if (part.*m) judge(*(part.*m));
          } else if constexpr (std::is_member_object_pointer_v<M>) {
            if constexpr (std::is_arithmetic_v<std::decay_t<decltype(part.*m)>>) judge(part.*m);
          }
        },
        f.value);
  }
}

/// A part's fields as keys of the settings' JSON object, secrets redacted.
template <class Part>
void write_fields(JsonWriter& w, const Part& part, const std::vector<Field<Part>>& fields) {
  auto hide = [](Redact r, const std::string& s) -> std::string {
    switch (r) {
      case Redact::Url:
        return redact_url(s);
      case Redact::Secret:
        return s.empty() ? "" : std::string(kRedacted);
      case Redact::Header:
        return redact_header(s);
      case Redact::Command:
        return redact_command(s);
      case Redact::None:
        break;
    }
    return s;
  };
  for (const Field<Part>& f : fields) {
    std::visit(
        [&](const auto& m) {
          using M = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<M, CustomField<Part>>) {
            m.write(w, part);
          } else if constexpr (std::is_same_v<M, ChoiceField<Part>>) {
            w.field(json_key(f), m.name(part));
          } else if constexpr (std::is_same_v<M, std::string Part::*>) {
            w.field(json_key(f), hide(f.redact, part.*m));
          } else if constexpr (std::is_same_v<M, std::vector<std::string> Part::*>) {
            w.key(json_key(f)).begin_array();
            for (const std::string& s : part.*m) w.value(hide(f.redact, s));
            w.end_array();
          } else if constexpr (std::is_same_v<M, std::optional<int64_t> Part::*> ||
                               std::is_same_v<M, std::optional<double> Part::*>) {
            w.key(json_key(f));
            if (part.*m)
              w.value(*(part.*m));
            else
              w.null();
          } else {
            w.field(json_key(f), part.*m);
          }
        },
        f.value);
  }
}

}  // namespace tokbench::runner
