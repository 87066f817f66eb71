// core/tools: reading tool definitions, and the checks of a call (the rules: tools.hpp).
#include "core/tools.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace tokbench::core {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Three-valued: a schema keyword that tokbench does not know leaves the answer open.
enum class Tri : char { Yes, No, Unknown };

Tri both(Tri a, Tri b) {
  if (a == Tri::No || b == Tri::No) return Tri::No;
  return a == Tri::Unknown || b == Tri::Unknown ? Tri::Unknown : Tri::Yes;
}

bool is_number(const element& v) {
  const auto t = v.type();
  return t == element_type::INT64 || t == element_type::UINT64 || t == element_type::DOUBLE;
}
double number_of(const element& v) {
  switch (v.type()) {
    case element_type::INT64:
      return static_cast<double>(v.get_int64().value());
    case element_type::UINT64:
      return static_cast<double>(v.get_uint64().value());
    default:
      return v.get_double().value();
  }
}

bool values_equal(const element& a, const element& b) {
  if (is_number(a) && is_number(b)) return number_of(a) == number_of(b);
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case element_type::STRING:
      return a.get_string().value() == b.get_string().value();
    case element_type::BOOL:
      return a.get_bool().value() == b.get_bool().value();
    case element_type::NULL_VALUE:
      return true;
    case element_type::ARRAY: {
      const simdjson::dom::array x = a.get_array().value(), y = b.get_array().value();
      if (x.size() != y.size()) return false;
      auto i = x.begin(), j = y.begin();
      for (; i != x.end(); ++i, ++j)
        if (!values_equal(*i, *j)) return false;
      return true;
    }
    case element_type::OBJECT: {
      const simdjson::dom::object x = a.get_object().value(), y = b.get_object().value();
      if (x.size() != y.size()) return false;
      for (auto field : x) {
        element other;
        if (y[field.key].get(other) || !values_equal(field.value, other)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

bool has_type(const element& v, std::string_view type) {
  const auto t = v.type();
  if (type == "object") return t == element_type::OBJECT;
  if (type == "array") return t == element_type::ARRAY;
  if (type == "string") return t == element_type::STRING;
  if (type == "boolean") return t == element_type::BOOL;
  if (type == "null") return t == element_type::NULL_VALUE;
  if (type == "number") return is_number(v);
  if (type == "integer") {
    if (t == element_type::INT64 || t == element_type::UINT64) return true;
    return t == element_type::DOUBLE &&
           std::floor(v.get_double().value()) == v.get_double().value();  // 2.0 is an integer
  }
  return false;
}

size_t code_points(std::string_view s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Keywords that say something about a value only to people.
constexpr std::array<std::string_view, 9> kAnnotations{"description", "title",      "default",
                                                       "examples",    "format",     "$schema",
                                                       "$comment",    "deprecated", "$id"};

struct Checker {
  std::string why;
  Tri fail(std::string text) {
    if (why.empty()) why = std::move(text);
    return Tri::No;
  }
  Tri unknown(std::string_view keyword) {
    if (why.empty())
      why = fmt::format("the schema uses \"{}\", which tokbench does not check", keyword);
    return Tri::Unknown;
  }

  Tri type_ok(const element& v, const element& type, std::string_view at) {
    std::string_view one;
    if (!type.get_string().get(one))
      return has_type(v, one) ? Tri::Yes : fail(fmt::format("{} is not {}", at, one));
    simdjson::dom::array list;
    if (type.get_array().get(list)) return unknown("type");
    for (auto t : list)
      if (std::string_view s; !t.get_string().get(s) && has_type(v, s)) return Tri::Yes;
    return fail(fmt::format("{} is none of the types listed", at));
  }

  Tri object_ok(const element& v, const simdjson::dom::object& schema, std::string_view at) {
    if (v.type() != element_type::OBJECT) return Tri::Yes;  // "type" says what it must be
    const simdjson::dom::object o = v.get_object().value();
    Tri r = Tri::Yes;
    simdjson::dom::array required;
    if (!schema["required"].get_array().get(required))
      for (auto k : required)
        if (std::string_view key; !k.get_string().get(key) && o[key].error())
          r = both(r, fail(fmt::format("{} lacks the required \"{}\"", at, key)));
    simdjson::dom::object props;
    const bool has_props = !schema["properties"].get_object().get(props);
    element extra;
    const bool has_extra = !schema["additionalProperties"].get(extra);
    for (auto field : o) {
      element sub;
      if (has_props && !props[field.key].get(sub)) {
        r = both(r, check(field.value, sub, fmt::format("{}.{}", at, field.key)));
      } else if (has_extra) {
        bool allowed = true;
        if (!extra.get_bool().get(allowed)) {
          if (!allowed)
            r = both(r, fail(fmt::format("{} has \"{}\", which the schema does not allow", at,
                                         field.key)));
        } else {
          r = both(r, check(field.value, extra, fmt::format("{}.{}", at, field.key)));
        }
      }
    }
    return r;
  }

  Tri array_ok(const element& v, const simdjson::dom::object& schema, std::string_view at) {
    if (v.type() != element_type::ARRAY) return Tri::Yes;
    const simdjson::dom::array a = v.get_array().value();
    Tri r = Tri::Yes;
    uint64_t bound = 0;
    if (!schema["minItems"].get_uint64().get(bound) && a.size() < bound)
      r = both(r, fail(fmt::format("{} has {} items, fewer than {}", at, a.size(), bound)));
    if (!schema["maxItems"].get_uint64().get(bound) && a.size() > bound)
      r = both(r, fail(fmt::format("{} has {} items, more than {}", at, a.size(), bound)));
    element items;
    if (!schema["items"].get(items)) {
      size_t i = 0;
      for (auto item : a) r = both(r, check(item, items, fmt::format("{}[{}]", at, i++)));
    }
    return r;
  }

  Tri scalar_ok(const element& v, std::string_view key, const element& bound, std::string_view at) {
    if (key == "minLength" || key == "maxLength") {
      uint64_t n = 0;
      if (bound.get_uint64().get(n)) return unknown(key);
      if (v.type() != element_type::STRING) return Tri::Yes;
      const size_t len = code_points(v.get_string().value());
      const bool ok = key == "minLength" ? len >= n : len <= n;
      return ok ? Tri::Yes : fail(fmt::format("{} has {} characters ({} {})", at, len, key, n));
    }
    if (!is_number(bound)) return unknown(key);
    if (!is_number(v)) return Tri::Yes;
    const double x = number_of(v), b = number_of(bound);
    const bool ok = key == "minimum"            ? x >= b
                    : key == "maximum"          ? x <= b
                    : key == "exclusiveMinimum" ? x > b
                                                : x < b;
    return ok ? Tri::Yes : fail(fmt::format("{} is {:g} ({} {:g})", at, x, key, b));
  }

  Tri any_of(const element& v, const element& list, std::string_view key, std::string_view at) {
    simdjson::dom::array branches;
    if (list.get_array().get(branches) || branches.size() == 0) return unknown(key);
    int yes = 0;
    bool open = false, no = false;
    for (auto b : branches) {
      Checker inner;
      const Tri t = inner.check(v, b, at);
      yes += t == Tri::Yes;
      open |= t == Tri::Unknown;
      no |= t == Tri::No;
    }
    if (key == "allOf")
      return no     ? fail(fmt::format("{} fails a branch of allOf", at))
             : open ? unknown(key)
                    : Tri::Yes;
    if (key == "anyOf")
      return yes > 0 ? Tri::Yes
             : open  ? unknown(key)
                     : fail(fmt::format("{} matches no branch of anyOf", at));
    if (yes > 1) return fail(fmt::format("{} matches {} branches of oneOf", at, yes));  // oneOf
    if (open) return unknown(key);
    return yes == 1 ? Tri::Yes : fail(fmt::format("{} matches no branch of oneOf", at));
  }

  Tri check(const element& v, const element& schema, std::string_view at) {
    bool whole = true;
    if (!schema.get_bool().get(whole))
      return whole ? Tri::Yes : fail(fmt::format("{}: the schema allows nothing here", at));
    simdjson::dom::object s;
    if (schema.get_object().get(s)) return unknown("(a schema that is not an object)");
    Tri r = Tri::Yes;
    for (auto field : s) {
      const std::string_view k = field.key;
      const element& x = field.value;
      if (k == "type") {
        r = both(r, type_ok(v, x, at));
      } else if (k == "enum") {
        simdjson::dom::array values;
        if (x.get_array().get(values)) {
          r = both(r, unknown(k));
          continue;
        }
        bool found = false;
        for (auto e : values) found |= values_equal(v, e);
        if (!found) r = both(r, fail(fmt::format("{} is none of the enum's values", at)));
      } else if (k == "const") {
        if (!values_equal(v, x)) r = both(r, fail(fmt::format("{} is not the const value", at)));
      } else if (k == "minimum" || k == "maximum" || k == "exclusiveMinimum" ||
                 k == "exclusiveMaximum" || k == "minLength" || k == "maxLength") {
        r = both(r, scalar_ok(v, k, x, at));
      } else if (k == "anyOf" || k == "oneOf" || k == "allOf") {
        r = both(r, any_of(v, x, k, at));
      } else if (k == "properties" || k == "required" || k == "additionalProperties") {
        continue;  // object_ok reads them together
      } else if (k == "items" || k == "minItems" || k == "maxItems") {
        continue;  // array_ok
      } else if (std::find(kAnnotations.begin(), kAnnotations.end(), k) == kAnnotations.end()) {
        r = both(r, unknown(k));
      }
    }
    r = both(r, object_ok(v, s, at));
    return both(r, array_ok(v, s, at));
  }
};

std::string text_field(simdjson::dom::object o, std::string_view key) {
  std::string_view v;
  return o[key].get_string().get(v) ? std::string() : std::string(v);
}

}  // namespace

const Tool* ToolSet::find(std::string_view name) const {
  for (const Tool& t : tools)
    if (t.name == name) return &t;
  return nullptr;
}

ToolSet parse_tools(std::string_view json_array, const std::string& where) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(json_array.data(), json_array.size()).get(doc))
    throw std::runtime_error(
        fmt::format("{}: the tools are not valid JSON ({}); give a JSON array "
                    "of tool definitions",
                    where, simdjson::error_message(err)));
  simdjson::dom::array list;
  if (doc.get_array().get(list) || list.size() == 0)
    throw std::runtime_error(fmt::format(
        "{}: the tools must be a non-empty JSON array of definitions, each "
        "{{\"type\": \"function\", \"function\": {{\"name\": ..., \"parameters\": {{...}}}}}}",
        where));
  ToolSet set;
  for (auto item : list) {
    const size_t i = set.tools.size();
    simdjson::dom::object t, fn;
    if (item.get_object().get(t))
      throw std::runtime_error(fmt::format("{}: tools[{}] is not an object", where, i));
    // OpenAI's chat shape nests the function; the Responses and Anthropic shapes do not.
    if (t["function"].get_object().get(fn)) fn = t;
    Tool tool;
    tool.name = text_field(fn, "name");
    tool.description = text_field(fn, "description");
    if (tool.name.empty())
      throw std::runtime_error(fmt::format(
          "{}: tools[{}] has no \"name\" (in OpenAI's shape, under \"function\")", where, i));
    if (set.find(tool.name))
      throw std::runtime_error(fmt::format(
          "{}: tools[{}] repeats the name \"{}\"; names must differ", where, i, tool.name));
    simdjson::dom::element params;
    if (!fn["parameters"].get(params) || !fn["input_schema"].get(params)) {
      if (!params.is_object())
        throw std::runtime_error(
            fmt::format("{}: tools[{}] (\"{}\") has parameters that are not a JSON Schema object",
                        where, i, tool.name));
      tool.parameters = simdjson::minify(params);
    }
    set.tools.push_back(std::move(tool));
  }
  return set;
}

std::string_view tool_check_name(ToolCheck c) {
  switch (c) {
    case ToolCheck::Valid:
      return "valid";
    case ToolCheck::BadJson:
      return "bad_json";
    case ToolCheck::UnknownTool:
      return "unknown_tool";
    case ToolCheck::Invalid:
      return "invalid";
    case ToolCheck::Unchecked:
      return "unchecked";
    case ToolCheck::None:
      break;
  }
  return "none";
}

ToolCheck tool_check_named(std::string_view name) {
  for (ToolCheck c : {ToolCheck::Valid, ToolCheck::BadJson, ToolCheck::UnknownTool,
                      ToolCheck::Invalid, ToolCheck::Unchecked})
    if (tool_check_name(c) == name) return c;
  return ToolCheck::None;
}

namespace {

// A JSON text against a schema: a call's arguments (`what` "arguments": one object, and no schema
// at all accepts any) or a whole answer (`what` "answer": any JSON value).
ToolCheck check_text(std::string_view value, std::string_view schema, std::string_view what,
                     std::string* why) {
  const bool arguments = what == "arguments";
  simdjson::dom::parser vp, sp;
  element v, s;
  if (vp.parse(value.data(), value.size()).get(v)) {
    if (why) *why = fmt::format("the {} {} not valid JSON", what, arguments ? "are" : "is");
    return ToolCheck::BadJson;
  }
  if (arguments && v.type() != element_type::OBJECT) {
    if (why) *why = "the arguments are not a JSON object";
    return ToolCheck::BadJson;
  }
  if (arguments && schema.empty()) return ToolCheck::Valid;
  if (sp.parse(schema.data(), schema.size()).get(s)) {
    if (why)
      *why = arguments ? "the tool's schema is not valid JSON" : "the schema is not valid JSON";
    return ToolCheck::Unchecked;
  }
  Checker c;
  const Tri t = c.check(v, s, what);
  if (why) *why = c.why;
  return t == Tri::Yes  ? ToolCheck::Valid
         : t == Tri::No ? ToolCheck::Invalid
                        : ToolCheck::Unchecked;
}

}  // namespace

ToolCheck check_schema(std::string_view value, std::string_view schema, std::string* why) {
  return check_text(value, schema, "arguments", why);
}

ToolCheck check_document(std::string_view value, std::string_view schema, std::string* why) {
  return check_text(value, schema, "answer", why);
}

ToolCheck check_calls(const std::vector<ToolCall>& calls, const ToolSet& tools, std::string* why) {
  // The worst first: a broken call outranks a wrong name, which outranks a schema's verdict.
  auto rank = [](ToolCheck c) {
    switch (c) {
      case ToolCheck::BadJson:
        return 5;
      case ToolCheck::UnknownTool:
        return 4;
      case ToolCheck::Invalid:
        return 3;
      case ToolCheck::Unchecked:
        return 2;
      case ToolCheck::Valid:
        return 1;
      case ToolCheck::None:
        break;
    }
    return 0;
  };
  ToolCheck worst = ToolCheck::None;
  for (const ToolCall& call : calls) {
    std::string w;
    ToolCheck c;
    const Tool* tool = tools.find(call.name);
    if (!tool) {
      c = check_schema(call.arguments, "", &w);  // bad JSON still outranks the name
      if (c == ToolCheck::Valid) {
        c = ToolCheck::UnknownTool;
        w = fmt::format("no tool offered is named \"{}\"", call.name);
      }
    } else {
      c = check_schema(call.arguments, tool->parameters, &w);
    }
    if (rank(c) > rank(worst)) {
      worst = c;
      if (why && c != ToolCheck::Valid) *why = call.name + ": " + w;
    }
  }
  return worst;
}

bool json_equal(std::string_view a, std::string_view b) {
  simdjson::dom::parser pa, pb;
  element x, y;
  if (pa.parse(a.data(), a.size()).get(x) || pb.parse(b.data(), b.size()).get(y)) return false;
  return values_equal(x, y);
}

bool calls_match(const std::vector<ToolCall>& calls, const ToolCall& reference) {
  return calls.size() == 1 && calls[0].name == reference.name &&
         json_equal(calls[0].arguments, reference.arguments);
}

}  // namespace tokbench::core
