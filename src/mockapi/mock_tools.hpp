#pragma once
// mockapi/mock_tools: the simulator's tool calls, of a known worth, so tokbench's tool-call shares
// meet a truth (core/tools' rules judge them).
//
// A chat request that offers tools gets a call when tool_choice demands one ("required": the
// first tool; a named function: that one), or — under "auto" or no choice — when --answers
// tools:PATH knows its question (the last user turn): then the call is the line's reference
// "tool_call". tool_choice "none" never calls. With --tool-rounds N (an agent's model), a request
// whose conversation holds k < N rounds of calls after its last user turn calls tool k mod T of
// its T tools (by the schema rule; a known question: its reference call), and at k = N answers
// with text. The arguments are streamed in pieces of 4 bytes,
// one token each; the answer ends with the call (EOS), or is padded with spaces (JSON's white
// space) up to the cap under ignore_eos, and a cap shorter than the call cuts it ("length").
//
// Worth, exact over the set (as mock_answers draws wrong answers): a known question q of N has
// the rank (q·a + b) mod N, a permutation seeded by --seed; it is answered invalid when its rank
// < --tool-invalid-rate × N, wrong when below (--tool-invalid-rate + --wrong-rate) × N, else
// right. A call the tool's schema makes (no reference) is invalid at the k-th such call when
// ⌊k·rate⌋ > ⌊(k−1)·rate⌋: ⌊rate·K⌋ of the first K. Invalid calls alternate, by their rank + 1
// (a known question: the same question, the same call) or their count (schema calls): the odd
// ones are not JSON (the closing brace dropped), the even ones break the schema (the first
// required property left out; not JSON where nothing is required).
// A wrong call changes the reference's first value (a string gains " (wrong)", a number + 1, a
// boolean flips); a call without arguments cannot be wrong and is answered right.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tools.hpp"
#include "mockapi/mock_response.hpp"

namespace tokbench::mock {

/// Arguments that satisfy `schema` (JSON text; "" = any object), made by the rule in
/// docs/METRICS.md ("The simulator's tool calls"): the required properties (every property when
/// none is required), each the first enum or const value, else a value of its first type (a
/// string "w<seed>", the least integer or number the bounds allow, true, null, one item, an
/// object made by the same rule).
std::string arguments_for(std::string_view schema, uint64_t seed);

/// The arguments in the pieces they are streamed in (4 bytes, whole UTF-8 characters).
std::vector<std::string> argument_pieces(std::string_view arguments);

/// The output plan of an answer that is a call of `pieces` pieces: it ends with the call, unless
/// ignore_eos or min_tokens ask for more (padding) or the cap (`plan`'s length with ignore_eos,
/// else `cap`) cuts it.
Plan called_plan(Plan plan, const CompletionRequest& cr, size_t pieces, int64_t cap);

class ToolCaller {
 public:
  /// `answers`: "tools:PATH" (the reference calls of a qa file's questions) or anything else
  /// (none). Throws std::runtime_error naming the line or the fix.
  ToolCaller(const std::string& answers, uint64_t seed, double invalid_rate, double wrong_rate,
             double json_invalid_rate = 0, int64_t tool_rounds = 0);

  /// The call a request gets (its name and arguments' text), or nullopt: a text answer.
  std::optional<core::ToolCall> call(const CompletionRequest& cr, uint64_t seq);

  /// The answer of a request held to a JSON Schema (its json_schema): a document the schema
  /// accepts, made by arguments_for's rule, or — the k-th such answer when ⌊k·rate⌋ >
  /// ⌊(k−1)·rate⌋ (--json-invalid-rate) — the same without its last character (not JSON).
  std::string structured(const CompletionRequest& cr, uint64_t seq);

  size_t questions() const { return refs_.size(); }
  /// tokbench_mock_tool_calls_total{verdict="right"|"wrong"|"valid"|"bad_json"|"invalid"}.
  std::string render(const std::string& model_labels) const;

 private:
  /// The j-th invalid call (1-based): odd j not JSON, even j without a required property.
  std::optional<core::ToolCall> invalid(core::ToolCall call, std::string_view schema, uint64_t j);

  std::unordered_map<std::string, size_t> line_of_;  // question -> its line
  std::vector<core::ToolCall> refs_;
  uint64_t a_ = 1, b_ = 0;
  double invalid_rate_, wrong_rate_;
  std::atomic<uint64_t> made_{0};  // calls made from a schema (the k of the rule above)
  std::atomic<uint64_t> invalid_made_{0};
  std::atomic<uint64_t> right_{0}, wrong_{0}, valid_{0}, bad_json_{0}, invalid_{0};
  double json_invalid_rate_ = 0;
  int64_t tool_rounds_ = 0;  // --tool-rounds: an agent's rounds of calls before its text answer
  std::atomic<uint64_t> documents_{0}, documents_broken_{0};
};

}  // namespace tokbench::mock
