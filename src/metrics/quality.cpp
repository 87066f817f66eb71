#include "metrics/quality.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/answer_regex.hpp"

namespace tokbench::metrics {

QualityPass::QualityPass(std::string finish_reasons, std::string cap_reason)
    : cap_reason_(std::move(cap_reason)) {
  for (size_t b = 0; b < finish_reasons.size();) {
    size_t e = finish_reasons.find(',', b);
    if (e == std::string::npos) e = finish_reasons.size();
    if (e > b) defined_.push_back(finish_reasons.substr(b, e - b));
    b = e + 1;
  }
}

namespace {

// One verdict into a tally of them (tool calls' and structured answers' share the names).
template <typename Tally>
void count_check(core::ToolCheck c, Tally& t) {
  t.valid += c == core::ToolCheck::Valid;
  t.bad_json += c == core::ToolCheck::BadJson;
  t.invalid += c == core::ToolCheck::Invalid;
  t.unchecked += c == core::ToolCheck::Unchecked;
  if constexpr (requires { t.unknown_tool; }) t.unknown_tool += c == core::ToolCheck::UnknownTool;
}

void add_tools(const record::RequestRecord& r, ToolTally& t) {
  if (!r.tools_offered) return;
  ++t.offered;
  t.calls += static_cast<int64_t>(r.tool_calls.size());
  t.with_calls += !r.tool_calls.empty();
  count_check(r.tool_check, t);
  t.matched += r.tool_match == record::AnswerMark::Right;
  t.mismatched += r.tool_match == record::AnswerMark::Wrong;
  if (r.sent_ns == record::kNone) return;
  int64_t tokens = 0, events = 0, last_count = 0;
  bool counted = true;  // every tool-call event carried a usage count
  for (const record::ChunkEvent& c : r.chunks) {
    if (c.choice != 0) continue;
    if (c.kind == record::ChunkKind::ToolCall) {
      if (events++ == 0) {
        ++t.first_call_n;
        t.first_call_ms_sum += static_cast<double>(c.t_ns - r.sent_ns) / 1e6;
      }
      counted = counted && c.cum_tokens >= 0;
      tokens += c.cum_tokens >= 0 ? std::max<int64_t>(0, c.cum_tokens - last_count) : 1;
    }
    if (c.cum_tokens >= 0) last_count = c.cum_tokens;
  }
  if (events == 0) return;
  ++t.argument_answers;
  t.argument_tokens += tokens;
  t.argument_tokens_estimated += !counted;
}

}  // namespace

void QualityPass::add(const record::RequestRecord& r) {
  using record::AnswerMark;
  AnswerTally& a = q_.answers;
  if (r.ok()) {
    add_tools(r, q_.tools);
    count_check(r.schema_check, q_.structured);
  }
  if (!r.ok()) {
    // The key is not saved: read back, a failed request that had one carries a mark (the
    // recorder's).
    if (r.answer_key.kind != core::AnswerKey::Kind::None || r.answer_mark != AnswerMark::None)
      ++a.failed;
    return;
  }
  switch (r.answer_mark) {
    case AnswerMark::Right:
      ++a.right;
      break;
    case AnswerMark::Wrong:
      ++a.wrong;
      break;
    case AnswerMark::Unscored:
      ++a.unscored;
      a.regex_limit += r.not_checked == record::NotChecked::RegexLimit;
      a.backlog += r.not_checked == record::NotChecked::Backlog;
      break;
    case AnswerMark::None:
      break;
  }
  if (defined_.empty()) return;  // nothing generated (embeddings): no output to judge
  Integrity& in = q_.integrity;
  ++in.outputs;
  if (r.output_chars == 0) ++in.empty;
  in.unread += r.not_checked == record::NotChecked::Backlog;
  if (!r.ignore_eos_sent && !cap_reason_.empty() && r.finish_reason == cap_reason_) ++in.truncated;
  if (r.repeating >= 0 || r.valid_utf8 >= 0) {
    ++in.text_checked;
    in.repeating += r.repeating == 1;
    in.invalid_utf8 += r.valid_utf8 == 0;
  }
  if (r.finish_reason.empty()) {
    ++in.no_finish;
  } else if (std::find(defined_.begin(), defined_.end(), r.finish_reason) == defined_.end()) {
    if (in.unknown_finish++ == 0) in.unknown_example = r.finish_reason.substr(0, 64);
  }
  if (r.probe) {
    ++q_.determinism.probes;
    if (hashes_.size() < kMaxProbeHashes) hashes_.insert(r.output_hash);
  }
}

Quality QualityPass::finish() const {
  Quality q = q_;
  q.determinism.distinct = static_cast<int64_t>(hashes_.size());
  return q;
}

std::string Quality::accuracy_text() const {
  if (!answers.any()) return {};
  const WilsonInterval w = answers.interval();
  std::string out =
      answers.scored() > 0
          ? fmt::format("accuracy {:.3f} [{:.3f}, {:.3f}] (95% Wilson interval; {} of {} right",
                        w.p, w.low, w.high, answers.right, answers.scored())
          : std::string("accuracy n/a (no output could be scored");
  out += fmt::format("; {} unscored", answers.unscored);
  if (answers.regex_limit + answers.backlog > 0) {
    std::string why;
    if (answers.regex_limit > 0) why = fmt::format("{} regex limit", answers.regex_limit);
    if (answers.backlog > 0)
      why += fmt::format("{}{} not read: checks behind", why.empty() ? "" : ", ", answers.backlog);
    out += " (" + why + ")";
  }
  if (answers.failed > 0) out += fmt::format("; {} failed, not scored", answers.failed);
  return out + ")";
}

std::string Quality::tools_text() const {
  const ToolTally& t = tools;
  if (!t.any()) return {};
  std::string out = fmt::format("{:.2f} per answer ({} of {} answer(s) called)",
                                static_cast<double>(t.calls) / static_cast<double>(t.offered),
                                t.with_calls, t.offered);
  if (t.judged() > 0) {
    const WilsonInterval v = t.validity();
    std::string why;  // the kinds of invalid calls there were
    for (const auto& [n, what] : {std::pair{t.bad_json, "bad JSON"},
                                  {t.unknown_tool, "unknown tool"},
                                  {t.invalid, "against the schema"}})
      if (n > 0) why += fmt::format("{}{} {}", why.empty() ? ": " : ", ", n, what);
    out += fmt::format("; valid {:.3f} [{:.3f}, {:.3f}] ({} of {}{})", v.p, v.low, v.high, t.valid,
                       t.judged(), why);
  }
  if (t.unchecked > 0)
    out += fmt::format("; {} unchecked (a schema keyword tokbench does not check)", t.unchecked);
  if (t.matched + t.mismatched > 0) {
    const WilsonInterval m = t.matching();
    out += fmt::format("; matched the reference {:.3f} [{:.3f}, {:.3f}] ({} of {})", m.p, m.low,
                       m.high, t.matched, t.matched + t.mismatched);
  }
  if (t.first_call_n > 0)
    out += fmt::format("; first call token {:.1f} ms (mean of {})",
                       t.first_call_ms_sum / static_cast<double>(t.first_call_n), t.first_call_n);
  if (t.argument_answers > 0)  // an estimate where events were counted: said
    out += fmt::format(
        "; {:.1f} argument tokens a call{}",
        static_cast<double>(t.argument_tokens) / static_cast<double>(t.argument_answers),
        t.argument_tokens_estimated > 0 ? " (estimated: one an event)" : "");
  return out + " (95% Wilson intervals)";
}

std::vector<std::string> Quality::warnings() const {
  std::vector<std::string> out;
  const Integrity& in = integrity;
  const int64_t unread_answer = answers.unscored - answers.regex_limit - answers.backlog;
  if (unread_answer > 0)
    out.push_back(
        fmt::format("{} output(s) gave no answer the rule could read: unscored, outside the "
                    "accuracy (\"right\": "
                    "null in the details; --keep-outputs N writes outputs to read)",
                    unread_answer));
  if (answers.regex_limit > 0)
    out.push_back(fmt::format(
        "{} output(s) are unscored (regex limit): the answer_regex hit PCRE2's match limit ({} "
        "steps) or its {} ms budget (\"not_checked\": \"regex limit\" in the details); a "
        "pattern without nested repeats, such as (a+)+, searches in linear time",
        answers.regex_limit, core::kRegexMatchLimit, core::kRegexBudgetMs));
  if (in.unread > 0)
    out.push_back(fmt::format(
        "{} of {} output(s) were let go unread (\"not_checked\": \"backlog\"): the checks fell "
        "behind the load (more text waiting than the recorder holds), or the run's end or a stop "
        "signal did not wait for "
        "them; their answers are unscored, and their text is not in the integrity counts",
        in.unread, in.outputs));
  if (in.empty > 0 && !all_empty())
    out.push_back(
        fmt::format("{} of {} successful output(s) were empty (no generated text): output_chars 0 "
                    "in the details",
                    in.empty, in.outputs));
  // A cut answer matters when answers are read; a throughput run caps its outputs on purpose (the
  // count stays in result.json).
  if (in.truncated > 0 && (answers.any() || in.text_checked > 0))
    out.push_back(fmt::format(
        "{} of {} output(s) were cut by the output cap without ignore_eos (finish_reason length): "
        "their answers may be incomplete; raise --max-tokens",
        in.truncated, in.outputs));
  if (in.repeating > 0)
    out.push_back(fmt::format(
        "{} of {} output(s) end in runaway repetition (a 1-32 word run repeated 4+ times over 16+ "
        "words): a decoding fault, or too high a --max-tokens with ignore_eos",
        in.repeating, in.text_checked));
  if (in.invalid_utf8 > 0)
    out.push_back(fmt::format(
        "{} of {} output(s) are not valid UTF-8: a detokenizer or a proxy cut a character",
        in.invalid_utf8, in.text_checked));
  if (in.unknown_finish > 0)
    out.push_back(fmt::format(
        "{} output(s) ended with a finish_reason the API does not define (first: '{}'): an aborted "
        "or failed generation the server called a success",
        in.unknown_finish, in.unknown_example));
  if (determinism.distinct > 1)
    out.push_back(fmt::format(
        "the {} identical probe request(s) gave {} different outputs: greedy decoding is not "
        "deterministic on this server (batch-dependent kernels, speculative decoding, or a fault)",
        determinism.probes, determinism.distinct));
  return out;
}

std::string output_hash(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace tokbench::metrics
