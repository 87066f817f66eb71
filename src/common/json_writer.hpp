#pragma once
// common/json_writer: a small streaming JSON writer for records, reports and request bodies.
// It only writes; parsing is simdjson's job. No DOM, no allocation beyond the output string.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench {

/// The length of the valid UTF-8 sequence starting at s[i] (1 for ASCII), 0 when the byte there
/// does not begin one (RFC 3629: no overlongs, surrogates or code points past U+10FFFF).
size_t utf8_sequence(std::string_view s, size_t i);

/// `s` without a last character cut short (an excerpt taken at a byte count): the bytes of an
/// incomplete UTF-8 sequence at its end are dropped.
std::string_view utf8_whole(std::string_view s);

/// Appends `s` to `out` as a JSON string literal (quotes included), escaping as RFC 8259 asks.
/// Bytes that are not UTF-8 are written as U+FFFD, one for each: whatever a server sent, the
/// output is valid JSON.
void append_json_string(std::string& out, std::string_view s);

/// Builds one JSON value into a string. Commas are inserted automatically; the caller keeps
/// begin/end calls balanced. Doubles that are not finite are written as null (JSON has no NaN).
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(uint64_t v);
  JsonWriter& value(double v);
  JsonWriter& value(std::optional<double> v);
  JsonWriter& value(const std::vector<std::string>& strings);  ///< an array of strings
  JsonWriter& null();
  /// A rate, load or other quantity that may be infinite: a number, or "inf" (JSON has no
  /// infinity; json::rate_or reads it back).
  JsonWriter& rate(double v);
  /// Inserts already-serialized JSON verbatim (e.g. a user's --extra-body value).
  JsonWriter& raw(std::string_view json);
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  JsonWriter& field_raw(std::string_view k, std::string_view json) {
    key(k);
    return raw(json);
  }

  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }
  void clear() {
    out_.clear();
    first_.clear();
  }

 private:
  void separate();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace tokbench
