// dataset/agent_trace: --dataset agent-trace:PATH — recorded agent sessions, replayed with their
// recorded context and pauses (docs/GUIDE.md, "Recorded agent sessions"). Two shapes, told apart
// line by line:
//  - an OpenAI chat log: {"id", "tools", "messages": [...]} a line, one session each; a message
//    may carry "timestamp" (ms since the epoch, or ISO 8601), which is not sent;
//  - a coding agent's transcript, Claude Code's (~/.claude/projects/<project>/<session>.jsonl, as
//    docs.claude.com's SDK sessions page shows it): one event a line, {"type": "user" |
//    "assistant", "sessionId", "timestamp", "message": {"role", "content": string | blocks}},
//    grouped by sessionId in the file's order; text, tool_use and tool_result blocks become chat
//    messages (an assistant's tool_use a tool_calls entry, a tool_result a "tool" message);
//    thinking blocks, other events (summary, system, progress, snapshots) and side chains
//    (isSidechain: a subagent's own conversation) are left out; one answer written over several
//    lines (the same message.id) is one message.
// Each assistant message is a turn: it sends every message before it, and its recorded pause is
// the time from the answer before it to the last message before it (the tools' and the user's
// time); its output cap is its recorded output tokens where the log has them.
#include <fmt/format.h>
#include <simdjson.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>

#include "common/json_writer.hpp"
#include "dataset/dataset.hpp"
#include "dataset/json_lines.hpp"

namespace tokbench::dataset {

namespace {

using simdjson::dom::element;

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "2026-02-19T14:30:00.123Z" (or "+01:00", or no zone: UTC) -> ns since the epoch; -1 if not one.
int64_t iso8601_ns(std::string_view s) {
  auto num = [&](size_t at, size_t n, int64_t& out) {
    if (at + n > s.size()) return false;
    out = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      out = out * 10 + (s[i] - '0');
    }
    return true;
  };
  int64_t y, mo, d, h, mi, sec;
  if (!num(0, 4, y) || s.size() < 19 || s[4] != '-' || !num(5, 2, mo) || s[7] != '-' ||
      !num(8, 2, d) || (s[10] != 'T' && s[10] != ' ') || !num(11, 2, h) || s[13] != ':' ||
      !num(14, 2, mi) || s[16] != ':' || !num(17, 2, sec) || mo < 1 || mo > 12 || d < 1 || d > 31)
    return -1;
  size_t at = 19;
  int64_t frac_ns = 0;
  if (at < s.size() && s[at] == '.') {
    int64_t scale = 100'000'000;
    for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, scale /= 10)
      frac_ns += (s[at] - '0') * scale;
  }
  int64_t offset_s = 0;
  if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
    int64_t oh, om;
    if (!num(at + 1, 2, oh) || at + 3 >= s.size() || s[at + 3] != ':' || !num(at + 4, 2, om))
      return -1;
    offset_s = (s[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
  }
  const int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset_s;
  return secs * 1'000'000'000 + frac_ns;
}

// A message's or event's "timestamp": ms since the epoch, or ISO 8601; -1 when there is none.
int64_t timestamp_ns(element v) {
  double ms = 0;
  std::string_view text;
  if (!v["timestamp"].get_double().get(ms)) return static_cast<int64_t>(ms * 1e6);
  if (!v["timestamp"].get_string().get(text)) return iso8601_ns(text);
  return -1;
}

struct Message {
  std::string json;  // OpenAI chat's shape
  bool assistant = false;
  int64_t t_ns = -1;
  int64_t out_tokens = -1;
};

struct Session {
  std::string id;
  SharedTools tools;
  std::vector<Message> messages;
  std::string last_message_id;  // Claude Code: an answer's lines share message.id
  std::string answer_said;      // and the answer's parts so far (text, calls)
  std::vector<std::string> answer_calls;
  bool answer_written = false;  // the last message is that answer's (not only thinking so far)
};

// The text of a tool_result's content: a string, or its text blocks joined.
std::string block_text(element content) {
  std::string_view s;
  if (!content.get_string().get(s)) return std::string(s);
  std::string out;
  simdjson::dom::array parts;
  if (content.get_array().get(parts)) return out;
  for (element p : parts)
    if (!p["text"].get_string().get(s)) out += (out.empty() ? "" : "\n") + std::string(s);
  return out;
}

// One Claude Code event's message as chat messages (a user event may be tool results and text).
void add_transcript_event(element event, bool assistant, Session& session,
                          const std::string& where) {
  element message, content;
  if (event["message"].get(message) || message["content"].get(content))
    throw std::runtime_error(where +
                             ": a \"user\" or \"assistant\" event needs a \"message\" "
                             "with \"content\"");
  const int64_t t = timestamp_ns(event);
  std::string_view text, id;
  if (!assistant) {
    if (!content.get_string().get(text)) {
      JsonWriter w;
      w.begin_object().field("role", "user").field("content", text).end_object();
      session.messages.push_back({w.take(), false, t, -1});
      return;
    }
    simdjson::dom::array blocks;
    if (content.get_array().get(blocks))
      throw std::runtime_error(where + ": \"message.content\" must be a string or blocks");
    std::string said;
    for (element b : blocks) {
      std::string_view type, tool_id;
      if (b["type"].get_string().get(type)) continue;
      if (type == "tool_result" && !b["tool_use_id"].get_string().get(tool_id)) {
        element c;
        JsonWriter w;
        w.begin_object().field("role", "tool").field("tool_call_id", tool_id);
        w.field("content", b["content"].get(c) ? std::string() : block_text(c)).end_object();
        session.messages.push_back({w.take(), false, t, -1});
      } else if (type == "text" && !b["text"].get_string().get(text)) {
        said += (said.empty() ? "" : "\n") + std::string(text);
      }
    }
    if (!said.empty()) {
      JsonWriter w;
      w.begin_object().field("role", "user").field("content", said).end_object();
      session.messages.push_back({w.take(), false, t, -1});
    }
    return;
  }
  // An assistant's answer: its text and its calls; later lines of the same answer join it.
  std::string said;
  std::vector<std::string> calls;  // tool_calls entries, as JSON
  if (!content.get_string().get(text)) said = std::string(text);
  simdjson::dom::array blocks;
  if (!content.get_array().get(blocks))
    for (element b : blocks) {
      std::string_view type, name, call_id;
      element input;
      if (b["type"].get_string().get(type)) continue;
      if (type == "text" && !b["text"].get_string().get(text)) {
        said += std::string(text);
      } else if (type == "tool_use" && !b["name"].get_string().get(name) &&
                 !b["id"].get_string().get(call_id)) {
        JsonWriter w;
        w.begin_object().field("id", call_id).field("type", "function");
        w.key("function").begin_object().field("name", name);
        w.field("arguments", b["input"].get(input) ? std::string("{}") : simdjson::minify(input));
        w.end_object().end_object();
        calls.push_back(w.take());
      }
    }
  int64_t out_tokens = -1;
  if (message["usage"]["output_tokens"].get_int64().get(out_tokens)) out_tokens = -1;
  const bool same =
      !message["id"].get_string().get(id) && !id.empty() && id == session.last_message_id;
  session.last_message_id = std::string(id);
  // The message is rebuilt whole from its parts: an answer split over lines is one message.
  std::string& all_said = session.answer_said;
  std::vector<std::string>& all_calls = session.answer_calls;
  // A new answer, or the same one after a tool result came between its lines: a new message.
  if (!same || (session.answer_written && !session.messages.back().assistant)) {
    all_said.clear();
    all_calls.clear();
    session.answer_written = false;
  }
  if (said.empty() && calls.empty()) return;  // thinking only
  all_said += said;
  all_calls.insert(all_calls.end(), calls.begin(), calls.end());
  JsonWriter w;
  w.begin_object().field("role", "assistant").key("content");
  if (all_said.empty()) {
    w.null();
  } else {
    w.value(all_said);
  }
  if (!all_calls.empty()) {
    w.key("tool_calls").begin_array();
    for (const auto& c : all_calls) w.raw(c);
    w.end_array();
  }
  w.end_object();
  Message m{w.take(), true, t, out_tokens};
  if (session.answer_written) {  // the message of its earlier lines
    if (m.out_tokens < 0) m.out_tokens = session.messages.back().out_tokens;
    session.messages.back() = std::move(m);
  } else {
    session.messages.push_back(std::move(m));
    session.answer_written = true;
  }
}

// An OpenAI chat log's line: its messages as written, less their "timestamp".
Session read_chat_log(element line, size_t line_no, const std::string& where) {
  Session s;
  std::string_view text;
  s.id = line["id"].get_string().get(text) ? std::to_string(line_no) : std::string(text);
  element tools;
  if (!line["tools"].get(tools) && !tools.is_null())
    s.tools = std::make_shared<const core::ToolSet>(
        core::parse_tools(simdjson::minify(tools), where + ": \"tools\""));
  simdjson::dom::array messages;
  if (line["messages"].get_array().get(messages))
    throw std::runtime_error(where + ": \"messages\" must be an array");
  for (element m : messages) {
    simdjson::dom::object o;
    std::string_view role;
    if (m.get_object().get(o) || m["role"].get_string().get(role))
      throw std::runtime_error(where + ": each message needs a \"role\"");
    JsonWriter w;
    w.begin_object();
    for (auto [key, value] : o)
      if (key != "timestamp") w.field_raw(key, simdjson::minify(value));
    w.end_object();
    int64_t out_tokens = -1;
    if (m["usage"]["completion_tokens"].get_int64().get(out_tokens)) out_tokens = -1;
    s.messages.push_back({w.take(), role == "assistant", timestamp_ns(m), out_tokens});
  }
  return s;
}

// A session's turns: one per assistant message, its context every message before it.
RecordedSession turns_of(Session&& s) {
  RecordedSession r;
  r.id = std::move(s.id);
  r.tools = std::move(s.tools);
  int64_t last_answer_ns = -1;
  for (size_t i = 0; i < s.messages.size(); ++i) {
    const Message& m = s.messages[i];
    if (m.assistant && i > 0) {
      RecordedSession::Turn t;
      t.context = i;
      const int64_t asked_ns = s.messages[i - 1].t_ns;
      if (!r.turns.empty() && last_answer_ns >= 0 && asked_ns >= 0)
        t.think_ns = std::max<int64_t>(0, asked_ns - last_answer_ns);
      t.max_tokens = m.out_tokens > 0 ? m.out_tokens : -1;
      r.turns.push_back(t);
    }
    if (m.assistant) last_answer_ns = m.t_ns;
  }
  for (auto& m : s.messages) r.messages.push_back(std::move(m.json));
  return r;
}

}  // namespace

std::string RecordedSession::context_json(size_t context) const {
  std::string out = "[";
  for (size_t i = 0; i < context && i < messages.size(); ++i) (out += i ? "," : "") += messages[i];
  return out + "]";
}

namespace {

// The sessions a file's lines make: a chat log is one; transcript events join their sessionId's
// (user and assistant events outside side chains; the others are counted in `skipped`).
struct SessionsRead {
  std::vector<Session> sessions;
  std::map<std::string, size_t> transcript;  // Claude Code's sessionId -> its session
  size_t skipped = 0;
  void read(const JsonLine& line) {
    const element doc = line.doc;
    const std::string& where = line.where;
    std::string_view type, session_id;
    bool sidechain = false;
    if (!doc["messages"].error()) {
      sessions.push_back(read_chat_log(doc, line.number, where));
    } else if (!doc["type"].get_string().get(type)) {
      if ((type != "user" && type != "assistant") ||
          (!doc["isSidechain"].get_bool().get(sidechain) && sidechain)) {
        ++skipped;
        return;
      }
      if (doc["sessionId"].get_string().get(session_id)) session_id = "";
      auto [it, fresh] = transcript.try_emplace(std::string(session_id), sessions.size());
      if (fresh) {
        sessions.emplace_back();
        sessions.back().id = std::string(session_id);
      }
      add_transcript_event(doc, type == "assistant", sessions[it->second], where);
    } else {
      throw std::runtime_error(where +
                               ": neither a chat log ({\"messages\": [...]}) nor a transcript "
                               "event ({\"type\": \"user\" | \"assistant\", \"message\": ...})");
    }
  }
};

}  // namespace

Dataset parse_agent_trace(std::string_view name, std::istream& in) {
  Dataset d;
  d.kind = "agent-trace";
  d.path = std::string(name);
  d.abbr = std::filesystem::path(d.path).stem().string();
  SessionsRead found;
  for_each_json_line(in, d.path,
                     "a line is a chat log ({\"messages\": [...]}) or a transcript event",
                     [&found](const JsonLine& line) { found.read(line); });
  std::vector<Session>& sessions = found.sessions;
  const size_t skipped_events = found.skipped;
  size_t without_turns = 0;
  for (Session& s : sessions) {
    RecordedSession r = turns_of(std::move(s));
    if (r.turns.empty()) {
      ++without_turns;
      continue;
    }
    // What a tokenizer counts of it: the messages' JSON (an estimate; usage has the count).
    RequestSpec first(r.context_json(r.turns[0].context));
    first.payload = core::Conversation{first.prompt, {}};
    first.tools = r.tools;
    first.max_tokens = r.turns[0].max_tokens;
    d.conversations.emplace_back(static_cast<int64_t>(d.items.size()),
                                 static_cast<int64_t>(r.turns.size()));
    d.items.push_back(std::move(first));
    d.recorded.push_back(std::move(r));
  }
  if (d.recorded.empty())
    throw std::runtime_error(fmt::format(
        "agent trace '{}' has no session with an answer to replay (each needs messages and an "
        "\"assistant\" message after them)",
        d.path));
  size_t turns = 0;
  for (const auto& r : d.recorded) turns += r.turns.size();
  d.summary = fmt::format(
      "{} recorded session(s), {} turn(s){}{}", d.recorded.size(), turns,
      without_turns ? fmt::format("; {} without an answer skipped", without_turns) : "",
      skipped_events ? fmt::format("; {} other event(s) left out", skipped_events) : "");
  return d;
}

Dataset load_agent_trace(const Spec& spec) {
  std::ifstream in(spec.path);
  if (!in)
    throw std::runtime_error(
        fmt::format("cannot open agent trace '{}': {} (check the path after "
                    "'agent-trace:')",
                    spec.path, std::strerror(errno)));
  return parse_agent_trace(spec.path, in);
}

}  // namespace tokbench::dataset
