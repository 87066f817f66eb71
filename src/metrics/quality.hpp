#pragma once
// metrics/quality: what came back, beside how fast it came (docs/METRICS.md, "Answer checking").
// From the records, in one pass and in bounded memory (counters, and the distinct hashes of the
// --determinism-probe outputs, at most kMaxProbeHashes):
//  - accuracy (--check-answers): right / (right + wrong) with Wilson's 95% interval; outputs the
//    rule could read nothing from are unscored, and failed requests have no output to score —
//    both counted beside it, never folded in;
//  - integrity, for every successful output with or without a reference: empty (no generated
//    text), cut by the output cap while ignore_eos was not sent, runaway repetition and invalid
//    UTF-8 (read from the text: only with --check-answers), and a finish reason the API does not
//    define;
//  - determinism: how many different outputs the identical greedy probes gave.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "metrics/answers.hpp"
#include "record/record.hpp"

namespace tokbench::metrics {

inline constexpr size_t kMaxProbeHashes = 4096;

struct AnswerTally {
  int64_t right = 0, wrong = 0;
  int64_t unscored = 0;     ///< answered, but the rule read no answer from the output
  int64_t regex_limit = 0;  ///< of the unscored: the answer_regex hit its match limit or budget
  int64_t backlog = 0;      ///< of the unscored: let go unread, the checks being behind
  int64_t failed = 0;       ///< requests with a reference that failed: no output to score
  int64_t scored() const { return right + wrong; }
  bool any() const { return right + wrong + unscored + failed > 0; }
  WilsonInterval interval() const { return wilson_interval(right, scored()); }
};

struct Integrity {
  int64_t outputs = 0;  ///< successful measured requests of an API that generates
  int64_t empty = 0;    ///< no generated text, reasoning or tool call
  int64_t truncated =
      0;  ///< ended by the output cap (finish reason "length" or the API's word) without ignore_eos
  int64_t text_checked = 0;  ///< outputs whose text was read (--check-answers)
  int64_t unread =
      0;  ///< outputs let go unread: the checks fell behind (measure/recorder's bounds)
  int64_t repeating = 0;        ///< of those: runaway repetition at the end (metrics/answers' rule)
  int64_t invalid_utf8 = 0;     ///< of those: not well-formed UTF-8
  int64_t unknown_finish = 0;   ///< a finish reason the API does not define
  std::string unknown_example;  ///< the first such reason
  int64_t no_finish = 0;        ///< no finish reason at all
};

/// Tool calls (docs/METRICS.md, "Tool calls"): successful answers to bodies that offered tools,
/// each judged by its worst call (core/tools' rules).
struct ToolTally {
  int64_t offered = 0;     ///< successful answers to bodies that offered tools
  int64_t with_calls = 0;  ///< of those: answers that made at least one call
  int64_t calls = 0;       ///< calls made in all
  int64_t valid = 0, bad_json = 0, unknown_tool = 0, invalid = 0;
  int64_t unchecked =
      0;  ///< a schema keyword tokbench does not check decided it: outside the share
  int64_t matched = 0, mismatched = 0;  ///< answers to lines that name a reference call
  int64_t first_call_n = 0;             ///< answers whose stream timed a first tool-call token
  double first_call_ms_sum = 0;         ///< their times from sending to it
  /// Argument tokens of streamed answers with calls (choice 0): each tool-call event's tokens,
  /// from the usage count it carried (--continuous-usage), else one an event (an estimate where
  /// a server packs several tokens in one, counted in `argument_tokens_estimated`).
  int64_t argument_answers = 0, argument_tokens = 0, argument_tokens_estimated = 0;
  int64_t judged() const { return valid + bad_json + unknown_tool + invalid; }
  WilsonInterval validity() const { return wilson_interval(valid, judged()); }
  WilsonInterval matching() const { return wilson_interval(matched, matched + mismatched); }
  bool any() const { return offered > 0; }
};

/// Structured output (--json-schema): successful answers held to a schema, by their verdict.
struct StructuredTally {
  int64_t valid = 0, bad_json = 0, invalid = 0;
  int64_t unchecked = 0;  ///< a keyword tokbench does not check decided it: outside the share
  int64_t judged() const { return valid + bad_json + invalid; }
  WilsonInterval validity() const { return wilson_interval(valid, judged()); }
  bool any() const { return judged() + unchecked > 0; }
};

struct Determinism {
  int64_t probes = 0;    ///< successful --determinism-probe requests
  int64_t distinct = 0;  ///< different outputs among them (1 = all identical)
};

struct Quality {
  AnswerTally answers;
  Integrity integrity;
  Determinism determinism;
  ToolTally tools;
  StructuredTally structured;
  /// "tool calls: 1.00 per answer (40 of 40 answers made one); valid 0.750 [...]" ("" = no tools).
  std::string tools_text() const;
  /// Every successful output was empty: the token figures measure nothing (INVALID).
  bool all_empty() const { return integrity.outputs > 0 && integrity.empty == integrity.outputs; }
  /// "accuracy 0.750 [0.727, 0.772] (95% Wilson, 990 of 1319 right; 0 unscored)" ("" when no
  /// reference).
  std::string accuracy_text() const;
  /// The counts worth a warning, each a sentence that names what to look at.
  std::vector<std::string> warnings() const;
};

/// The run facts the counts need: the API's defined finish reasons (comma-separated; "" = the
/// API generates nothing, no check) and the one that means the cap cut the answer.
class QualityPass {
 public:
  QualityPass(std::string finish_reasons, std::string cap_reason);
  void add(const record::RequestRecord&
               r);  ///< measured records (the caller skips warm-up and cut ones)
  Quality finish() const;

 private:
  std::vector<std::string> defined_;
  std::string cap_reason_;
  Quality q_;
  std::set<std::string> hashes_;
};

/// FNV-1a 64 of `text`, as 16 hex digits (the probes' output_hash).
std::string output_hash(std::string_view text);

}  // namespace tokbench::metrics
