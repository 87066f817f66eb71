#pragma once
// Test helper: loopback servers that speak other engines' dialects as their sources define them
// (docs/COMPATIBILITY.md cites each), written apart from tokbench's simulator so that a client
// rule meets a server that tokbench did not make agree with it:
// - llama.cpp's llama-server: closes the connection after every streamed answer although it
//   says Keep-Alive; /tokenize {"content","add_special","parse_special"} -> {"tokens"} (vLLM's
//   body gets 200 {"tokens": []}); /detokenize -> {"content"}; a chat's count at
//   /v1/chat/completions/input_tokens; `timings` in the last chunk; llamacpp:* /metrics whose
//   prompt counter leaves out cache hits; a prompt cache that serves a repeated prompt (all but
//   its last token), emptied by POST /slots/{id}?action=erase.
// - Text Generation Inference: OpenAI chat through its Messages API; tgi_* /metrics that count
//   tokens in per-request histograms; its /tokenize answers a list of pieces; its native
//   /generate_stream (router/src/server.rs): `data:{...}` (no space, as its axum writes it), an
//   event per token {"index","token":{"id","text","logprob","special"},"generated_text":null,
//   "details":null}, the last with the whole text and, when parameters.details, {finish_reason,
//   generated_tokens, seed, input_length}; no [DONE]. An answer asked for 24 tokens or more ends
//   by EOS after 20 words: a 21st token "</s>", special, finish_reason "eos_token", counted.
//   ignore_eos and min_tokens are unknown to it and ignored, as serde ignores unknown fields.
//   Its /generate (generate_internal) answers the same generation as one body {"generated_text",
//   "details": {finish_reason, generated_tokens, seed, prefill, tokens}} after 2 ms per token,
//   with its headers: x-queue-time 7 (ms), x-inference-time 2 ms per token, x-time-per-token,
//   x-prompt-tokens and x-generated-tokens (and x-compute-*, x-total-time, x-validation-time).
// - MindIE: OpenAI chat; vLLM's metric names without a prefix; its native /infer
//   (single_req_self_develop_infer_interface.cpp): "stream" false unless asked, parameters
//   max_new_tokens (default 20) and details; a stream's events `data: {"prefill_time": 3 |
//   "decode_time": 2 (ms), "token": {"id", "text"}}`, the last with its token's text null and the
//   whole text in "generated_text", details {finish_reason, generated_tokens, seed} when asked;
//   no [DONE]. 24 tokens or more asked end by EOS after 20 words (21 generated, eos_token).
// - LMDeploy's api_server: OpenAI chat; with --enable-metrics, vLLM's counter and gauge names
//   under `lmdeploy:` (lmdeploy/metrics/stats.py): generation and prompt token totals, requests
//   running and waiting, the KV cache's use.
// - Ollama: OpenAI chat through its compatibility layer; no /metrics, no /tokenize; its native
//   /api/chat (server/routes.go): application/x-ndjson, a JSON object per line per token, then a
//   line with empty content, "done": true, done_reason and its Metrics — prompt_eval_count,
//   eval_count, and durations in nanoseconds (prompt 3 ms, 2 ms per token here; the first
//   request's load_duration is the 300 ms it waits for the model to load, later ones' 1 µs);
//   "stream" false answers one such object with the whole message. options.num_predict caps
//   (default 16 here).
// Its tokenizer is one token per whitespace-separated word; a chat template adds 4 tokens per
// message and 4 for the assistant's turn (Qwen3's 8 around one user message); a completion's
// prompt gets one BOS. Generation answers max_tokens (default 16) words, 2 ms apart.
#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/json_writer.hpp"
#include "scripted_server.hpp"

namespace tokbench::testing {

enum class EngineKind { Llamacpp, Tgi, Mindie, Ollama, Lmdeploy };

class EngineLike {
 public:
  explicit EngineLike(EngineKind kind, int max_connections = 600)
      : kind_(kind),
        srv_([this](int, int, const std::string& req) { return answer(req); }, true,
             max_connections) {}

  std::string url(const std::string& path = "/v1/chat/completions") const { return srv_.url(path); }
  uint16_t port() const { return srv_.port; }

  int connections() const {
    int most = -1;
    for (const auto& s : srv_.seen()) most = std::max(most, s.connection);
    return most + 1;
  }
  int generations() const { return generations_.load(); }
  /// Every request it read (head and body), in arrival order.
  std::vector<std::string> requests() const {
    std::vector<std::string> out;
    for (auto& s : srv_.seen()) out.push_back(std::move(s.request));
    return out;
  }
  int64_t prompt_tokens_evaluated() const {
    std::lock_guard lock(mu_);
    return prompt_evaluated_;
  }
  int64_t predicted() const {
    std::lock_guard lock(mu_);
    return predicted_;
  }

 private:
  using Reply = ScriptedServer::Reply;

  // ---- the word tokenizer --------------------------------------------------------------------
  std::vector<std::string> words(std::string_view text) const {
    std::vector<std::string> out;
    std::istringstream in{std::string(text)};
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }
  std::vector<int64_t> encode(std::string_view text) {
    std::lock_guard lock(mu_);
    std::vector<int64_t> ids;
    for (const auto& w : words(text)) {
      auto [it, fresh] = vocab_.emplace(w, static_cast<int64_t>(100 + pieces_.size()));
      if (fresh) pieces_.push_back(w);
      ids.push_back(it->second);
    }
    return ids;
  }
  std::string decode(simdjson::dom::array ids) {
    std::lock_guard lock(mu_);
    std::string out;
    for (auto id : ids) {
      const int64_t i = id.get_int64().value_unsafe() - 100;
      if (i < 0 || i >= static_cast<int64_t>(pieces_.size())) continue;
      out += (out.empty() ? "" : " ") + pieces_[static_cast<size_t>(i)];
    }
    return out;
  }
  // A chat's prompt: each message's words + 4, + 4 for the assistant's turn; its text joined.
  int64_t chat_tokens(simdjson::dom::array messages, std::string* text) {
    int64_t n = 4;
    for (auto m : messages) {
      std::string_view content;
      if (m["content"].get_string().get(content)) content = "";
      n += 4 + static_cast<int64_t>(words(content).size());
      *text += std::string(content) + "\n";
    }
    return n;
  }

  // ---- HTTP ------------------------------------------------------------------------------------
  static std::string json_reply(int status, const std::string& body, bool close = false) {
    return "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           (close ? "\r\nConnection: close" : "\r\nKeep-Alive: timeout=5, max=100") + "\r\n\r\n" +
           body;
  }
  static std::string chunk(const std::string& event) {
    const std::string data = "data: " + event + "\n\n";
    std::ostringstream o;
    o << std::hex << data.size() << "\r\n" << data << "\r\n";
    return o.str();
  }

  Reply answer(const std::string& req) {
    const size_t sp = req.find(' '), sp2 = req.find(' ', sp + 1);
    const std::string method = req.substr(0, sp);
    const std::string target = req.substr(sp + 1, sp2 - sp - 1);
    const std::string path = target.substr(0, target.find('?'));
    const size_t head_end = req.find("\r\n\r\n");
    const std::string body = head_end == std::string::npos ? "" : req.substr(head_end + 4);
    const bool llama = kind_ == EngineKind::Llamacpp;
    if (method == "GET" && path == "/health") return {json_reply(200, R"({"status":"ok"})")};
    if (method == "GET" && path == "/v1/models")
      return {
          json_reply(200, llama ? R"({"models":[{"name":"tiny.gguf","model":"tiny.gguf"}],)"
                                  R"("object":"list","data":[{"id":"tiny.gguf","object":"model"}]})"
                                : R"({"object":"list","data":[{"id":"tiny","object":"model"}]})")};
    if (method == "GET" && path == "/metrics") {
      if (kind_ == EngineKind::Ollama) return {json_reply(404, R"({"error":"not found"})")};
      const std::string text = metrics();
      return {"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
              std::to_string(text.size()) + "\r\n\r\n" + text};
    }
    simdjson::dom::parser parser;
    simdjson::dom::object o;
    if (method == "POST" && parser.parse(body).get_object().get(o))
      return {json_reply(400, R"({"error":{"message":"not JSON"}})")};
    if (method == "POST" && path == "/tokenize") return tokenize(o);
    if (llama && method == "POST" && path == "/detokenize") {
      simdjson::dom::array ids;
      if (o["tokens"].get_array().get(ids)) return {json_reply(400, R"({"error":"tokens"})")};
      JsonWriter w;
      w.begin_object().field("content", decode(ids)).end_object();
      return {json_reply(200, w.take())};
    }
    if (llama && method == "POST" && path == "/v1/chat/completions/input_tokens") {
      simdjson::dom::array messages;
      if (o["messages"].get_array().get(messages)) return {json_reply(400, R"({"error":"m"})")};
      std::string text;
      return {json_reply(
          200, R"({"input_tokens":)" + std::to_string(chat_tokens(messages, &text)) + "}")};
    }
    if (llama && method == "GET" && path == "/slots")
      return {json_reply(200, R"([{"id":0,"n_ctx":4096},{"id":1,"n_ctx":4096}])")};
    if (llama && method == "POST" && path.starts_with("/slots/") &&
        target.find("action=erase") != std::string::npos) {
      std::lock_guard lock(mu_);
      cache_.clear();
      return {json_reply(200, R"({"id_slot":0,"n_erased":1})")};
    }
    if (kind_ == EngineKind::Tgi && method == "POST" && path == "/generate_stream")
      return tgi_stream(o);
    if (kind_ == EngineKind::Tgi && method == "POST" && path == "/generate") return tgi_whole(o);
    if (kind_ == EngineKind::Ollama && method == "POST" &&
        (path == "/api/chat" || path == "/api/generate"))
      return ollama_chat(o, path == "/api/chat");
    if (kind_ == EngineKind::Mindie && method == "POST" && path == "/infer") return mindie_infer(o);
    if (method == "POST" && (path == "/v1/chat/completions" || path == "/v1/completions"))
      return generate(o, path == "/v1/chat/completions");
    return {json_reply(404, R"({"error":{"code":404,"message":"File Not Found"}})")};
  }

  Reply tokenize(simdjson::dom::object o) {
    std::string_view content;
    if (kind_ == EngineKind::Tgi) {  // {"inputs"} -> [{"id","text","start","stop"}, ...]
      if (o["inputs"].get_string().get(content))
        return {json_reply(422, R"({"error":"missing field `inputs`"})")};
      std::string out = "[";
      for (int64_t id : encode(content))
        out += (out.size() > 1 ? "," : "") + std::string(R"({"id":)") + std::to_string(id) + "}";
      return {json_reply(200, out + "]")};
    }
    if (kind_ != EngineKind::Llamacpp) return {json_reply(404, R"({"error":"not found"})")};
    // llama.cpp reads "content" only: vLLM's {"prompt"} gets an empty list, with 200.
    std::vector<int64_t> ids;
    if (!o["content"].get_string().get(content)) {
      bool special = false;
      if (o["add_special"].get_bool().get(special)) special = false;
      if (special) ids.push_back(1);  // BOS
      for (int64_t id : encode(content)) ids.push_back(id);
    }
    std::string out = R"({"tokens":[)";
    for (size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + std::to_string(ids[i]);
    return {json_reply(200, out + "]}")};
  }

  Reply generate(simdjson::dom::object o, bool chat) {
    std::string text;
    int64_t prompt = 0;
    if (chat) {
      simdjson::dom::array messages;
      if (o["messages"].get_array().get(messages)) return {json_reply(400, R"({"error":"m"})")};
      prompt = chat_tokens(messages, &text);
    } else {
      std::string_view p;
      if (o["prompt"].get_string().get(p)) return {json_reply(400, R"({"error":"prompt"})")};
      text = std::string(p);
      prompt = 1 + static_cast<int64_t>(words(p).size());
    }
    int64_t n = 16;
    if (int64_t v = 0; !o["max_tokens"].get_int64().get(v) && v > 0) n = v;
    if (int64_t v = 0; !o["max_completion_tokens"].get_int64().get(v) && v > 0) n = v;
    bool stream = false;
    if (o["stream"].get_bool().get(stream)) stream = false;
    bool usage_asked = false;
    if (o["stream_options"]["include_usage"].get_bool().get(usage_asked)) usage_asked = false;
    int64_t cached = 0;
    {
      std::lock_guard lock(mu_);
      // llama.cpp keeps a slot's prompt: the same prompt again is served from it but its last
      // token, which is evaluated again to start generating.
      if (kind_ == EngineKind::Llamacpp && !cache_.insert(text).second) cached = prompt - 1;
      ++in_flight_;
      // Counted when generated, before the answer goes out: a scrape right after the client has
      // read it sees it.
      prompt_evaluated_ += prompt - cached;
      predicted_ += n;
      input_lengths_ += prompt;
      ++finished_;
    }
    ++generations_;
    const std::string usage =
        R"({"completion_tokens":)" + std::to_string(n) + R"(,"prompt_tokens":)" +
        std::to_string(prompt) + R"(,"total_tokens":)" + std::to_string(prompt + n) +
        (kind_ == EngineKind::Llamacpp
             ? R"(,"prompt_tokens_details":{"cached_tokens":)" + std::to_string(cached) + "}"
             : std::string()) +
        "}";
    const std::string timings =
        R"("timings":{"cache_n":)" + std::to_string(cached) + R"(,"prompt_n":)" +
        std::to_string(prompt - cached) + R"(,"prompt_ms":5.0,"predicted_n":)" + std::to_string(n) +
        R"(,"predicted_ms":)" + std::to_string(2 * n) + R"(,"predicted_per_token_ms":2.0})";
    const bool llama = kind_ == EngineKind::Llamacpp;
    auto done = [this] {
      std::lock_guard lock(mu_);
      --in_flight_;
    };
    const std::string id = R"("id":"chatcmpl-x","object":")";
    if (!stream) {
      std::string answer;
      for (int64_t i = 0; i < n; ++i) answer += "word" + std::to_string(i) + " ";
      std::string body = "{" + id + (chat ? "chat.completion" : "text_completion") +
                         R"(","choices":[{"index":0,"finish_reason":"length",)" +
                         (chat ? R"("message":{"role":"assistant","content":")" + answer + "\"}"
                               : R"("text":")" + answer + "\"") +
                         R"(}],"usage":)" + usage + (llama ? "," + timings : "") + "}";
      Reply r{json_reply(200, body)};
      r.after = done;
      return r;
    }
    Reply r{std::string("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n") +
            (llama ? "Keep-Alive: timeout=5, max=100\r\n" : "") +
            "Transfer-Encoding: chunked\r\n\r\n"};
    const std::string obj = chat ? "chat.completion.chunk" : "text_completion";
    auto event = [&](const std::string& choice) {
      return "{" + id + obj + R"(","choices":[)" + choice + "]}";
    };
    if (chat) r.then.push_back(chunk(event(R"({"index":0,"delta":{"role":"assistant"}})")));
    for (int64_t i = 0; i < n; ++i) {
      const std::string word = "word" + std::to_string(i) + " ";
      r.then.push_back(chunk(event(chat ? R"({"index":0,"delta":{"content":")" + word + "\"}}"
                                        : R"({"index":0,"text":")" + word + "\"}")));
    }
    r.then.push_back(chunk(event(chat ? R"({"index":0,"delta":{},"finish_reason":"length"})"
                                      : R"({"index":0,"text":"","finish_reason":"length"})")));
    if (usage_asked || llama)
      r.then.push_back(chunk("{" + id + obj + R"(","choices":[],"usage":)" + usage +
                             (llama ? "," + timings : "") + "}"));
    r.then.push_back(chunk("[DONE]") + "0\r\n\r\n");
    r.gap_ms = 2;
    r.close = llama;  // llama.cpp's chunked provider ends the connection with the stream
    r.after = done;
    return r;
  }
  // What a TGI request asks (both routes take the same body): its generation is counted as the
  // request is read.
  struct TgiAsk {
    std::string_view inputs;
    int64_t n = 0;  ///< tokens generated: asked, or 21 (20 words, then EOS) when 24+ were asked
    bool eos = false, details = false;
  };
  std::optional<Reply> read_tgi(simdjson::dom::object o, TgiAsk& a) {
    if (o["inputs"].get_string().get(a.inputs))
      return Reply{
          json_reply(422, R"({"error":"missing field `inputs`","error_type":"validation"})")};
    int64_t asked = 20;
    simdjson::dom::object p;
    if (!o["parameters"].get_object().get(p)) {
      if (int64_t v = 0; !p["max_new_tokens"].get_int64().get(v)) asked = v;
      if (p["details"].get_bool().get(a.details)) a.details = false;
    }
    if (asked <= 0)
      return Reply{json_reply(422, R"({"error":"Input validation error: `max_new_tokens` must be )"
                                   R"(strictly positive","error_type":"validation"})")};
    a.eos = asked >= 24;  // 20 words, then the EOS token
    a.n = a.eos ? 21 : asked;
    {
      std::lock_guard lock(mu_);
      predicted_ += a.n;
      input_lengths_ += tgi_prompt(a);
      ++finished_;
    }
    ++generations_;
    return std::nullopt;
  }
  int64_t tgi_prompt(const TgiAsk& a) const {
    return 1 + static_cast<int64_t>(words(a.inputs).size());  // BOS + words
  }
  // Token i (1-based) of a TGI generation: a word, or the EOS ("</s>", special) last.
  static std::string tgi_token(const TgiAsk& a, int64_t i, bool& special) {
    special = a.eos && i == a.n;
    return special ? "</s>" : "word" + std::to_string(i - 1) + " ";
  }
  // Its Token object, as a stream's event and /generate's details.tokens carry it.
  static std::string tgi_token_json(int64_t i, const std::string& word, bool special) {
    return R"({"id":)" + std::to_string(100 + i) + R"(,"text":")" + word +
           R"(","logprob":-0.5,"special":)" + (special ? "true" : "false") + "}";
  }
  // TGI's /generate_stream (router/src/server.rs generate_stream_internal).
  Reply tgi_stream(simdjson::dom::object o) {
    TgiAsk a;
    if (auto refused = read_tgi(o, a)) return std::move(*refused);
    const std::string_view inputs = a.inputs;
    const bool eos = a.eos, details = a.details;
    const int64_t n = a.n, prompt = tgi_prompt(a);
    {
      std::lock_guard lock(mu_);
      ++in_flight_;
    }
    Reply r{
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
        "x-compute-type: 1-nvidia-a10g\r\nx-compute-characters: " +
        std::to_string(inputs.size()) +
        "\r\nx-accel-buffering: no\r\ntransfer-encoding: chunked\r\n\r\n"};
    std::string text;
    for (int64_t i = 1; i <= n; ++i) {
      bool special = false;
      const std::string word = tgi_token(a, i, special);
      if (!special) text += word;
      std::string event = R"({"index":)" + std::to_string(i) + R"(,"token":)" +
                          tgi_token_json(i, word, special) + R"(,"generated_text":)";
      if (i < n) {
        event += R"(null,"details":null})";
      } else {
        event += "\"" + text + "\",\"details\":";
        event += details ? R"({"finish_reason":")" + std::string(eos ? "eos_token" : "length") +
                               R"(","generated_tokens":)" + std::to_string(n) +
                               R"(,"seed":null,"input_length":)" + std::to_string(prompt) + "}}"
                         : std::string("null}");
      }
      const std::string data = "data:" + event + "\n\n";
      std::ostringstream c;
      c << std::hex << data.size() << "\r\n" << data << "\r\n";
      r.then.push_back(c.str());
    }
    r.then.back() += "0\r\n\r\n";
    r.gap_ms = 2;
    r.after = [this] {
      std::lock_guard lock(mu_);
      --in_flight_;
    };
    return r;
  }
  // TGI's /generate (router/src/server.rs generate_internal): the stream's generation, whole.
  static constexpr int64_t kTgiQueueMs = 7;
  Reply tgi_whole(simdjson::dom::object o) {
    TgiAsk a;
    if (auto refused = read_tgi(o, a)) return std::move(*refused);
    const std::string_view inputs = a.inputs;
    const int64_t n = a.n, prompt = tgi_prompt(a);
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * n));
    std::string text, tokens;
    for (int64_t i = 1; i <= n; ++i) {
      bool special = false;
      const std::string word = tgi_token(a, i, special);
      if (!special) text += word;
      tokens += (i > 1 ? "," : "") + tgi_token_json(i, word, special);
    }
    std::string body = R"({"generated_text":")" + text + "\"";
    if (a.details)
      body += R"(,"details":{"finish_reason":")" + std::string(a.eos ? "eos_token" : "length") +
              R"(","generated_tokens":)" + std::to_string(n) + R"(,"seed":null,"prefill":[],)" +
              R"("tokens":[)" + tokens + "]}";
    body += "}";
    const int64_t inference = 2 * n;
    return {
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-compute-type: "
        "1-nvidia-a10g\r\nx-compute-time: " +
        std::to_string((kTgiQueueMs + inference) / 1e3) +
        "\r\nx-compute-characters: " + std::to_string(inputs.size()) +
        "\r\nx-total-time: " + std::to_string(kTgiQueueMs + inference) +
        "\r\nx-validation-time: 0\r\nx-queue-time: " + std::to_string(kTgiQueueMs) +
        "\r\nx-inference-time: " + std::to_string(inference) +
        "\r\nx-time-per-token: 2\r\nx-prompt-tokens: " + std::to_string(prompt) +
        "\r\nx-generated-tokens: " + std::to_string(n) +
        "\r\ncontent-length: " + std::to_string(body.size()) + "\r\n\r\n" + body};
  }
  // Ollama's native /api/chat (server/routes.go ChatHandler, api/types.go ChatResponse), and
  // its /api/generate (GenerateHandler, GenerateResponse): a prompt in, each line's text a
  // top-level "response", the done line's "context" the token ids.
  static constexpr int64_t kOllamaLoadMs = 300;  // its first request's wait for the model
  Reply ollama_chat(simdjson::dom::object o, bool chat) {
    simdjson::dom::array messages;
    std::string_view asked;
    if (chat ? o["messages"].get_array().get(messages) : o["prompt"].get_string().get(asked))
      return {json_reply(400, chat ? R"({"error":"messages are required"})"
                                   : R"({"error":"prompt is required"})")};
    std::string text;
    const int64_t prompt =
        chat ? chat_tokens(messages, &text) : 1 + static_cast<int64_t>(words(asked).size());
    int64_t n = 16;
    if (int64_t v = 0; !o["options"]["num_predict"].get_int64().get(v) && v > 0) n = v;
    bool stream = true;  // Ollama streams unless told not to
    if (o["stream"].get_bool().get(stream)) stream = true;
    // Its first request loads the model (sched.go): load_duration is that wait, from the
    // request's arrival to a ready runner; a loaded model's is a microsecond here.
    const bool cold = generations_++ == 0;
    if (cold) std::this_thread::sleep_for(std::chrono::milliseconds(kOllamaLoadMs));
    const std::string load = std::to_string(cold ? kOllamaLoadMs * 1'000'000 : 1000);
    const std::string head = R"({"model":"tiny","created_at":"2026-12-05T13:00:00.000000001Z",)";
    auto text_of = [chat](const std::string& content) {
      return chat ? R"("message":{"role":"assistant","content":")" + content + R"("},)"
                  : R"("response":")" + content + R"(",)";
    };
    auto done_line = [&](const std::string& content) {
      return head + text_of(content) + R"("done":true,"done_reason":"length",)" +
             (chat ? "" : R"("context":[1,2,3],)") + R"("total_duration":)" +
             std::to_string(3'000'000 + 2'000'000 * n) + R"(,"load_duration":)" + load +
             R"(,"prompt_eval_count":)" + std::to_string(prompt) +
             R"(,"prompt_eval_duration":3000000,"eval_count":)" + std::to_string(n) +
             R"(,"eval_duration":)" + std::to_string(2'000'000 * n) + "}";
    };
    std::string all;
    for (int64_t i = 0; i < n; ++i) all += "word" + std::to_string(i) + " ";
    if (!stream)
      return {
          "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: " +
          std::to_string(done_line(all).size()) + "\r\n\r\n" + done_line(all)};
    Reply r{
        "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"};
    auto chunked = [](const std::string& line) {
      std::ostringstream c;
      c << std::hex << line.size() << "\r\n" << line << "\r\n";
      return c.str();
    };
    for (int64_t i = 0; i < n; ++i)
      r.then.push_back(
          chunked(head + text_of("word" + std::to_string(i) + " ") + R"("done":false})" + "\n"));
    r.then.push_back(chunked(done_line("") + "\n") + "0\r\n\r\n");
    r.gap_ms = 2;
    return r;
  }
  // MindIE's native /infer (single_req_self_develop_infer_interface.cpp).
  Reply mindie_infer(simdjson::dom::object o) {
    std::string_view inputs;
    if (o["inputs"].get_string().get(inputs))
      return {json_reply(422, R"({"error":"Not found inputs.","error_type":"validation"})")};
    int64_t asked = 20;
    bool details = false, stream = false;
    if (o["stream"].get_bool().get(stream)) stream = false;
    simdjson::dom::object p;
    if (!o["parameters"].get_object().get(p)) {
      if (int64_t v = 0; !p["max_new_tokens"].get_int64().get(v)) asked = v;
      if (p["details"].get_bool().get(details)) details = false;
    }
    const bool eos = asked >= 24;  // 20 words, then the EOS token (no text)
    const int64_t n = eos ? 21 : asked;
    {
      std::lock_guard lock(mu_);
      predicted_ += n;
      input_lengths_ += static_cast<int64_t>(words(inputs).size());
      ++finished_;
    }
    ++generations_;
    std::string text;
    for (int64_t i = 0; i < (eos ? 20 : n); ++i) text += "word" + std::to_string(i) + " ";
    const std::string tail =
        R"("generated_text":")" + text + R"(","details":)" +
        (details ? R"({"finish_reason":")" + std::string(eos ? "eos_token" : "length") +
                       R"(","generated_tokens":)" + std::to_string(n) + R"(,"seed":null})"
                 : std::string("null"));
    if (!stream) return {json_reply(200, "{" + tail + "}")};
    Reply r{
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, "
        "max=5\r\nTransfer-Encoding: chunked\r\n\r\n"};
    for (int64_t i = 0; i < n; ++i) {
      const std::string time = i == 0 ? R"("prefill_time":3,"decode_time":null,)"
                                      : R"("prefill_time":null,"decode_time":2,)";
      const std::string token = R"("token":{"id":)" + std::to_string(100 + i) + R"(,"text":)";
      r.then.push_back(chunk("{" + time +
                             (i + 1 < n ? token + "\"word" + std::to_string(i) + " \"}}"
                                        : tail + "," + token + "null}}")));
    }
    r.then.back() += "0\r\n\r\n";
    r.gap_ms = 2;
    return r;
  }
  // ---- /metrics --------------------------------------------------------------------------------
  std::string metrics() const {
    std::lock_guard lock(mu_);
    std::string m;
    auto line = [&](const std::string& name, const char* type, double v) {
      m += "# TYPE " + name + " " + type + "\n" + name + " " + std::to_string(v) + "\n";
    };
    // A histogram with one bucket: TGI's per-request token counts.
    auto histogram = [&](const std::string& name, double sum, int64_t count) {
      m += "# TYPE " + name + " histogram\n";
      m += name + "_bucket{le=\"+Inf\"} " + std::to_string(count) + "\n";
      m += name + "_sum " + std::to_string(sum) + "\n" + name + "_count " + std::to_string(count) +
           "\n";
    };
    switch (kind_) {
      case EngineKind::Llamacpp:  // tools/server/server.cpp, handle_metrics: no histograms
        line("llamacpp:prompt_tokens_total", "counter", static_cast<double>(prompt_evaluated_));
        line("llamacpp:prompt_seconds_total", "counter", 0.005 * finished_);
        line("llamacpp:tokens_predicted_total", "counter", static_cast<double>(predicted_));
        line("llamacpp:tokens_predicted_seconds_total", "counter", 0.002 * predicted_);
        line("llamacpp:n_decode_total", "counter", static_cast<double>(predicted_));
        line("llamacpp:prompt_tokens_seconds", "gauge", 1000);
        line("llamacpp:predicted_tokens_seconds", "gauge", 500);
        line("llamacpp:requests_processing", "gauge", in_flight_);
        line("llamacpp:requests_deferred", "gauge", 0);
        line("llamacpp:n_busy_slots_per_decode", "gauge", 1);
        break;
      case EngineKind::Tgi:  // docs/source/reference/metrics.md
        histogram("tgi_request_generated_tokens", static_cast<double>(predicted_), finished_);
        histogram("tgi_request_input_length", static_cast<double>(input_lengths_), finished_);
        // (Its latency histograms are left out: this server's sleeps are not a clock to hold a
        // client to; probe_test reads histograms.)
        line("tgi_batch_current_size", "gauge", in_flight_);
        line("tgi_queue_size", "gauge", 0);
        line("tgi_request_count", "counter", finished_);
        break;
      case EngineKind::Mindie:  // its metrics interface: vLLM's names, no prefix, a model label
        line("request_received_total", "counter", static_cast<double>(finished_));
        line("request_success_total", "counter", finished_);
        line("num_requests_running", "gauge", in_flight_);
        line("num_requests_waiting", "gauge", 0);
        line("prompt_tokens_total", "counter", static_cast<double>(input_lengths_));
        line("generation_tokens_total", "counter", static_cast<double>(predicted_));
        break;
      case EngineKind::Lmdeploy:
        line("lmdeploy:generation_tokens_total", "counter", static_cast<double>(predicted_));
        line("lmdeploy:prompt_tokens_total", "counter", static_cast<double>(input_lengths_));
        line("lmdeploy:num_requests_running", "gauge", in_flight_);
        line("lmdeploy:num_requests_waiting", "gauge", 0);
        line("lmdeploy:gpu_cache_usage_perc", "gauge", 0.25);
        break;
      case EngineKind::Ollama:
        break;
    }
    return m;
  }

  EngineKind kind_;
  mutable std::mutex mu_;
  std::map<std::string, int64_t> vocab_;
  std::vector<std::string> pieces_;
  std::set<std::string> cache_;
  int64_t in_flight_ = 0, finished_ = 0, prompt_evaluated_ = 0, predicted_ = 0, input_lengths_ = 0;
  std::atomic<int> generations_{0};
  ScriptedServer srv_;  // last: it stops (joins its threads) before the state above goes
};

}  // namespace tokbench::testing
