#pragma once
// otlp/wire: protobuf's wire format, the part OTLP's messages need (varints, fixed 64-bit fields,
// length-delimited bytes and messages, packed repeats), and OTLP's common KeyValue; shared by the
// trace (otlp/protobuf) and metric (otlp/metric_protobuf) encodings. Internal to otlp/.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "otlp/span.hpp"

namespace tokbench::otlp::wire {

// Wire types (protobuf encoding): varint, 64-bit, length-delimited, 32-bit.
inline constexpr int kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5;

inline void varint(std::string& o, uint64_t v) {
  while (v >= 0x80) {
    o.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  o.push_back(static_cast<char>(v));
}
inline void tag(std::string& o, int field, int wire) {
  varint(o, (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire));
}
inline void bytes_field(std::string& o, int field, std::string_view b) {
  tag(o, field, kLen);
  varint(o, b.size());
  o.append(b);
}
inline void fixed64_field(std::string& o, int field, uint64_t v) {
  tag(o, field, kFixed64);
  for (int i = 0; i < 8; ++i) o.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
inline void varint_field(std::string& o, int field, uint64_t v) {
  tag(o, field, kVarint);
  varint(o, v);
}

inline int nibble(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }
inline std::string from_hex(std::string_view h) {
  std::string b;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    b.push_back(static_cast<char>(nibble(h[i]) * 16 + nibble(h[i + 1])));
  return b;
}
inline std::string to_hex(std::string_view b) {
  static const char* digits = "0123456789abcdef";
  std::string h;
  for (unsigned char c : b) {
    h.push_back(digits[c >> 4]);
    h.push_back(digits[c & 0xF]);
  }
  return h;
}

// KeyValue { string key = 1; AnyValue value = 2 }; AnyValue { string_value = 1; bool_value = 2;
// int_value = 3; double_value = 4 }.
inline std::string key_value(const Attribute& a) {
  std::string any;
  if (const auto* s = std::get_if<std::string>(&a.value)) {
    bytes_field(any, 1, *s);
  } else if (const auto* b = std::get_if<bool>(&a.value)) {
    varint_field(any, 2, *b ? 1 : 0);
  } else if (const auto* i = std::get_if<int64_t>(&a.value)) {
    varint_field(any, 3, static_cast<uint64_t>(*i));
  } else {
    uint64_t bits = 0;
    const double d = std::get<double>(a.value);
    std::memcpy(&bits, &d, sizeof bits);
    fixed64_field(any, 4, bits);
  }
  std::string kv;
  bytes_field(kv, 1, a.key);
  bytes_field(kv, 2, any);
  return kv;
}

inline void double_field(std::string& o, int field, double d) {
  uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  fixed64_field(o, field, bits);
}

// One message's fields, in order; a fault stops the reading and names itself.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool done() const { return at_ >= b_.size() || !error_.empty(); }
  const std::string& error() const { return error_; }

  // The next field: its number and wire type; the value is then read with one of the takers.
  bool next(int& field, int& wire) {
    uint64_t t = 0;
    if (!read_varint(t)) return false;
    field = static_cast<int>(t >> 3);
    wire = static_cast<int>(t & 7);
    if (field == 0) return fail("field number 0");
    return true;
  }
  bool take_varint(uint64_t& v) { return read_varint(v); }
  bool take_fixed64(uint64_t& v) {
    if (b_.size() - at_ < 8) return fail("a 64-bit field past the end");
    v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b_[at_ + i]);
    at_ += 8;
    return true;
  }
  bool take_bytes(std::string_view& v) {
    uint64_t n = 0;
    if (!read_varint(n)) return false;
    if (n > b_.size() - at_) return fail("a length past the end of its message");
    v = b_.substr(at_, n);
    at_ += n;
    return true;
  }
  bool skip(int wire) {
    uint64_t v = 0;
    std::string_view s;
    switch (wire) {
      case kVarint:
        return read_varint(v);
      case kFixed64:
        return take_fixed64(v);
      case kLen:
        return take_bytes(s);
      case kFixed32:
        if (b_.size() - at_ < 4) return fail("a 32-bit field past the end");
        at_ += 4;
        return true;
      default:
        return fail("wire type " + std::to_string(wire) + " (groups are not OTLP)");
    }
  }
  bool fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    at_ = b_.size();
    return false;
  }

 private:
  bool read_varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= b_.size()) return fail("a varint past the end");
      const auto c = static_cast<unsigned char>(b_[at_++]);
      v |= static_cast<uint64_t>(c & 0x7F) << shift;
      if (!(c & 0x80)) return true;
    }
    return fail("a varint over 10 bytes");
  }
  std::string_view b_;
  size_t at_ = 0;
  std::string error_;
};

// Reads the length-delimited field `want` of every wire-compatible entry and hands each to `f`;
// other fields are skipped. False on a fault (its reason in *why).
template <class F>
inline bool each_message(std::string_view body, int want, std::string* why, F&& f) {
  Reader r(body);
  int field = 0, wire = 0;
  while (!r.done() && r.next(field, wire)) {
    if (field == want && wire == kLen) {
      std::string_view m;
      if (r.take_bytes(m) && !f(m)) return false;
    } else {
      r.skip(wire);
    }
  }
  if (!r.error().empty()) {
    if (why && why->empty()) *why = r.error();
    return false;
  }
  return true;
}

/// AnyValue into `out` (`known` false for kinds not read: arrays, lists, bytes). False on a fault.
bool read_any(std::string_view b, Value& out, bool& known, std::string* why);
/// One KeyValue appended to `out` when its value is of a kind read. False on a fault.
bool read_key_value(std::string_view b, std::vector<Attribute>& out, std::string* why);
/// The service.name of a ResourceSpans or ResourceMetrics message's resource ("" = none).
bool read_resource_service(std::string_view resource_x, std::string& service, std::string* why);

}  // namespace tokbench::otlp::wire
