#include "otlp/wire.hpp"

namespace tokbench::otlp::wire {

namespace {

// `s` cut to kMaxAttributeBytes, never inside a UTF-8 sequence.
std::string capped(std::string_view s) {
  if (s.size() <= kMaxAttributeBytes) return std::string(s);
  size_t n = kMaxAttributeBytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n));
}

}  // namespace

bool read_any(std::string_view b, Value& out, bool& known, std::string* why) {
  Reader r(b);
  int field = 0, wire = 0;
  known = false;
  while (!r.done() && r.next(field, wire)) {
    uint64_t v = 0;
    std::string_view s;
    if (field == 1 && wire == kLen && r.take_bytes(s)) {
      out = capped(s), known = true;
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
      a.key = capped(s);
    else if (field == 2 && wire == kLen && r.take_bytes(s)) {
      if (!read_any(s, a.value, known, why)) return false;
    } else if (r.error().empty())
      r.skip(wire);
  }
  if (!r.error().empty()) {
    if (why && why->empty()) *why = r.error();
    return false;
  }
  if (known && out.size() < kMaxAttributes) out.push_back(std::move(a));
  return true;
}

bool read_resource_service(std::string_view resource_x, std::string& service, std::string* why) {
  // Resource<Spans|Metrics> { resource 1 { attributes 1 } }
  return each_message(resource_x, 1, why, [&](std::string_view resource) {
    std::vector<Attribute> attrs;
    if (!each_message(resource, 1, why,
                      [&](std::string_view kv) { return read_key_value(kv, attrs, why); }))
      return false;
    for (auto& a : attrs)
      if (a.key == "service.name")
        if (auto* s = std::get_if<std::string>(&a.value)) service = *s;
    return true;
  });
}

}  // namespace tokbench::otlp::wire
