#include "record/record_io.hpp"

#include <simdjson.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/json_fields.hpp"
#include "common/json_writer.hpp"
#include <fmt/format.h>

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

int64_t get_count(simdjson::dom::element obj, std::string_view k) { return json::strict_int(obj, k).value_or(kNone); }

std::string get_string(simdjson::dom::element obj, std::string_view k) {
  return std::string(json::strict_string(obj, k).value_or(std::string_view()));
}

bool get_bool(simdjson::dom::element obj, std::string_view k, bool fallback) {
  return json::strict_bool(obj, k).value_or(fallback);
}

constexpr std::pair<std::string_view, int64_t RequestRecord::*> kTimes[] = {
    {"scheduled", &RequestRecord::scheduled_ns},   {"sent", &RequestRecord::sent_ns},
    {"first_byte", &RequestRecord::first_byte_ns}, {"first_event", &RequestRecord::first_event_ns},
    {"first_token", &RequestRecord::first_token_ns}, {"last_token", &RequestRecord::last_token_ns},
    {"last_event", &RequestRecord::last_event_ns}, {"done", &RequestRecord::done_ns},
    {"dns_done", &RequestRecord::dns_done_ns},     {"connect_done", &RequestRecord::connect_done_ns},
    {"tls_done", &RequestRecord::tls_done_ns},     {"request_start", &RequestRecord::request_start_ns},
};

}  // namespace

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
  if (r.rank != kNone) w.field("rank", r.rank);
  if (r.session != kNone) {
    w.key("session").begin_object().field("id", r.session).field("turn", r.turn);
    w.field("start_ns", r.session_start_ns).field("last_turn", r.last_turn).end_object();
  }
  put_count(w, "input_tokens", r.prompt_tokens);
  put_count(w, "output_tokens", r.completion_tokens);
  put_count(w, "cached_tokens", r.cached_tokens);
  w.field("warmup", r.warmup);
  w.field("stream", r.stream);
  w.field("attempts", r.attempts);
  put_count(w, "connects", r.connects);
  if (r.resent) w.field("resent", true);
  w.field("request_id", r.request_id);
  if (!r.client_request_id.empty()) w.field("client_request_id", r.client_request_id);
  w.field("finish_reason", r.finish_reason);
  w.field("output_chars", r.output_chars);
  w.key("local_tokens").begin_object();
  put_count(w, "prompt", r.prompt_tokens_local);
  put_count(w, "completion", r.completion_tokens_local);
  put_count(w, "expected_prompt", r.expected_prompt_tokens);
  put_count(w, "requested_max", r.requested_max_tokens);
  w.end_object();
  w.field("ignore_eos_sent", r.ignore_eos_sent);
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
  r.index = get_count(doc, "id");
  const std::string outcome = get_string(doc, "outcome");
  auto o = outcome_from_name(outcome);
  if (!o) throw std::runtime_error(fmt::format("unknown outcome '{}'", outcome));
  r.outcome = *o;
  r.error = get_string(doc, "error_info");
  r.http_status = static_cast<int>(get_count(doc, "http_status"));
  r.malformed_sse_lines = std::max<int64_t>(0, get_count(doc, "malformed_sse_lines"));
  r.choices = std::max<int64_t>(1, get_count(doc, "choices"));
  r.prompt_tokens = get_count(doc, "input_tokens");
  r.completion_tokens = get_count(doc, "output_tokens");
  r.cached_tokens = get_count(doc, "cached_tokens");
  r.warmup = get_bool(doc, "warmup", false);
  r.stream = get_bool(doc, "stream", true);
  r.attempts = static_cast<int>(get_count(doc, "attempts"));
  r.connects = get_count(doc, "connects");
  r.resent = get_bool(doc, "resent", false);
  r.request_id = get_string(doc, "request_id");
  r.client_request_id = get_string(doc, "client_request_id");
  r.model = get_string(doc, "model");
  r.images = std::max<int64_t>(0, get_count(doc, "images"));
  r.rank = get_count(doc, "rank");
  simdjson::dom::element session;
  if (!doc["session"].get(session) && session.is_object()) {
    r.session = get_count(session, "id");
    r.turn = get_count(session, "turn");
    r.session_start_ns = get_count(session, "start_ns");
    r.last_turn = get_bool(session, "last_turn", false);
    if (r.session == kNone || r.turn == kNone) throw std::runtime_error("\"session\" needs an \"id\" and a \"turn\"");
  }
  r.finish_reason = get_string(doc, "finish_reason");
  r.output_chars = get_count(doc, "output_chars");
  simdjson::dom::element local;
  if (!doc["local_tokens"].get(local) && local.is_object()) {
    r.prompt_tokens_local = get_count(local, "prompt");
    r.completion_tokens_local = get_count(local, "completion");
    r.expected_prompt_tokens = get_count(local, "expected_prompt");
    r.requested_max_tokens = get_count(local, "requested_max");
  }
  r.ignore_eos_sent = get_bool(doc, "ignore_eos_sent", false);
  simdjson::dom::element timing;
  if (doc["timing_ns"].get(timing) || !timing.is_object())
    throw std::runtime_error("missing \"timing_ns\" object");
  for (const auto& [name, member] : kTimes) r.*member = get_count(timing, name);

  simdjson::dom::element chunks;
  if (doc["chunks"].get(chunks) || !chunks.is_object())
    throw std::runtime_error("missing \"chunks\" object");
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
  for (auto v : cum) r.chunks[i++].cum_tokens = v.is_null() ? -1 : static_cast<int32_t>(v.get_int64().value_unsafe());
  for (i = 0; i < n; ++i) r.chunks[i].kind = static_cast<ChunkKind>(kinds[i]);
  simdjson::dom::array choice;
  if (!chunks["choice"].get(choice)) {
    if (choice.size() != n) throw std::runtime_error("\"chunks\" arrays differ in length (choice)");
    i = 0;
    for (auto v : choice) {
      int64_t c = 0;
      if (v.get_int64().get(c) || c < 0) throw std::runtime_error("\"chunks.choice\" holds a value that is not a choice index");
      r.chunks[i++].choice = static_cast<int16_t>(std::min(c, record::kMaxChoiceIndex));
    }
  }
  return r;
}

DetailsScan for_each_detail(const std::string& path, const std::function<void(RequestRecord&&)>& fn) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot open details file '{}': {}", path, std::strerror(errno)));
  DetailsScan scan;
  std::string line;
  size_t line_no = 0;
  simdjson::dom::parser parser;
  while (std::getline(in, line)) {
    ++line_no;
    const bool last = in.peek() == std::char_traits<char>::eof();
    const bool terminated = !in.eof();  // getline stopped at a newline
    if (line.empty()) continue;
    RequestRecord r;
    try {
      r = from_json_line(line, parser);
    } catch (const std::exception& e) {
      if (last) {
        scan.warning = fmt::format("{}:{}: the last line is {} ({} bytes, {}): skipped, as a write cut short by a kill",
                                   path, line_no, e.what(), line.size(),
                                   terminated ? "newline-terminated" : "no newline");
        break;
      }
      throw std::runtime_error(fmt::format("{}:{}: {}", path, line_no, e.what()));
    }
    ++scan.records;
    fn(std::move(r));
  }
  return scan;
}

std::vector<RequestRecord> read_details(const std::string& path) {
  std::vector<RequestRecord> out;
  for_each_detail(path, [&](RequestRecord&& r) { out.push_back(std::move(r)); });
  return out;
}

LineAppender::LineAppender(const std::string& path)
    : path_(path), fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)) {
  if (fd_ < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
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
