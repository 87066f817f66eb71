#include "otlp/protobuf.hpp"

#include <cstdint>
#include <cstring>
#include <map>

namespace tokbench::otlp {

// ---- writing --------------------------------------------------------------------------------

namespace {

// Wire types (protobuf encoding): varint, 64-bit, length-delimited, 32-bit.
constexpr int kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5;

void varint(std::string& o, uint64_t v) {
  while (v >= 0x80) {
    o.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  o.push_back(static_cast<char>(v));
}
void tag(std::string& o, int field, int wire) {
  varint(o, (static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(wire));
}
void bytes_field(std::string& o, int field, std::string_view b) {
  tag(o, field, kLen);
  varint(o, b.size());
  o.append(b);
}
void fixed64_field(std::string& o, int field, uint64_t v) {
  tag(o, field, kFixed64);
  for (int i = 0; i < 8; ++i) o.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void varint_field(std::string& o, int field, uint64_t v) {
  tag(o, field, kVarint);
  varint(o, v);
}

int nibble(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }
std::string from_hex(std::string_view h) {
  std::string b;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    b.push_back(static_cast<char>(nibble(h[i]) * 16 + nibble(h[i + 1])));
  return b;
}
std::string to_hex(std::string_view b) {
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
std::string key_value(const Attribute& a) {
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

// Span { trace_id 1; span_id 2; parent_span_id 4; name 5; kind 6; start 7; end 8; attributes 9 }.
std::string span_message(const Span& s) {
  std::string o;
  bytes_field(o, 1, from_hex(s.trace_id));
  bytes_field(o, 2, from_hex(s.span_id));
  if (!s.parent_span_id.empty()) bytes_field(o, 4, from_hex(s.parent_span_id));
  bytes_field(o, 5, s.name);
  varint_field(o, 6, static_cast<uint64_t>(s.kind));
  fixed64_field(o, 7, s.start_unix_ns);
  fixed64_field(o, 8, s.end_unix_ns);
  for (const auto& a : s.attributes) bytes_field(o, 9, key_value(a));
  return o;
}

}  // namespace

std::string encode_traces(const std::vector<Span>& spans, std::string_view scope) {
  std::map<std::string_view, std::vector<const Span*>> by_service;
  for (const auto& s : spans) by_service[s.service].push_back(&s);
  std::string request;
  for (const auto& [service, members] : by_service) {
    std::string resource;  // Resource { attributes 1 }
    if (!service.empty())
      bytes_field(resource, 1, key_value({"service.name", std::string(service)}));
    std::string scoped;  // ScopeSpans { scope 1 (InstrumentationScope { name 1 }); spans 2 }
    std::string scope_message;
    bytes_field(scope_message, 1, scope);
    bytes_field(scoped, 1, scope_message);
    for (const Span* s : members) bytes_field(scoped, 2, span_message(*s));
    std::string resource_spans;  // ResourceSpans { resource 1; scope_spans 2 }
    bytes_field(resource_spans, 1, resource);
    bytes_field(resource_spans, 2, scoped);
    bytes_field(request, 1, resource_spans);  // ExportTraceServiceRequest { resource_spans 1 }
  }
  return request;
}

// ---- reading --------------------------------------------------------------------------------

namespace {

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
bool each_message(std::string_view body, int want, std::string* why, F&& f) {
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

bool read_any(std::string_view b, Value& out, bool& known, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  known = false;
  while (!r.done() && r.next(field, wire)) {
    uint64_t v = 0;
    std::string_view s;
    if (field == 1 && wire == kLen && r.take_bytes(s)) {
      out = std::string(s), known = true;
    } else if (field == 2 && wire == kVarint && r.take_varint(v)) {
      out = v != 0, known = true;
    } else if (field == 3 && wire == kVarint && r.take_varint(v)) {
      out = static_cast<int64_t>(v), known = true;
    } else if (field == 4 && wire == kFixed64 && r.take_fixed64(v)) {
      double d = 0;
      std::memcpy(&d, &v, sizeof d);
      out = d, known = true;
    } else if (r.error().empty()) {
      r.skip(wire);
    }
  }
  if (!r.error().empty() && why && why->empty()) *why = r.error();
  return r.error().empty();
}

bool read_key_value(std::string_view b, std::vector<Attribute>& out, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  Attribute a;
  bool known = false;
  while (!r.done() && r.next(field, wire)) {
    std::string_view s;
    if (field == 1 && wire == kLen && r.take_bytes(s))
      a.key = std::string(s);
    else if (field == 2 && wire == kLen && r.take_bytes(s)) {
      if (!read_any(s, a.value, known, why)) return false;
    } else if (r.error().empty())
      r.skip(wire);
  }
  if (!r.error().empty()) {
    if (why && why->empty()) *why = r.error();
    return false;
  }
  if (known) out.push_back(std::move(a));
  return true;
}

bool read_span(std::string_view b, Span& s, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  while (!r.done() && r.next(field, wire)) {
    uint64_t v = 0;
    std::string_view m;
    if (wire == kLen && (field == 1 || field == 2 || field == 4 || field == 5 || field == 9)) {
      if (!r.take_bytes(m)) break;
      if (field == 1) s.trace_id = to_hex(m);
      if (field == 2) s.span_id = to_hex(m);
      if (field == 4) s.parent_span_id = to_hex(m);
      if (field == 5) s.name = std::string(m);
      if (field == 9 && !read_key_value(m, s.attributes, why)) return false;
    } else if (field == 6 && wire == kVarint && r.take_varint(v)) {
      s.kind = static_cast<SpanKind>(static_cast<int>(v));
    } else if ((field == 7 || field == 8) && wire == kFixed64 && r.take_fixed64(v)) {
      (field == 7 ? s.start_unix_ns : s.end_unix_ns) = v;
    } else if (r.error().empty()) {
      r.skip(wire);
    }
  }
  if (!r.error().empty()) {
    if (why && why->empty()) *why = r.error();
    return false;
  }
  return true;
}

}  // namespace

bool decode_traces(std::string_view body, std::vector<Span>& out, size_t max_spans, size_t* dropped,
                   std::string* why) {
  return each_message(body, 1, why, [&](std::string_view resource_spans) {
    std::string service;
    // ResourceSpans { resource 1 { attributes 1 }; scope_spans 2 { spans 2 } }
    if (!each_message(resource_spans, 1, why, [&](std::string_view resource) {
          std::vector<Attribute> attrs;
          if (!each_message(resource, 1, why,
                            [&](std::string_view kv) { return read_key_value(kv, attrs, why); }))
            return false;
          for (auto& a : attrs)
            if (a.key == "service.name")
              if (auto* s = std::get_if<std::string>(&a.value)) service = *s;
          return true;
        }))
      return false;
    return each_message(resource_spans, 2, why, [&](std::string_view scope_spans) {
      return each_message(scope_spans, 2, why, [&](std::string_view m) {
        if (out.size() >= max_spans) {
          if (dropped) ++*dropped;
          return true;
        }
        Span s;
        if (!read_span(m, s, why)) return false;
        s.service = service;
        out.push_back(std::move(s));
        return true;
      });
    });
  });
}

}  // namespace tokbench::otlp
