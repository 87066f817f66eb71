// mockapi/routes/openai: /v1/chat/completions and /v1/completions as vLLM answers them — a
// role-only first chunk (chat), one chunk per write per choice (n > 1 interleaved by index),
// tool-call deltas, usage with stream_options.include_usage (continuous with
// continuous_usage_stats), and data: [DONE]. The request parser and chunk JSON are mock_response's
// (shared with /tokenize).
#include <fmt/format.h>

#include "mockapi/route.hpp"

namespace tokbench::mock {

namespace {

class OpenAiRoute : public MockRoute {
 public:
  explicit OpenAiRoute(bool chat) : chat_(chat) {}
  std::string_view path() const override {
    return chat_ ? "/v1/chat/completions" : "/v1/completions";
  }
  std::optional<CompletionRequest> parse(const std::string& body, std::string_view,
                                         std::string* why) const override {
    return parse_request(body, chat_, why);
  }
  std::string_view id_prefix() const override { return chat_ ? "chatcmpl-" : "cmpl-"; }

  void begin(const Answer& a, Events& ev) const override {
    if (!chat_) return;
    for (int64_t c = 0; c < a.cr.n; ++c)
      ev.add(stream_chunk(true, a.id, a.cr.model, a.created, true, "", "", usage_now(a), c), 'R',
             0);
  }

  bool reasons() const override { return chat_; }

  void piece(const Answer& a, std::string_view piece, int tokens, bool done,
             Events& ev) const override {
    if (piece.empty() && a.reasoning.empty() && !done) return;
    // A tool call: the first delta names the tool; every delta's arguments are the tokens.
    const std::string call_id = fmt::format("chatcmpl-tool-{}", a.id);
    const ToolDelta tool{
        a.produced == tokens ? std::string_view(a.cr.tool_name) : std::string_view(), call_id};
    const bool calls = chat_ && !a.cr.tool_name.empty();
    const std::string finish = !done                         ? ""
                               : calls && a.finish == "stop" ? "tool_calls"
                                                             : std::string(a.finish);
    for (int64_t c = 0; c < a.cr.n; ++c) {
      ev.add(stream_chunk(chat_, a.id, a.cr.model, a.created, false, piece, finish, usage_now(a), c,
                          calls ? &tool : nullptr, a.reasoning),
             !piece.empty()        ? 'C'
             : a.reasoning.empty() ? 'F'
                                   : 'T',
             tokens);
    }
  }

  void end(const Answer& a, bool end_marker, Events& ev) const override {
    if (a.cr.include_usage)
      ev.add(usage_chunk(chat_, a.id, a.cr.model, a.created,
                         {a.cr.prompt_tokens, a.produced * a.cr.n, a.cached}),
             'U', 0);
    if (end_marker) ev.done();
  }

  std::string body(const Answer& a) const override {
    std::optional<ChunkUsage> usage;
    if (a.usage)
      usage = ChunkUsage{a.cr.prompt_tokens, a.produced * a.cr.n,
                         a.cached};  // summed over choices, as vLLM
    const bool calls = chat_ && !a.cr.tool_name.empty();
    return full_body(chat_, a.id, a.cr.model, a.created, a.text,
                     calls && a.finish == "stop" ? "tool_calls" : a.finish, usage, a.cr.n,
                     calls ? std::string_view(a.cr.tool_name) : std::string_view(), a.reasoning);
  }

 private:
  static std::optional<ChunkUsage> usage_now(const Answer& a) {
    if (!a.cr.continuous_usage) return std::nullopt;
    return ChunkUsage{a.cr.prompt_tokens, a.produced * a.cr.n};
  }
  bool chat_;
};

}  // namespace

const MockRoute& openai_chat_route() {
  static const OpenAiRoute route(true);
  return route;
}
const MockRoute& openai_completions_route() {
  static const OpenAiRoute route(false);
  return route;
}

}  // namespace tokbench::mock
