#include "record/record_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "common/json_fields.hpp"
#include "common/json_writer.hpp"

namespace tokbench::record {

namespace {

void put_count(JsonWriter& w, std::string_view k, int64_t v) {
  w.key(k);
  if (v == kNone) {
    w.null();
  } else {
    w.value(v);
  }
}

int64_t get_count(simdjson::dom::element obj, std::string_view k) {
  return json::strict_int(obj, k).value_or(kNone);
}

bool get_bool(simdjson::dom::element obj, std::string_view k, bool fallback) {
  return json::strict_bool(obj, k).value_or(fallback);
}

constexpr std::pair<std::string_view, int64_t RequestRecord::*> kTimes[] = {
    {"scheduled", &RequestRecord::scheduled_ns},
    {"sent", &RequestRecord::sent_ns},
    {"first_byte", &RequestRecord::first_byte_ns},
    {"first_event", &RequestRecord::first_event_ns},
    {"first_token", &RequestRecord::first_token_ns},
    {"last_token", &RequestRecord::last_token_ns},
    {"last_event", &RequestRecord::last_event_ns},
    {"done", &RequestRecord::done_ns},
    {"dns_done", &RequestRecord::dns_done_ns},
    {"connect_done", &RequestRecord::connect_done_ns},
    {"tls_done", &RequestRecord::tls_done_ns},
    {"request_start", &RequestRecord::request_start_ns},
    {"request_sent", &RequestRecord::request_sent_ns},
    {"first_token_host", &RequestRecord::first_token_host_ns},
};

// The names of kTimes, for find_key.
constexpr auto kTimeKeys = [] {
  std::array<std::string_view, std::size(kTimes)> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = kTimes[i].first;
  return out;
}();

// The top level's keys that are read, in the order to_json_line writes them.
enum class Top : size_t {
  Id,
  Outcome,
  ErrorInfo,
  HttpStatus,
  Malformed,
  Choices,
  Model,
  Images,
  Documents,
  Rank,
  Class,
  Session,
  InputTokens,
  OutputTokens,
  CachedTokens,
  Warmup,
  Stream,
  Attempts,
  Connects,
  Resent,
  CancelPlanned,
  RequestId,
  ClientRequestId,
  Traceparent,
  FinishReason,
  OutputChars,
  LocalTokens,
  ServerTimings,
  IgnoreEosSent,
  Answer,
  Right,
  Repeating,
  ValidUtf8,
  NotChecked,
  Probe,
  OutputHash,
  Tools,
  Structured,
  TimingNs,
  Chunks,
  Unknown
};
constexpr std::array<std::string_view, static_cast<size_t>(Top::Unknown)> kTopKeys = {
    "id",
    "outcome",
    "error_info",
    "http_status",
    "malformed_sse_lines",
    "choices",
    "model",
    "images",
    "documents",
    "rank",
    "class",
    "session",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "warmup",
    "stream",
    "attempts",
    "connects",
    "resent",
    "cancel_planned",
    "request_id",
    "client_request_id",
    "traceparent",
    "finish_reason",
    "output_chars",
    "local_tokens",
    "server_timings",
    "ignore_eos_sent",
    "answer",
    "right",
    "repeating",
    "valid_utf8",
    "not_checked",
    "probe",
    "output_hash",
    "tools",
    "structured",
    "timing_ns",
    "chunks"};

// The index of `k` in `keys` (keys.size() when absent), searched from `hint` on and then from the
// start; `hint` moves past the match, so keys in the table's order cost one comparison each.
template <size_t N>
size_t find_key(const std::array<std::string_view, N>& keys, std::string_view k, size_t& hint) {
  for (size_t n = 0, i = hint; n < N; ++n, i = i + 1 == N ? 0 : i + 1) {
    if (keys[i] == k) {
      hint = i + 1 == N ? 0 : i + 1;
      return i;
    }
  }
  return N;
}
// A field's value, as strict as json::strict_*: null reads as absent, another type is an error
// that names the field.
int64_t count_of(simdjson::dom::element v, std::string_view k) {
  if (v.is_null()) return kNone;
  int64_t out = 0;
  if (v.get_int64().get(out))
    throw std::runtime_error("\"" + std::string(k) + "\" must be an integer");
  return out;
}
std::string_view string_of(simdjson::dom::element v, std::string_view k) {
  if (v.is_null()) return {};
  std::string_view out;
  if (v.get_string().get(out))
    throw std::runtime_error("\"" + std::string(k) + "\" must be a string");
  return out;
}
bool bool_of(simdjson::dom::element v, std::string_view k, bool fallback) {
  if (v.is_null()) return fallback;
  bool out = false;
  if (v.get_bool().get(out))
    throw std::runtime_error("\"" + std::string(k) + "\" must be true or false");
  return out;
}

// --check-answers and --determinism-probe: "answer" (null: nothing read) and "right" (null:
// unscored) when the line had a reference; "repeating" and "valid_utf8" when the text was
// checked; "probe" and "output_hash" for a probe. Absent otherwise.
void write_checks(JsonWriter& w, const RequestRecord& r) {
  write_answer_fields(w, r);
  if (r.repeating >= 0) w.field("repeating", r.repeating == 1);
  if (r.valid_utf8 >= 0) w.field("valid_utf8", r.valid_utf8 == 1);
  if (r.not_checked != NotChecked::No) w.field("not_checked", not_checked_name(r.not_checked));
  if (r.probe) w.field("probe", true);
  if (!r.output_hash.empty()) w.field("output_hash", r.output_hash);
  write_tool_fields(w, r);
  write_structured_fields(w, r);
}

int8_t flag_of(simdjson::dom::element v, std::string_view k) {
  return v.is_null() ? int8_t{-1} : static_cast<int8_t>(bool_of(v, k, false) ? 1 : 0);
}

void read_session(simdjson::dom::element session, RequestRecord& r) {
  r.session = get_count(session, "id");
  r.turn = get_count(session, "turn");
  r.session_start_ns = get_count(session, "start_ns");
  r.last_turn = get_bool(session, "last_turn", false);
  r.ready_ns = get_count(session, "ready_ns");  // an agent task's turn (absent elsewhere)
  r.tool_ns = get_count(session, "tool_ns");
  std::string_view end;
  if (!session["end"].get_string().get(end)) r.task_end = core::task_end_named(end);
  if (r.session == kNone || r.turn == kNone)
    throw std::runtime_error("\"session\" needs an \"id\" and a \"turn\"");
}

void read_local_tokens(simdjson::dom::element local, RequestRecord& r) {
  r.prompt_tokens_local = get_count(local, "prompt");
  r.completion_tokens_local = get_count(local, "completion");
  r.expected_prompt_tokens = get_count(local, "expected_prompt");
  r.requested_max_tokens = get_count(local, "requested_max");
}

void read_times(simdjson::dom::element timing, RequestRecord& r) {
  size_t hint = 0;
  const simdjson::dom::object times = timing.get_object().value_unsafe();
  for (const auto field : times) {
    const size_t i = find_key(kTimeKeys, field.key, hint);
    if (i < std::size(kTimes)) r.*kTimes[i].second = count_of(field.value, field.key);
  }
}

// The per-event arrays of "chunks": times, bytes, cumulative tokens, kinds (and choices when n >
// 1).
void read_chunks(simdjson::dom::element chunks, RequestRecord& r) {
  simdjson::dom::array t, bytes, cum;
  std::string_view kinds;
  if (chunks["t_ns"].get(t) || chunks["bytes"].get(bytes) || chunks["cum_tokens"].get(cum) ||
      chunks["kinds"].get(kinds)) {
    throw std::runtime_error("\"chunks\" needs t_ns, bytes, cum_tokens arrays and a kinds string");
  }
  const size_t n = kinds.size();
  if (t.size() != n || bytes.size() != n || cum.size() != n)
    throw std::runtime_error("\"chunks\" arrays differ in length");
  r.chunks.resize(n);
  size_t i = 0;
  for (auto v : t) r.chunks[i++].t_ns = v.get_int64().value_unsafe();
  i = 0;
  for (auto v : bytes) r.chunks[i++].bytes = static_cast<int32_t>(v.get_int64().value_unsafe());
  i = 0;
  for (auto v : cum)
    r.chunks[i++].cum_tokens =
        v.is_null() ? -1 : static_cast<int32_t>(v.get_int64().value_unsafe());
  for (i = 0; i < n; ++i) r.chunks[i].kind = static_cast<ChunkKind>(kinds[i]);
  simdjson::dom::array choice;
  if (!chunks["choice"].get(choice)) {
    if (choice.size() != n) throw std::runtime_error("\"chunks\" arrays differ in length (choice)");
    i = 0;
    for (auto v : choice) {
      int64_t c = 0;
      if (v.get_int64().get(c) || c < 0)
        throw std::runtime_error("\"chunks.choice\" holds a value that is not a choice index");
      r.chunks[i++].choice = static_cast<int16_t>(std::min(c, record::kMaxChoiceIndex));
    }
  }
}

}  // namespace

void write_answer_fields(JsonWriter& w, const RequestRecord& r) {
  if (r.answer_mark == AnswerMark::None) return;
  w.key("answer");
  if (r.answer_mark == AnswerMark::Unscored)
    w.null();
  else
    w.value(r.answer);
  w.key("right");
  if (r.answer_mark == AnswerMark::Unscored)
    w.null();
  else
    w.value(r.answer_mark == AnswerMark::Right);
}

std::string to_json_line(const RequestRecord& r, std::string_view data_abbr) {
  JsonWriter w;
  w.begin_object();
  w.field("data_abbr", data_abbr);
  w.field("id", r.index);
  w.field("success", r.ok());
  w.field("outcome", outcome_name(r.outcome));
  w.field("error_info", r.error);
  w.field("http_status", r.http_status);
  if (r.malformed_sse_lines > 0) w.field("malformed_sse_lines", r.malformed_sse_lines);
  if (r.choices > 1) w.field("choices", r.choices);
  if (!r.model.empty()) w.field("model", r.model);
  if (r.images > 0) w.field("images", r.images);
  if (r.documents > 0) w.field("documents", r.documents);
  if (r.rank != kNone) w.field("rank", r.rank);
  if (!r.traffic_class.empty()) w.field("class", r.traffic_class);
  if (r.session != kNone) {
    w.key("session").begin_object().field("id", r.session).field("turn", r.turn);
    w.field("start_ns", r.session_start_ns).field("last_turn", r.last_turn);
    if (r.ready_ns != kNone) w.field("ready_ns", r.ready_ns).field("tool_ns", r.tool_ns);
    if (r.task_end != core::TaskEnd::None) w.field("end", core::task_end_name(r.task_end));
    w.end_object();
  }
  put_count(w, "input_tokens", r.prompt_tokens);
  put_count(w, "output_tokens", r.completion_tokens);
  put_count(w, "cached_tokens", r.cached_tokens);
  w.field("warmup", r.warmup);
  w.field("stream", r.stream);
  w.field("attempts", r.attempts);
  put_count(w, "connects", r.connects);
  if (r.resent) w.field("resent", true);
  if (r.cancel_planned) w.field("cancel_planned", true);
  w.field("request_id", r.request_id);
  if (!r.client_request_id.empty()) w.field("client_request_id", r.client_request_id);
  if (!r.traceparent.empty()) w.field("traceparent", r.traceparent);
  w.field("finish_reason", r.finish_reason);
  w.field("output_chars", r.output_chars);
  w.key("local_tokens").begin_object();
  put_count(w, "prompt", r.prompt_tokens_local);
  put_count(w, "completion", r.completion_tokens_local);
  put_count(w, "expected_prompt", r.expected_prompt_tokens);
  put_count(w, "requested_max", r.requested_max_tokens);
  w.end_object();
  if (r.server_predicted_n != kNone || r.server_prompt_us != kNone || r.server_load_us != kNone ||
      r.server_queue_us != kNone) {
    w.key("server_timings").begin_object();
    put_count(w, "prompt_us", r.server_prompt_us);
    put_count(w, "predicted_us", r.server_predicted_us);
    put_count(w, "predicted_n", r.server_predicted_n);
    put_count(w, "load_us", r.server_load_us);
    put_count(w, "queue_us", r.server_queue_us);
    w.end_object();
  }
  w.field("ignore_eos_sent", r.ignore_eos_sent);
  write_checks(w, r);
  w.field("token_source", r.token_source());
  w.field("token_mismatch", r.token_mismatch());
  w.key("timing_ns").begin_object();
  for (const auto& [name, member] : kTimes) put_count(w, name, r.*member);
  w.end_object();
  w.key("chunks").begin_object();
  w.key("t_ns").begin_array();
  for (const auto& c : r.chunks) w.value(c.t_ns);
  w.end_array();
  w.key("bytes").begin_array();
  for (const auto& c : r.chunks) w.value(static_cast<int64_t>(c.bytes));
  w.end_array();
  w.key("cum_tokens").begin_array();
  for (const auto& c : r.chunks) {
    if (c.cum_tokens < 0) {
      w.null();
    } else {
      w.value(static_cast<int64_t>(c.cum_tokens));
    }
  }
  w.end_array();
  std::string kinds;
  kinds.reserve(r.chunks.size());
  for (const auto& c : r.chunks) kinds.push_back(static_cast<char>(c.kind));
  w.field("kinds", kinds);
  if (r.choices > 1) {  // n > 1: which choice each event was of (absent: all of choice 0)
    w.key("choice").begin_array();
    for (const auto& c : r.chunks) w.value(static_cast<int64_t>(c.choice));
    w.end_array();
  }
  w.end_object();
  w.end_object();
  return w.take();
}

RequestRecord from_json_line(std::string_view line) {
  simdjson::dom::parser parser;
  return from_json_line(line, parser);
}

RequestRecord from_json_line(std::string_view line, simdjson::dom::parser& parser) {
  simdjson::dom::element doc;
  if (auto err = parser.parse(line.data(), line.size(), true).get(doc)) {
    throw std::runtime_error(fmt::format("not valid JSON ({})", simdjson::error_message(err)));
  }
  if (!doc.is_object()) throw std::runtime_error("expected a JSON object");
  RequestRecord r;
  // The top level is walked once, each key dispatched by the table below (a lookup per key would
  // scan the object's ~25 keys each time: that was a sixth of `report`). The writer's order is
  // the table's, so the next key is almost always the one after the last.
  int64_t id = kNone, http_status = kNone, malformed = kNone, choices = kNone, images = kNone,
          documents = kNone, attempts = kNone;
  std::string_view outcome;
  std::optional<simdjson::dom::element> session, local, timing, chunks;
  simdjson::dom::object top = doc.get_object().value_unsafe();
  size_t hint = 0;
  for (const auto field : top) {
    const std::string_view k = field.key;
    const simdjson::dom::element v = field.value;
    switch (static_cast<Top>(find_key(kTopKeys, k, hint))) {  // absent: Top::Unknown
      case Top::Id:
        id = count_of(v, k);
        break;
      case Top::Outcome:
        outcome = string_of(v, k);
        break;
      case Top::ErrorInfo:
        r.error = string_of(v, k);
        break;
      case Top::HttpStatus:
        http_status = count_of(v, k);
        break;
      case Top::Malformed:
        malformed = count_of(v, k);
        break;
      case Top::Choices:
        choices = count_of(v, k);
        break;
      case Top::Model:
        r.model = string_of(v, k);
        break;
      case Top::Images:
        images = count_of(v, k);
        break;
      case Top::Documents:
        documents = count_of(v, k);
        break;
      case Top::Rank:
        r.rank = count_of(v, k);
        break;
      case Top::Class:
        r.traffic_class = string_of(v, k);
        break;
      case Top::Session:
        session = v;
        break;
      case Top::InputTokens:
        r.prompt_tokens = count_of(v, k);
        break;
      case Top::OutputTokens:
        r.completion_tokens = count_of(v, k);
        break;
      case Top::CachedTokens:
        r.cached_tokens = count_of(v, k);
        break;
      case Top::Warmup:
        r.warmup = bool_of(v, k, false);
        break;
      case Top::Stream:
        r.stream = bool_of(v, k, true);
        break;
      case Top::Attempts:
        attempts = count_of(v, k);
        break;
      case Top::Connects:
        r.connects = count_of(v, k);
        break;
      case Top::Resent:
        r.resent = bool_of(v, k, false);
        break;
      case Top::CancelPlanned:
        r.cancel_planned = bool_of(v, k, false);
        break;
      case Top::RequestId:
        r.request_id = string_of(v, k);
        break;
      case Top::ClientRequestId:
        r.client_request_id = string_of(v, k);
        break;
      case Top::Traceparent:
        r.traceparent = string_of(v, k);
        break;
      case Top::FinishReason:
        r.finish_reason = string_of(v, k);
        break;
      case Top::OutputChars:
        r.output_chars = count_of(v, k);
        break;
      case Top::LocalTokens:
        local = v;
        break;
      case Top::ServerTimings:
        r.server_prompt_us = get_count(v, "prompt_us");
        r.server_predicted_us = get_count(v, "predicted_us");
        r.server_predicted_n = get_count(v, "predicted_n");
        r.server_load_us = get_count(v, "load_us");
        r.server_queue_us = get_count(v, "queue_us");
        break;
      case Top::IgnoreEosSent:
        r.ignore_eos_sent = bool_of(v, k, false);
        break;
      case Top::Answer:
        r.answer = std::string(string_of(v, k));
        break;
      case Top::Right:
        r.answer_mark = v.is_null()            ? AnswerMark::Unscored
                        : bool_of(v, k, false) ? AnswerMark::Right
                                               : AnswerMark::Wrong;
        break;
      case Top::Repeating:
        r.repeating = flag_of(v, k);
        break;
      case Top::ValidUtf8:
        r.valid_utf8 = flag_of(v, k);
        break;
      case Top::NotChecked: {
        const std::string_view name = string_of(v, k);
        r.not_checked = name == not_checked_name(NotChecked::RegexLimit) ? NotChecked::RegexLimit
                        : name == not_checked_name(NotChecked::Backlog)  ? NotChecked::Backlog
                                                                         : NotChecked::No;
        break;
      }
      case Top::Probe:
        r.probe = bool_of(v, k, false);
        break;
      case Top::OutputHash:
        r.output_hash = std::string(string_of(v, k));
        break;
      case Top::Tools:
        read_tool_fields(v, r);
        break;
      case Top::Structured:
        read_structured_fields(v, r);
        break;
      case Top::TimingNs:
        timing = v;
        break;
      case Top::Chunks:
        chunks = v;
        break;
      case Top::Unknown:
        break;  // data_abbr, success, token_source, token_mismatch: derived, or newer
    }
  }
  r.index = id;
  auto o = outcome_from_name(outcome);
  if (!o) throw std::runtime_error(fmt::format("unknown outcome '{}'", outcome));
  r.outcome = *o;
  r.http_status = static_cast<int>(http_status);
  r.malformed_sse_lines = std::max<int64_t>(0, malformed);
  r.choices = std::max<int64_t>(1, choices);
  r.images = std::max<int64_t>(0, images);
  r.documents = std::max<int64_t>(0, documents);
  r.attempts = static_cast<int>(attempts);
  if (session && session->is_object()) read_session(*session, r);
  if (local && local->is_object()) read_local_tokens(*local, r);
  if (!timing || !timing->is_object()) throw std::runtime_error("missing \"timing_ns\" object");
  read_times(*timing, r);
  if (!chunks || !chunks->is_object()) throw std::runtime_error("missing \"chunks\" object");
  read_chunks(*chunks, r);
  return r;
}

namespace {

// The lines of a details file parsed on a thread of their own and handed over in batches through
// a short queue: parsing is about half of a pass over the file, and the caller's work on each
// record (statistics, the page) overlaps with it. Memory: at most kQueued batches of kBatch.
class DetailsReader {
 public:
  static constexpr size_t kBatch = 256;
  static constexpr size_t kQueued = 4;

  DetailsReader(std::ifstream in, std::string path) : in_(std::move(in)), path_(std::move(path)) {
    thread_ = std::thread([this] { read(); });
  }
  ~DetailsReader() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  /// The next batch; empty when the file is done (then scan() and error() say how it ended).
  std::vector<RequestRecord> next() {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return !queue_.empty() || done_; });
    if (queue_.empty()) return {};
    auto batch = std::move(queue_.front());
    queue_.pop_front();
    changed_.notify_all();
    return batch;
  }
  const DetailsScan& scan() const { return scan_; }  // after next() returned empty
  const std::string& error() const { return error_; }

 private:
  bool hand_over(std::vector<RequestRecord>& batch) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return queue_.size() < kQueued || stop_; });
    if (stop_) return false;
    queue_.push_back(std::move(batch));
    batch.clear();
    batch.reserve(kBatch);
    changed_.notify_all();
    return true;
  }

  void read() {
    std::vector<RequestRecord> batch;
    batch.reserve(kBatch);
    std::string line;
    size_t line_no = 0;
    simdjson::dom::parser parser;
    try {
      while (std::getline(in_, line)) {
        ++line_no;
        const bool last = in_.peek() == std::char_traits<char>::eof();
        const bool terminated = !in_.eof();  // getline stopped at a newline
        if (line.empty()) continue;
        try {
          batch.push_back(from_json_line(line, parser));
        } catch (const std::exception& e) {
          if (last) {
            scan_.warning = fmt::format(
                "{}:{}: the last line is {} ({} bytes, {}): skipped, as a write cut short by a "
                "kill",
                path_, line_no, e.what(), line.size(),
                terminated ? "newline-terminated" : "no newline");
            break;
          }
          error_ = fmt::format("{}:{}: {}", path_, line_no, e.what());
          break;
        }
        ++scan_.records;
        if (batch.size() == kBatch && !hand_over(batch)) return;
      }
      if (!batch.empty()) hand_over(batch);
    } catch (const std::exception& e) {  // out of memory, say: the caller hears of it
      if (error_.empty()) error_ = fmt::format("{}: {}", path_, e.what());
    }
    std::lock_guard lock(mu_);
    done_ = true;
    changed_.notify_all();
  }

  std::ifstream in_;
  std::string path_;
  DetailsScan scan_;
  std::string error_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::vector<RequestRecord>> queue_;
  bool done_ = false, stop_ = false;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace

DetailsScan for_each_detail(const std::string& path,
                            const std::function<void(RequestRecord&&)>& fn) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(
        fmt::format("cannot open details file '{}': {}", path, std::strerror(errno)));
  DetailsReader reader(std::move(in), path);
  for (auto batch = reader.next(); !batch.empty(); batch = reader.next())
    for (auto& r : batch) fn(std::move(r));
  // Every record before a bad line was handed over first, as when one thread read them.
  if (!reader.error().empty()) throw std::runtime_error(reader.error());
  return reader.scan();
}

std::vector<RequestRecord> read_details(const std::string& path) {
  std::vector<RequestRecord> out;
  for_each_detail(path, [&](RequestRecord&& r) { out.push_back(std::move(r)); });
  return out;
}

LineAppender::LineAppender(const std::string& path)
    : path_(path),
      fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) {
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
}

LineAppender::~LineAppender() {
  if (fd_ >= 0) ::close(fd_);
}

void LineAppender::append(std::string_view line) {
  std::lock_guard lock(mu_);
  buf_.assign(line);
  buf_.push_back('\n');
  // One write() per line: a kill leaves whole lines; the kernel's page cache makes it durable
  // against the process dying (not against the machine losing power, which no benchmark survives).
  const off_t before = ::lseek(fd_, 0, SEEK_END);  // where this line starts (O_APPEND writes there)
  const char* p = buf_.data();
  size_t left = buf_.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      // Part of the line may be on disk (the disk filled mid-line): cut it off, so the file ends
      // with the last whole line rather than a torn one.
      if (left < buf_.size() && before >= 0) (void)::ftruncate(fd_, before);
      throw std::runtime_error(fmt::format("cannot append to '{}': {}", path_, std::strerror(err)));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace tokbench::record
