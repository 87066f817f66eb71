#include "measure/recorder.hpp"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>

#include "common/json_writer.hpp"
#include "metrics/answers.hpp"
#include "metrics/quality.hpp"
#include "metrics/slo.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokbench::runner {

using record::RequestRecord;

namespace {

// `,"slo":{"ttft":true,"tpot":false,"good":false}`: which --goodput SLOs one request met.
std::string slo_field(const RequestRecord& r, const metrics::GoodputSpec& spec) {
  const metrics::SloResult s = metrics::judge_slo(r, spec);
  std::string out = ",\"slo\":{";
  for (const auto& [name, met] : {std::pair{"ttft", s.ttft}, {"tpot", s.tpot}, {"e2el", s.e2el}})
    if (met) out += fmt::format("\"{}\":{},", name, *met);
  return out + fmt::format("\"good\":{}}}", s.good);
}

// The text a record holds while it waits for the checks.
size_t text_bytes(const RequestRecord& r) {
  return r.output_text.capacity() + r.prompt_text.capacity();  // what they hold, not their length
}

// The calls of an answer whose body offered tools, against the tools and the line's reference
// (core/tools' rules): every successful answer's, with or without --check-answers. An answer
// without a call has no validity to judge, but misses a reference call.
void check_tools(RequestRecord& r) {
  if (!r.tools || !r.ok()) return;
  // A call is its place among an answer's blocks (Anthropic's content, Responses' output items):
  // the places of text between calls leave nothing to judge.
  std::erase_if(r.tool_calls,
                [](const core::ToolCall& c) { return c.name.empty() && c.arguments.empty(); });
  if (!r.tool_calls.empty()) {
    if (r.tool_calls_cut) {
      r.tool_check = core::ToolCheck::BadJson;
      r.tool_why =
          "the calls passed tokbench's caps (64 calls, 1 MiB of arguments each) and were cut";
    } else {
      r.tool_check = core::check_calls(r.tool_calls, *r.tools, &r.tool_why);
    }
  }
  if (r.tool_reference)
    r.tool_match = core::calls_match(r.tool_calls, *r.tool_reference) ? record::AnswerMark::Right
                                                                      : record::AnswerMark::Wrong;
}

// --json-schema: a successful answer's text against the schema it was asked for (its text read
// here unless the checks fell behind and let it go).
void check_structured(RequestRecord& r) {
  if (!r.json_schema || !r.ok() || r.not_checked == record::NotChecked::Backlog) return;
  r.schema_check = core::check_document(r.output_text, *r.json_schema, &r.schema_why);
  if (r.schema_check == core::ToolCheck::Valid) r.schema_why.clear();
}

}  // namespace

Recorder::Recorder(const std::filesystem::path& perf_dir, const std::string& abbr,
                   const tokenizer::Tokenizer* tok, const metrics::GoodputSpec& goodput,
                   const OutputChecks& checks)
    : abbr_(abbr),
      details_((perf_dir / (abbr + "_details.jsonl")).string()),
      failed_path_(perf_dir / (abbr + "_failed.jsonl")),
      tok_(tok),
      goodput_(goodput),
      checks_(checks),
      outputs_path_(perf_dir / (abbr + "_outputs.jsonl")),
      thread_([this] { loop(); }) {
  // Outputs' text is allocated by the client's threads and freed here; glibc's mmap threshold
  // would otherwise rise to the largest output freed, and long outputs would then come from the
  // heap and stay there (a backlog of 64 MiB of 200 KB outputs peaked at 190 MB, 134 MB with it).
  if (checks_.reads_text()) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

Recorder::~Recorder() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Recorder::add(RequestRecord&& r) {
  std::string().swap(r.content_text);  // the source had it (an agent's next turn): not kept here
  if (!r.warmup) {
    ++measured_done_;
    if (!r.ok() && !r.apart()) ++failed_count_;
    if (r.completion_tokens > 0) output_tokens_ += r.completion_tokens;
  }
  {
    std::lock_guard lock(mu_);
    if (checks_.reads_text() && !r.warmup) {
      const size_t bytes = text_bytes(r);
      if (queued_text_ + bytes > kMaxCheckBacklogBytes)
        let_go_unread(r);  // the checks are behind: this one is not read, memory stays bounded
      else
        queued_text_ += bytes;
    }
    if (r.warmup) {
      ++warmup_.total;
      if (r.ok()) {
        ++warmup_.ok;
      } else if (warmup_.first_failure.empty()) {
        warmup_.first_failure = fmt::format("{} {}", record::outcome_name(r.outcome), r.error);
      }
    }
    queue_.push_back(std::move(r));
  }
  cv_.notify_one();
}

// Reads the output before it goes: the answer against the line's reference, the text checks, a
// probe's hash, and the first --keep-outputs outputs in full.
void Recorder::check(RequestRecord& r) {
  if (r.probe && r.ok()) r.output_hash = metrics::output_hash(r.output_text);
  // A failed request that had a reference: "right": null, read back as not scored because it
  // failed.
  if (checks_.answers && !r.ok() && !r.warmup && !r.apart() &&
      r.answer_key.kind != core::AnswerKey::Kind::None)
    r.answer_mark = record::AnswerMark::Unscored;
  if (checks_.answers && r.ok() && !r.warmup) {
    if (const auto s = metrics::score_answer(r.answer_key, r.output_text)) {
      r.answer_mark = !s->extracted ? record::AnswerMark::Unscored
                      : s->right    ? record::AnswerMark::Right
                                    : record::AnswerMark::Wrong;
      r.answer = s->extracted.value_or("");
      if (s->regex_limit) r.not_checked = record::NotChecked::RegexLimit;
    }
    r.repeating = metrics::runaway_repetition(r.output_text) ? 1 : 0;
    r.valid_utf8 = metrics::valid_utf8(r.output_text) ? 1 : 0;
  }
  if (r.warmup || r.index >= checks_.keep_outputs || r.apart()) return;
  JsonWriter w;
  w.begin_object().field("id", r.index).field("success", r.ok()).field("prompt", r.prompt_text);
  w.field("output", r.output_text).field("finish_reason", r.finish_reason);
  if (r.answer_key.kind != core::AnswerKey::Kind::None)
    w.field("reference", r.answer_key.reference);
  record::write_answer_fields(w, r);
  w.end_object();
  if (!outputs_) outputs_ = std::make_unique<record::LineAppender>(outputs_path_.string());
  outputs_->append(w.take());
}

// The output goes unread: its answer (when it had a reference) unscored, its text let go.
void Recorder::let_go_unread(RequestRecord& r) {
  r.not_checked = record::NotChecked::Backlog;
  if (checks_.answers && r.answer_key.kind != core::AnswerKey::Kind::None)
    r.answer_mark = record::AnswerMark::Unscored;
  std::string().swap(r.output_text);
  std::string().swap(r.prompt_text);
  if (r.ok()) ++unchecked_;
}

void Recorder::process(RequestRecord& r) {
  r.rank = rank_;
  if (hurry_.load() && checks_.reads_text() && !r.warmup && r.not_checked == record::NotChecked::No)
    let_go_unread(r);
  if (r.not_checked != record::NotChecked::Backlog && (checks_.reads_text() || r.probe)) check(r);
  if (tok_) {
    r.prompt_tokens_local = static_cast<int64_t>(tok_->count(r.prompt_text, false));
    if (!r.output_text.empty() || r.ok())
      r.completion_tokens_local = static_cast<int64_t>(tok_->count(r.output_text, false));
  }
  check_tools(r);
  check_structured(r);
  std::string line = record::to_json_line(r, abbr_);
  if (!goodput_.empty() && !r.warmup && !r.apart() && line.ends_with('}'))
    line.insert(line.size() - 1, slo_field(r, goodput_));
  details_.append(line);
  ++written_;
  if (!r.ok() && !r.apart()) {  // cut at a duration's end: not a failure
    if (!failed_) failed_ = std::make_unique<record::LineAppender>(failed_path_.string());
    failed_->append(line);
  }
  if (on_written_) on_written_(r);
}

void Recorder::loop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty() && stop_) return;
    std::deque<RequestRecord> batch;
    batch.swap(queue_);
    in_process_ = batch.size();
    std::string error = write_error_;  // after the disk failed once, nothing more is attempted
    size_t batch_text = 0;
    if (checks_.reads_text())
      for (const auto& r : batch)
        if (!r.warmup) batch_text += text_bytes(r);
    lock.unlock();
    for (auto& r : batch) {
      try {
        if (error.empty()) process(r);
      } catch (const std::exception& e) {
        error = e.what();  // the disk is full or gone: what is written stays valid
      }
    }
    batch.clear();  // written, and let go
    lock.lock();
    queued_text_ -= std::min(queued_text_, batch_text);
    if (!error.empty() && write_error_.empty()) {
      write_error_ = error;
      if (on_write_error_) {
        lock.unlock();
        on_write_error_(error);
        lock.lock();
      }
    }
    in_process_ = 0;
    idle_cv_.notify_all();
  }
}

void Recorder::drain(const std::atomic<int>* stop, std::chrono::milliseconds deadline) {
  const auto give_up = std::chrono::steady_clock::now() + deadline;
  std::unique_lock lock(mu_);
  const auto idle = [&] { return queue_.empty() && in_process_ == 0; };
  while (!idle_cv_.wait_for(lock, std::chrono::milliseconds(50), idle)) {
    if ((stop && stop->load() != 0 /* client::kRunning */) ||
        std::chrono::steady_clock::now() > give_up)
      hurry_ = true;
  }
  hurry_ = false;
}

int64_t Recorder::held() const {
  std::lock_guard lock(mu_);
  return static_cast<int64_t>(queue_.size() + in_process_);
}

size_t Recorder::text_waiting() const {
  std::lock_guard lock(mu_);
  return queued_text_;
}

WarmupTally Recorder::warmup() const {
  std::lock_guard lock(mu_);
  return warmup_;
}

std::string Recorder::write_error() const {
  std::lock_guard lock(mu_);
  return write_error_;
}

}  // namespace tokbench::runner
