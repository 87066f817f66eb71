#include "common/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace tokbench {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_.push_back('{');
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  out_.push_back('}');
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  separate();
  out_.push_back('[');
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  out_.push_back(']');
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  append_json_string(out_, k);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  append_json_string(out_, s);
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::value(int64_t v) {
  separate();
  fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t v) {
  separate();
  fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}
JsonWriter& JsonWriter::value(double v) {
  separate();
  if (std::isfinite(v)) {
    // Shortest representation that round-trips: exact, and readable.
    fmt::format_to(std::back_inserter(out_), "{}", v);
  } else {
    out_ += "null";
  }
  return *this;
}
JsonWriter& JsonWriter::value(std::optional<double> v) { return v ? value(*v) : null(); }
JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}
JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& strings) {
  begin_array();
  for (const auto& s : strings) value(std::string_view(s));
  return end_array();
}

}  // namespace tokbench
