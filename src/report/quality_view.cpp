#include "report/quality_view.hpp"

#include <fmt/format.h>

namespace tokbench::report {

using metrics::Quality;

bool outputs_read(const Quality& q) {
  return q.answers.any() || q.integrity.text_checked > 0 || q.determinism.probes > 0 ||
         q.tools.any() || q.structured.any();
}

namespace {

void write_share(JsonWriter& w, std::string_view key, const metrics::WilsonInterval& i, int64_t n) {
  w.key(key);
  if (n == 0) {
    w.null();
    return;
  }
  w.begin_object().field("share", i.p).key("interval").begin_array().value(i.low).value(i.high);
  w.end_array().field("of", n).end_object();
}

// quality.tools: null when no body offered tools.
void write_tools_json(JsonWriter& w, const metrics::ToolTally& t) {
  w.key("tools");
  if (!t.any()) {
    w.null();
    return;
  }
  w.begin_object().field("answers", t.offered).field("answers_with_calls", t.with_calls);
  w.field("calls", t.calls);
  write_share(w, "valid", t.validity(), t.judged());
  w.field("bad_json", t.bad_json).field("unknown_tool", t.unknown_tool);
  w.field("invalid_by_schema", t.invalid).field("unchecked", t.unchecked);
  write_share(w, "matched", t.matching(), t.matched + t.mismatched);
  w.key("first_tool_call_ms_mean");
  if (t.first_call_n > 0)
    w.value(t.first_call_ms_sum / static_cast<double>(t.first_call_n));
  else
    w.null();
  w.key("argument_tokens_mean");  // per streamed answer that called
  if (t.argument_answers > 0)
    w.value(static_cast<double>(t.argument_tokens) / static_cast<double>(t.argument_answers));
  else
    w.null();
  w.field("argument_tokens_estimated", t.argument_tokens_estimated);
  w.field("interval_method", "Wilson score, 95%").end_object();
}

}  // namespace

void write_quality_json(JsonWriter& w, const Quality& q) {
  w.key("quality").begin_object();
  const metrics::AnswerTally& a = q.answers;
  w.key("answers");
  if (a.any()) {
    w.begin_object();
    const metrics::WilsonInterval i = a.interval();
    if (a.scored() > 0) {
      w.field("accuracy", i.p).key("interval").begin_array().value(i.low).value(i.high).end_array();
      w.field("interval_method", "Wilson score, 95%");
    } else {
      w.key("accuracy").null().key("interval").null();
    }
    w.field("right", a.right)
        .field("wrong", a.wrong)
        .field("unscored", a.unscored)
        .field("unscored_regex_limit", a.regex_limit)
        .field("unscored_not_read", a.backlog)
        .field("failed", a.failed);
    w.end_object();
  } else {
    w.null();
  }
  const metrics::Integrity& in = q.integrity;
  w.key("integrity")
      .begin_object()
      .field("outputs", in.outputs)
      .field("empty", in.empty)
      .field("truncated", in.truncated);
  w.field("text_checked", in.text_checked).field("not_read", in.unread);
  for (const auto& [key, n] :
       {std::pair{"repeating", in.repeating}, {"invalid_utf8", in.invalid_utf8}}) {
    w.key(key);
    if (in.text_checked > 0)
      w.value(n);
    else
      w.null();  // null: the text was not read (--check-answers)
  }
  w.field("unknown_finish_reason", in.unknown_finish)
      .field("unknown_finish_reason_example", in.unknown_example);
  w.field("no_finish_reason", in.no_finish).end_object();
  write_tools_json(w, q.tools);
  w.key("structured");
  if (const metrics::StructuredTally& st = q.structured; st.any()) {
    w.begin_object();
    write_share(w, "valid", st.validity(), st.judged());
    w.field("bad_json", st.bad_json).field("invalid_by_schema", st.invalid);
    w.field("unchecked", st.unchecked).field("interval_method", "Wilson score, 95%").end_object();
  } else {
    w.null();
  }
  w.key("determinism");
  if (q.determinism.probes > 0)
    w.begin_object()
        .field("probes", q.determinism.probes)
        .field("distinct_outputs", q.determinism.distinct)
        .end_object();
  else
    w.null();
  w.end_object();
}

std::string quality_csv(const Quality& q) {
  std::string out = "check,value,low,high,count,of\n";
  const metrics::AnswerTally& a = q.answers;
  if (a.any()) {
    const metrics::WilsonInterval i = a.interval();
    if (a.scored() > 0)
      out += fmt::format("accuracy,{:.6f},{:.6f},{:.6f},{},{}\n", i.p, i.low, i.high, a.right,
                         a.scored());
    out += fmt::format("unscored,,,,{},{}\n", a.unscored, a.scored() + a.unscored);
    out += fmt::format("failed_with_reference,,,,{},{}\n", a.failed,
                       a.scored() + a.unscored + a.failed);
  }
  const metrics::Integrity& in = q.integrity;
  out += fmt::format("empty,,,,{},{}\n", in.empty, in.outputs);
  out += fmt::format("truncated,,,,{},{}\n", in.truncated, in.outputs);
  if (in.text_checked > 0) {
    out += fmt::format("repeating,,,,{},{}\n", in.repeating, in.text_checked);
    out += fmt::format("invalid_utf8,,,,{},{}\n", in.invalid_utf8, in.text_checked);
  }
  out += fmt::format("unknown_finish_reason,,,,{},{}\n", in.unknown_finish, in.outputs);
  if (const metrics::ToolTally& t = q.tools; t.judged() > 0) {
    const metrics::WilsonInterval v = t.validity();
    out += fmt::format("tool_calls_valid,{:.6f},{:.6f},{:.6f},{},{}\n", v.p, v.low, v.high, t.valid,
                       t.judged());
  }
  if (const metrics::ToolTally& t = q.tools; t.matched + t.mismatched > 0) {
    const metrics::WilsonInterval m = t.matching();
    out += fmt::format("tool_calls_matched,{:.6f},{:.6f},{:.6f},{},{}\n", m.p, m.low, m.high,
                       t.matched, t.matched + t.mismatched);
  }
  if (const metrics::StructuredTally& st = q.structured; st.judged() > 0) {
    const metrics::WilsonInterval v = st.validity();
    out += fmt::format("structured_valid,{:.6f},{:.6f},{:.6f},{},{}\n", v.p, v.low, v.high,
                       st.valid, st.judged());
  }
  if (q.determinism.probes > 0)
    out += fmt::format("probe_distinct_outputs,,,,{},{}\n", q.determinism.distinct,
                       q.determinism.probes);
  return out;
}

std::vector<std::string> quality_lines(const Quality& q) {
  std::vector<std::string> out;
  if (q.answers.any()) out.push_back("answers: " + q.accuracy_text());
  if (q.tools.any()) out.push_back("tool calls: " + q.tools_text());
  if (const metrics::StructuredTally& st = q.structured; st.any()) {
    const metrics::WilsonInterval v = st.validity();
    out.push_back(fmt::format(
        "structured output: valid against --json-schema {:.3f} [{:.3f}, {:.3f}] (95% Wilson; {} "
        "of {}: {} not JSON, {} against the schema){}",
        v.p, v.low, v.high, st.valid, st.judged(), st.bad_json, st.invalid,
        st.unchecked > 0
            ? fmt::format("; {} unchecked (a schema keyword tokbench does not check)", st.unchecked)
            : std::string()));
  }
  const metrics::Integrity& in = q.integrity;
  if (in.outputs > 0) {
    std::string line = fmt::format(
        "integrity: of {} output(s), {} empty, {} cut by the output cap without ignore_eos, {} "
        "with "
        "an undefined finish_reason",
        in.outputs, in.empty, in.truncated, in.unknown_finish);
    line += in.text_checked > 0
                ? fmt::format("; of {} read, {} repeating, {} invalid UTF-8", in.text_checked,
                              in.repeating, in.invalid_utf8)
                : std::string("; repetition and UTF-8 not checked (--check-answers)");
    out.push_back(line);
  }
  if (q.determinism.probes > 0)
    out.push_back(fmt::format("determinism: {} identical probe(s), {} distinct output(s){}",
                              q.determinism.probes, q.determinism.distinct,
                              q.determinism.distinct == 1 ? " (all identical)" : ""));
  return out;
}

}  // namespace tokbench::report
