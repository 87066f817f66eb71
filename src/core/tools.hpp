#pragma once
// core/tools: the tools a request offers and the calls a model makes of them — one noun below
// dataset/ (a line's "tools" and reference "tool_call"), settings/ (--tools FILE), client/ (the
// body writes them, the stream's deltas assemble calls), measure/ (each call checked as it
// ends), metrics/ (the shares) and the simulator (which answers with calls of a known worth).
//
// A call is checked by rules a reader can apply by hand (docs/METRICS.md, "Tool calls"):
//  - its arguments must be one JSON object (BadJson otherwise: a stream cut short, a model's
//    unclosed brace); its name must be one of the tools offered (UnknownTool);
//  - the object must satisfy the tool's `parameters` schema, by a checked subset of JSON Schema:
//    type (and type lists), properties, required, additionalProperties, items, prefixItems-free
//    arrays' minItems/maxItems, enum, const, minimum/maximum and their exclusive forms,
//    minLength/maxLength (code points), anyOf/oneOf/allOf; annotations (description, title,
//    default, examples, format, $schema, $comment, deprecated) constrain nothing. A schema that
//    uses any other keyword ($ref, pattern, ...) where it decides the answer makes the call
//    Unchecked — never counted valid, never invalid: the tool cannot say which;
//  - matched (a line that names its reference call): exactly one call, of the reference's name,
//    its arguments equal to the reference's as JSON values (BFCL's AST rule, one acceptable value
//    per argument: numbers compared as numbers, so 2 equals 2.0; objects by their keys in any
//    order; strings exactly).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::core {

/// One tool a request offers: its name, its description and its parameters' JSON Schema
/// (minified JSON; "" = none given: any object is valid).
struct Tool {
  std::string name, description, parameters;
};

/// The tools of a request, read once (a --tools file, a dataset line's "tools") and shared by
/// every request that offers them.
struct ToolSet {
  std::vector<Tool> tools;
  const Tool* find(std::string_view name) const;
};
using SharedTools = std::shared_ptr<const ToolSet>;

/// Reads a JSON array of tool definitions, each in OpenAI's chat shape ({"type": "function",
/// "function": {"name", "description", "parameters"}}), the Responses shape ({"type":
/// "function", "name", ...}) or Anthropic's ({"name", "description", "input_schema"}). Throws
/// std::runtime_error naming `where`, the tool and the fix.
ToolSet parse_tools(std::string_view json_array, const std::string& where);

/// One call a model made, as it came: the tool's name and its arguments' JSON text.
struct ToolCall {
  std::string name, arguments;
  bool operator==(const ToolCall&) const = default;
};

/// What a request's calls are worth (the worst of its calls, in this order of precedence:
/// BadJson, UnknownTool, Invalid, Unchecked, Valid). None: no call, or no tools were offered.
enum class ToolCheck : char {
  None = '-',
  Valid = 'V',
  BadJson = 'J',
  UnknownTool = 'N',
  Invalid = 'S',  ///< against its tool's schema
  Unchecked = 'U',
};
std::string_view tool_check_name(ToolCheck c);      ///< "valid", "bad_json", ...
ToolCheck tool_check_named(std::string_view name);  ///< the inverse; None for anything else

/// Checks every call against the tools offered; `why` (when not null) says the first failure.
ToolCheck check_calls(const std::vector<ToolCall>& calls, const ToolSet& tools,
                      std::string* why = nullptr);
/// Whether `calls` is exactly the reference call (the rule above).
bool calls_match(const std::vector<ToolCall>& calls, const ToolCall& reference);

/// The schema rule alone, for tests and the simulator: whether the JSON text `value` satisfies
/// the JSON text `schema`. Valid, Invalid (with `why`), Unchecked (with the keyword in `why`),
/// BadJson (the value is not JSON).
ToolCheck check_schema(std::string_view value, std::string_view schema, std::string* why = nullptr);
/// The same for a whole answer held to a response format (--json-schema): any JSON value, not
/// only an object, and white space around it.
ToolCheck check_document(std::string_view value, std::string_view schema,
                         std::string* why = nullptr);
/// Whether two JSON texts are equal as values (the matching rule); false when either is not JSON.
bool json_equal(std::string_view a, std::string_view b);

}  // namespace tokbench::core
