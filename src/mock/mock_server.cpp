#include "mock/mock_server.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>  // boost 1.74 awaitable.hpp uses std::exchange without including it

#include "common/clock.hpp"
#include "common/json_writer.hpp"
#include "common/receive_time.hpp"
#include "mock/batch.hpp"
#include "mock/mock_metrics.hpp"
#include "mock/mock_spans.hpp"
#include "mock/mock_trace.hpp"
#include "mock/prefill.hpp"
#include "mockapi/mock_answers.hpp"
#include "mockapi/mock_tokenize.hpp"
#include "mockapi/mock_tools.hpp"
#include "mockapi/route.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokbench::mock {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using net::awaitable;
using net::use_awaitable;
using tcp = net::ip::tcp;

constexpr uint64_t kBodyLimit = 256u << 20;  // a larger request body is answered 413

constexpr const char* kPrometheusText = "text/plain; version=0.0.4";

struct MockServer::Impl {
  MockSettings s;
  // The io_context owns every pending coroutine (streams waiting on timers); it must go before the
  // state those coroutines touch on their way out (metrics, the batch), hence optional and reset
  // first in ~Impl (ASan: Histogram::observe from ~BatchSlot inside ~io_context).
  std::optional<net::io_context> ioc_box{std::in_place};
  net::io_context& ioc = *ioc_box;
  std::optional<tcp::acceptor> acceptor_box{std::in_place, ioc};
  tcp::acceptor& acceptor = *acceptor_box;
  std::vector<std::thread> threads;
  std::atomic<uint64_t> seq{0};
  std::atomic<uint64_t> served{0};
  TraceFile trace;
  std::unique_ptr<SpanExport> spans;  // --otlp-traces-endpoint
  bool started = false;
  std::optional<tokenizer::Tokenizer> tok;
  MockMetrics metrics{s.model_name};
  MockDevices devices{s.devices};
  Batch running_batch{s.max_num_seqs, s.scheduling_policy};
  std::unique_ptr<PrefixCache> prefix_cache;
  std::unique_ptr<AnswerBook> answers;      // --answers: what it says to the questions it knows
  std::unique_ptr<ToolCaller> tool_caller;  // the calls it makes, of a drawn worth
  std::mutex profile_mu;
  std::vector<std::pair<std::string, int64_t>> profile_events;  // ("start"|"stop", steady ns)

  explicit Impl(MockSettings settings) : s(std::move(settings)) { metrics.attach(&devices); }
  ~Impl() {
    running_batch.clear();
    acceptor_box.reset();
    ioc_box.reset();  // destroys the pending coroutines while everything they touch is alive
  }

  // vLLM's periodic stats lines, so that log parsing has a real producer to read.
  awaitable<void> log_loop() {
    net::steady_timer timer(ioc);
    auto before = metrics.counters();
    const auto period = std::chrono::duration<double>(s.log_interval_s);
    for (auto next = std::chrono::steady_clock::now();;) {
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
      timer.expires_at(next);
      co_await timer.async_wait(use_awaitable);
      const auto now = metrics.counters();
      const std::string lines = MockMetrics::log_lines(before, now, s.log_interval_s);
      std::fputs(lines.c_str(), stderr);
      std::fflush(stderr);
      before = now;
    }
  }

  // Accepts for as long as the listener is open. An accept error (out of descriptors: EMFILE,
  // ENFILE; a connection reset before it was taken) pauses and retries, said once on stderr: a
  // listener that stopped at the first one failed every later run while the process lived on.
  awaitable<void> accept_loop() {
    net::steady_timer pause(ioc);
    bool said = false;
    for (;;) {
      boost::system::error_code ec;
      tcp::socket sock = co_await acceptor.async_accept(net::redirect_error(use_awaitable, ec));
      // Stopping closes the acceptor. (No error_code comparison here or below: boost 1.74's
      // constexpr categories trip UBSan's vptr check, which ends the process.)
      if (!acceptor.is_open()) co_return;
      if (ec) {
        if (!said) {
          std::fprintf(stderr,
                       "serve-mock: cannot accept a connection: %s; retrying every 10 ms (raise "
                       "`ulimit -n` if "
                       "this says too many open files)\n",
                       ec.message().c_str());
          std::fflush(stderr);
          said = true;
        }
        pause.expires_after(std::chrono::milliseconds(10));
        co_await pause.async_wait(net::redirect_error(use_awaitable, ec));
        continue;
      }
      const int64_t accepted_ns = steady_now_ns();
      sock.set_option(tcp::no_delay(true));
      net::co_spawn(ioc, session(std::move(sock), accepted_ns), net::detached);
    }
  }

  template <class Body>
  awaitable<void> send(tcp::socket& sock, http::response<Body>& res) {
    res.prepare_payload();
    co_await http::async_write(sock, res, use_awaitable);
  }

  awaitable<void> send_body(tcp::socket& sock, unsigned version, bool keep, http::status st,
                            const char* type, std::string body) {
    http::response<http::string_body> res{st, version};
    res.set(http::field::content_type, std::string(type));
    res.keep_alive(keep);
    res.body() = std::move(body);
    co_await send(sock, res);
  }
  awaitable<void> send_json(tcp::socket& sock, unsigned version, bool keep, http::status st,
                            std::string body) {
    co_await send_body(sock, version, keep, st, "application/json", std::move(body));
  }

  awaitable<void> session(tcp::socket sock, int64_t accepted_ns) {
    beast::flat_buffer buf;
    Conn conn{accepted_ns, 0};
    try {
      for (;;) {
        http::request_parser<http::string_body> parser;
        parser.body_limit(kBodyLimit);
        parser.header_limit(64u << 10);
        if (trace) {
          // Bytes already buffered came with an earlier read: their receive time is not known.
          conn.received_ns = -1;
          if (buf.size() == 0) {
            co_await sock.async_wait(tcp::socket::wait_read, use_awaitable);
            conn.received_ns = tokbench::peek_receive_time(sock.native_handle());
          }
        }
        beast::error_code read_ec;
        co_await http::async_read_header(sock, buf, parser,
                                         net::redirect_error(use_awaitable, read_ec));
        // The body's room with simdjson's padding, so the request is parsed where it lies.
        if (!read_ec && parser.is_header_done()) {  // (content_length() asserts a whole head)
          if (const auto length = parser.content_length(); length && *length <= kBodyLimit)
            parser.get().body().reserve(static_cast<size_t>(*length) + simdjson::SIMDJSON_PADDING);
        }
        if (!read_ec)
          co_await http::async_read(sock, buf, parser, net::redirect_error(use_awaitable, read_ec));
        // Too large is an answer, as vLLM's server gives it (413 for a body, 400 for a head), not a
        // reset the client has to guess about.
        // By value: beast's own codes (a read's system errors are sockets' errno, none this small).
        const bool body_over =
            read_ec && read_ec.value() == static_cast<int>(http::error::body_limit);
        const bool head_over =
            read_ec && read_ec.value() == static_cast<int>(http::error::header_limit);
        if (body_over || head_over) {
          const bool body = body_over;
          co_await send_json(
              sock, 11, false, body ? http::status::payload_too_large : http::status::bad_request,
              error_body(body ? "Request body too large (the simulator reads at most 256 MiB)"
                              : "Request header fields too large (at most 64 KiB)",
                         "BadRequestError", body ? 413 : 400));
          break;
        }
        if (read_ec) break;  // the client went away mid-request
        ++conn.request;
        auto req = parser.release();
        const bool keep = req.keep_alive();
        const bool open = co_await route(sock, req, keep, conn);
        if (!keep || !open) break;
      }
    } catch (const std::exception&) {
      // Client went away or the server is stopping: nothing to answer.
    }
    beast::error_code ec;
    sock.shutdown(tcp::socket::shutdown_both, ec);
  }

  // Returns false when the connection must be closed (a simulated drop).
  awaitable<bool> route(tcp::socket& sock, http::request<http::string_body>& req, bool keep,
                        const Conn& conn) {
    const auto arrival = std::chrono::steady_clock::now();
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    const unsigned v = req.version();
    const bool post = req.method() == http::verb::post;
    const bool get = req.method() == http::verb::get;
    if (path == "/health" && get) {
      http::response<http::string_body> res{http::status::ok, v};
      res.keep_alive(keep);
      co_await send(sock, res);
    } else if (path == "/v1/models" && get) {
      co_await send_json(sock, v, keep, http::status::ok, models_body(s));
    } else if (path == "/metrics" && get) {
      // Built before the co_await: GCC 12 frees a conditional's temporaries in a co_await's
      // arguments twice.
      std::string text = metrics.render();
      if (answers) text += answers->render(fmt::format("model_name=\"{}\"", s.model_name));
      text += tool_caller->render(fmt::format("model_name=\"{}\"", s.model_name));
      co_await send_body(sock, v, keep, http::status::ok, kPrometheusText, std::move(text));
    } else if (path == "/device-metrics" && get &&
               devices.enabled()) {  // an accelerator exporter's view
      co_await send_body(sock, v, keep, http::status::ok, kPrometheusText, devices.render());
    } else if ((path == "/start_profile" || path == "/stop_profile") && post) {
      const std::string kind = path == "/start_profile" ? "start" : "stop";
      {
        std::lock_guard lock(profile_mu);
        profile_events.emplace_back(kind, steady_now_ns());
      }
      std::fprintf(stderr, "INFO [api_server.py] %s\n",
                   kind == "start" ? "Starting profiler..." : "Stopping profiler...");
      http::response<http::string_body> res{http::status::ok, v};
      res.keep_alive(keep);
      co_await send(sock, res);
    } else if (path == "/reset_prefix_cache" && post) {  // vLLM's (served in its dev mode)
      if (prefix_cache) prefix_cache->reset();
      co_await send_body(sock, v, keep, http::status::ok, "text/plain", "");
    } else if ((path == "/tokenize" || path == "/detokenize") && post) {
      auto [status, body] = tokenize_answer(tok ? &*tok : nullptr, req.body(), path == "/tokenize");
      co_await send_json(sock, v, keep, static_cast<http::status>(status), std::move(body));
    } else if (const MockRoute* route = route_of(path, req.body()); route && post) {
      co_return co_await completion(sock, req, keep, *route, arrival, conn);
    } else if (const OneShotRoute* once = one_shot_route_of(path); once && post) {
      co_await one_shot(sock, req, keep, *once, arrival, conn);
    } else if (route_of(path) || one_shot_route_of(path) || path == "/v1/models" ||
               path == "/health") {
      co_await send_json(sock, v, keep, http::status::method_not_allowed,
                         error_body("method not allowed", "BadRequestError", 405));
    } else {
      co_await send_json(sock, v, keep, http::status::not_found,
                         error_body(fmt::format("no route for {}", path), "NotFoundError", 404));
    }
    co_return true;
  }

  // ---- the batch: admission (max-num-seqs, FIFO) and what every running request shares ----------

  // Holds a place in the batch for one request; releasing it hands the place to the oldest waiter.
  // Released when the last token is generated, before its bytes go out (as vLLM's scheduler
  // frees a finished sequence before the API server streams it): a client that sends its next
  // request on the last chunk finds the place free, not still held by the request it just read.
  // The destructor releases what a dropped or cut request still holds.
  struct BatchSlot {
    Impl* impl = nullptr;
    TicketPtr ticket;
    std::chrono::steady_clock::time_point arrival;
    int64_t prompt_tokens = 0;
    int64_t cached_tokens = -1;
    void release(bool finished = true) {
      if (!impl) return;
      impl->running_batch.release(ticket);
      if (finished)
        impl->metrics.request_finished(seconds_since(arrival), prompt_tokens, cached_tokens >= 0,
                                       std::max<int64_t>(0, cached_tokens));
      else
        impl->metrics.request_aborted();
      impl = nullptr;
    }
    // Not released by its last token: its client left (a failed write, or a body's client seen
    // gone), or its stream was cut: vLLM aborts such a request.
    ~BatchSlot() { release(false); }
  };

  // The served model or one of its --lora-modules; any other name is vLLM's 404.
  bool serves(const std::string& model) const {
    return model == s.model_name ||
           std::find(s.lora_modules.begin(), s.lora_modules.end(), model) != s.lora_modules.end();
  }
  static std::string unknown_model(const std::string& model) {
    return error_body(fmt::format("The model `{}` does not exist.", model), "NotFoundError", 404);
  }

  // A one-shot API (embeddings, rerank): one answer after the prefill time (--ttft-ms, jitter
  // included); counted in /metrics as a finished request with its prompt tokens, and traced as a
  // body ('B') so its latency has a truth as a generation's has.
  awaitable<void> one_shot(tcp::socket& sock, http::request<http::string_body>& req, bool keep,
                           const OneShotRoute& route, std::chrono::steady_clock::time_point arrival,
                           const Conn& conn) {
    const unsigned v = req.version();
    std::string why;
    auto parsed = route.parse(req.body(), &why);
    if (!parsed) {
      co_await send_json(sock, v, keep, http::status::bad_request,
                         error_body(why, "BadRequestError", 400));
      co_return;
    }
    if (parsed->model.empty()) parsed->model = s.model_name;  // vLLM serves its one model
    if (!serves(parsed->model)) {
      co_await send_json(sock, v, keep, http::status::not_found, unknown_model(parsed->model));
      co_return;
    }
    int64_t tokens = parsed->token_id_tokens;
    for (const auto& t : parsed->texts)
      tokens += tok ? static_cast<int64_t>(tok->count(t, true)) : count_prompt_tokens(t);
    const uint64_t n = seq.fetch_add(1) + 1;
    served.fetch_add(1);
    metrics.request_queued();
    metrics.request_started(0);
    TraceLine tl;
    tl.arrival_ns = tl.admitted_ns = to_ns(arrival);
    StepModel model(s, n);
    net::steady_timer timer(sock.get_executor());
    timer.expires_at(arrival +
                     std::chrono::nanoseconds(static_cast<int64_t>(model.ttft_ms() * 1e6)));
    co_await timer.async_wait(use_awaitable);
    metrics.request_finished(seconds_since(arrival), tokens, false, 0);
    const std::string id = fmt::format("{}{}", route.id_prefix(), n);
    std::string body = route.body(*parsed, OneShotAnswer{id, n, tokens, s});
    if (trace) {
      tl.first_token_ns = steady_now_ns();
      tl.t_ns.push_back(tl.first_token_ns);
      tl.kinds.push_back('B');
      tl.tokens.push_back(0);
      trace.write(id, parsed->model, false, false, conn, tl);
    }
    co_await send_json(sock, v, keep, http::status::ok, std::move(body));
  }

  awaitable<bool> completion(tcp::socket& sock, http::request<http::string_body>& req, bool keep,
                             const MockRoute& route, std::chrono::steady_clock::time_point arrival,
                             const Conn& conn) {
    const unsigned v = req.version();
    std::string why;
    // Plain helpers, not conditional expressions: g++ 12 destroys a ?: temporary twice in a
    // coroutine.
    auto parsed = route.parse(req.body(), s.model_name, &why);
    if (!parsed) {
      std::string refusal = route.refusal(why);
      co_await send_json(sock, v, keep, http::status::bad_request, std::move(refusal));
      co_return true;
    }
    const bool chat = parsed->chat;
    if (s.no_usage) parsed->include_usage = parsed->continuous_usage = false;
    if (tok) parsed->prompt_tokens = static_cast<int64_t>(tok->count(parsed->rendered, !chat));
    parsed->prompt_tokens +=
        parsed->images * s.image_tokens;  // what the vision encoder adds per image
    if (auto f = req.find("x-gateway-inference-fairness-id"); f != req.end())
      parsed->tenant = std::string(f->value().substr(0, 64));  // bounded: it names a tenant
    const CompletionRequest& cr = *parsed;
    if (!serves(cr.model)) {
      co_await send_json(sock, v, keep, http::status::not_found, unknown_model(cr.model));
      co_return true;
    }
    const uint64_t n = seq.fetch_add(1) + 1;  // 1-based, so "every N-th" reads naturally
    served.fetch_add(1);
    if (auto call = tool_caller->call(cr, n)) {  // a call of a drawn worth (mockapi/mock_tools)
      parsed->tool_name = std::move(call->name);
      parsed->tool_arguments = std::move(call->arguments);
    } else if (!cr.json_schema.empty()) {  // a structured answer (mockapi/mock_tools)
      parsed->structured_answer = tool_caller->structured(cr, n);
    }
    if (s.fail_every > 0 && n % static_cast<uint64_t>(s.fail_every) == 0) {
      co_await send_json(sock, v, keep, http::status::internal_server_error,
                         error_body(fmt::format("injected failure (--fail-every {})", s.fail_every),
                                    "InternalServerError", 500));
      co_return true;
    }
    const Fault fault = choose_fault(s, n);
    if (fault == Fault::Http500) {
      co_await send_json(
          sock, v, keep, http::status::internal_server_error,
          error_body("injected fault (--fault-rate): 500", "InternalServerError", 500));
      co_return true;
    }
    if (fault == Fault::Http429) {
      http::response<http::string_body> out{http::status::too_many_requests, v};
      out.set(http::field::content_type, "application/json");
      out.set(http::field::retry_after, "1");
      out.keep_alive(keep);
      out.body() =
          error_body("injected fault (--fault-rate): 429, retry after 1 s", "RateLimitError", 429);
      co_await send(sock, out);
      co_return true;
    }
    if (fault == Fault::ResetBeforeHeaders) {  // read, then gone: not a byte of answer
      beast::error_code ec;
      sock.close(ec);
      co_return false;
    }
    // vLLM refuses a priority it would not honour (its processor's check).
    if (cr.priority != 0 && s.scheduling_policy != SchedulingPolicy::Priority) {
      co_await send_json(sock, v, keep, http::status::bad_request,
                         error_body(fmt::format("Got priority {} but Priority scheduling is not "
                                                "enabled.",
                                                cr.priority),
                                    "BadRequestError", 400));
      co_return true;
    }
    // vLLM refuses a request that cannot fit its context: prompt plus the asked output.
    const int64_t asked = cr.max_tokens > 0 ? cr.max_tokens : s.default_max_tokens;
    if (asked >
        s.max_model_len - cr.prompt_tokens) {  // (no sum: a client's max_tokens may be near 2^63)
      co_await send_json(
          sock, v, keep, http::status::bad_request,
          error_body(fmt::format(
                         "This model's maximum context length is {} tokens. However, you requested "
                         "{:.0f} tokens ({} in the messages, {} in the completion). Please reduce "
                         "the length of the messages or completion.",
                         s.max_model_len,
                         static_cast<double>(cr.prompt_tokens) + static_cast<double>(asked),
                         cr.prompt_tokens, asked),
                     "BadRequestError", 400));
      co_return true;
    }
    // As vLLM names a request: the API's prefix and the client's X-Request-Id, else a counter.
    std::string id = fmt::format("{}{}", route.id_prefix(), n);
    if (auto rid = req.find("x-request-id"); rid != req.end())
      id = fmt::format("{}{}", route.id_prefix(),
                       std::string_view(rid->value().data(), rid->value().size()));
    const Plan plan = make_plan(cr, s, n);  // the output length and finish reason
    const int64_t created = std::chrono::duration_cast<std::chrono::seconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
    Generation g{cr, route, plan, id, created, chat, n, arrival, conn, fault};
    if (auto t = req.find("traceparent"); t != req.end())
      g.traceparent = std::string(t->value().substr(0, 64));  // bounded: a header of 55 bytes
    co_return co_await generate(sock, g, keep, v);
  }

  struct Generation {
    const CompletionRequest& cr;
    const MockRoute& route;  // the API's words; the timing here is the same for every API
    const Plan& plan;
    const std::string& id;
    int64_t created;
    bool chat;
    uint64_t seq;
    std::chrono::steady_clock::time_point arrival;
    const Conn& conn;
    Fault fault = Fault::None;  // reset-mid-stream, stall, malformed-sse and no-done act here
    std::string traceparent;    // the W3C trace context it came with ("" = none)
  };

  // A client that left: vLLM aborts its request (and frees its place in the batch). A stream learns
  // it from a failed write; an answer sent whole only when it looks, at each decode step.
  static bool client_left(tcp::socket& sock) {
    char c = 0;
    return ::recv(sock.native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }

  // One request through the engine: queue, prefill (TTFT), then decode steps whose duration and
  // token count come from StepModel and the batch at that moment. Streams chunks, or answers at
  // the end.
  awaitable<bool> generate(tcp::socket& sock, const Generation& g, bool keep, unsigned version) {
    using clock = std::chrono::steady_clock;
    const CompletionRequest& cr = g.cr;
    const bool has_min = cr.min_tokens > 0;
    if (cr.stream)  // at once, as vLLM's go out
      co_await stream_headers(sock, g.id, keep, version, g.route.stream_type());
    TraceLine tl;
    tl.arrival_ns = to_ns(g.arrival);
    metrics.request_queued();
    auto ticket = std::make_shared<Ticket>();
    ticket->priority = cr.priority;
    ticket->tenant = cr.tenant;
    ticket->min_tokens = has_min;
    co_await running_batch.admit(ticket);
    const auto admitted = clock::now();
    tl.admitted_ns = to_ns(admitted);
    metrics.request_started(std::chrono::duration<double>(admitted - g.arrival).count());
    BatchSlot slot{this, ticket, g.arrival, cr.prompt_tokens};
    running_batch.served(*ticket, cr.prompt_tokens);
    // A call streams its arguments, then white space under ignore_eos (mockapi/mock_tools).
    // A structured answer (--json-schema) streams the same way, as content.
    const bool calling = !cr.tool_arguments.empty() || !cr.structured_answer.empty();
    const std::vector<std::string> script =
        !cr.tool_arguments.empty()      ? argument_pieces(cr.tool_arguments)
        : !cr.structured_answer.empty() ? argument_pieces(cr.structured_answer)
                                        : answer_words(cr);
    const Plan plan = calling
                          ? called_plan(g.plan, cr, script.size(),
                                        cr.max_tokens > 0 ? cr.max_tokens : s.default_max_tokens)
                          : answered_plan(g.plan, cr, script.size(), g.seq);
    // --reasoning-tokens: the answer's first tokens are reasoning, where the API streams it apart.
    const int64_t reasoning_tokens =
        g.route.reasons() && !calling && cr.chat ? s.reasoning_tokens : 0;
    std::string reasoning, reasoned;  // this write's reasoning; a body's whole reasoning
    auto word = [&](int64_t j) {
      return !calling || static_cast<size_t>(j) < script.size() ? word_at(script, j)
                                                                : std::string_view(" ");
    };

    StepModel model(s, g.seq);
    const int64_t target = plan.tokens;
    int64_t cached = -1;
    const PrefillInputs prefill{s,      prefix_cache.get(),     tok ? &*tok : nullptr, g.cr,
                                g.chat, g.fault == Fault::Stall};
    auto at = admitted + std::chrono::nanoseconds(
                             static_cast<int64_t>(prefill_ms(prefill, model, cached) * 1e6));
    slot.cached_tokens = cached;
    const int64_t drop_after = drop_point(g, target);
    bool malformed_sent = g.fault != Fault::MalformedSse;
    net::steady_timer timer(sock.get_executor());
    std::string payload, text;
    int64_t produced = 0;
    Events ev(payload, tl.kinds, tl.tokens);
    const MockRoute& route = g.route;
    // The answer at this moment, for the route to put in words.
    auto answer = [&](bool done) {
      return Answer{cr,
                    g.id,
                    g.created,
                    produced,
                    cached,
                    text,
                    done ? std::string_view(plan.finish_reason) : std::string_view(),
                    !s.no_usage,
                    cr.stream ? std::string_view(reasoning) : std::string_view(reasoned)};
    };
    // Waits until `t`. Under the priority policy it waits in slices of 1 ms at most and gives its
    // place up as soon as a better request asks for it (vLLM's scheduler takes it at once); once
    // readmitted, `t` becomes the end of a recomputed prefill (vLLM's recompute preemption: the
    // prefill over the prompt and what was generated yields the next token).
    const bool preemptible = s.scheduling_policy == SchedulingPolicy::Priority;
    auto wait_until = [&](clock::time_point& t) -> awaitable<void> {
      while (true) {
        if (preemptible && Batch::preempted(*ticket)) {
          metrics.request_preempted();
          co_await running_batch.requeue(ticket);
          metrics.request_resumed();
          int64_t recached = -1;
          t = clock::now() + std::chrono::nanoseconds(
                                 static_cast<int64_t>(prefill_ms(prefill, model, recached) * 1e6));
        }
        timer.expires_at(preemptible ? std::min(t, clock::now() + std::chrono::milliseconds(1))
                                     : t);
        co_await timer.async_wait(use_awaitable);
        if (!preemptible || clock::now() >= t) co_return;
      }
    };

    // Prefill: the first token (or, for max_tokens 0, only a finish). /metrics observes when it
    // actually happened, not when it was planned: under load the simulator itself runs late, and
    // its histograms must say so, as a real server's do.
    co_await wait_until(at);
    StepObserver steps{metrics, cr.n, clock::now(), {}};
    tl.first_token_ns = to_ns(steps.last_wake);
    metrics.first_token(std::chrono::duration<double>(steps.last_wake - g.arrival).count(),
                        static_cast<int>(cr.n));  // each choice's first token
    int64_t pending = target > 0 ? 1 : 0;
    while (true) {
      // Emit what is pending when the chunk is full or the output is complete.
      const bool done = produced + pending >= target;
      if (pending >= s.tokens_per_chunk || done || produced == 0) {
        const size_t kinds_before = tl.kinds.size();
        payload.clear();
        // n > 1: every choice gets its own event (its index) at the same moment, as vLLM
        // interleaves them.
        if (cr.stream && produced == 0) route.begin(answer(false), ev);
        std::string piece;
        reasoning.clear();
        const int chunk_tokens = static_cast<int>(pending);
        for (int64_t k = 0; k < pending; ++k, ++produced)
          (produced < reasoning_tokens ? reasoning : piece) += word(produced);
        if (!cr.stream) reasoned += reasoning;
        if (done) {  // generated: the batch place is free before the bytes go out
          tl.last_token_ns = steady_now_ns();
          slot.release();
        }
        if (!cr.stream || route.keeps_text())
          text += piece;  // a body (and some APIs' events) carries the whole text
        pending = 0;
        if (cr.stream) {
          if (drop_after >= 0 && produced > drop_after) {
            write_trace(g, tl, true);
            beast::error_code ec;
            sock.close(ec);  // simulated crash: no terminating chunk, no end marker
            co_return false;
          }
          route.piece(answer(done), piece, chunk_tokens, done, ev);
          if (!malformed_sent &&
              (produced * 2 >= target || done)) {  // half-way: an event that is not JSON
            payload += "data: {\"choices\": [{\"delta\": {\"content\": \"broken\n\n";
            malformed_sent = true;
          }
          if (done) route.end(answer(true), g.fault != Fault::NoDone, ev);
          co_await write_chunk(sock, payload, tl.t_ns, tl.kinds.size() - kinds_before);
        }
        if (done) break;
      }
      Step st = model.next(running_batch.state());
      running_batch.served(*ticket, st.tokens);
      if (!cr.json_schema.empty()) st.ms += s.schema_tpot_ms;  // the token mask of its grammar
      at += std::chrono::nanoseconds(static_cast<int64_t>(st.ms * 1e6));
      const int64_t tokens = std::min<int64_t>(st.tokens, target - produced - pending);
      pending += tokens;
      steps.planned.push_back({st, tokens});
      if (pending >= s.tokens_per_chunk || produced + pending >= target) {
        co_await wait_until(at);
        steps.observe();
        if (!cr.stream && client_left(sock)) {
          beast::error_code ec;
          sock.close(ec);
          co_return false;  // the BatchSlot's release admits the next request
        }
      }
    }
    if (!steps.planned.empty()) steps.observe();
    std::string body;  // no ?: here: g++ 12 destroys a conditional's temporary twice in a coroutine
    if (!cr.stream) body = route.body(answer(true));
    co_await finish(sock, g, keep, version, std::move(body), tl, produced);
    co_return true;
  }

  // --answers: a known question's answer comes first, judged at admission (the batch it joins).
  std::vector<std::string> answer_words(const CompletionRequest& cr) {
    return answers ? answers->answer(cr.rendered, running_batch.state().running - 1)
                   : std::vector<std::string>{};
  }

  // Where a dropped stream is cut (--drop-every, the reset-mid-stream fault): half-way; -1: never.
  int64_t drop_point(const Generation& g, int64_t target) const {
    const bool drop = (s.drop_every > 0 && g.seq % static_cast<uint64_t>(s.drop_every) == 0) ||
                      g.fault == Fault::ResetMidStream;
    return drop ? target / 2 : -1;
  }

  // The end of an answer: a stream's last chunk, or the whole body of one that was not streamed.
  awaitable<void> finish(tcp::socket& sock, const Generation& g, bool keep, unsigned version,
                         std::string body, TraceLine& tl, int64_t produced) {
    if (spans) {  // vLLM's span ends with the iteration of its last token, before the bytes go
      const int64_t asked = g.cr.max_tokens > 0 ? g.cr.max_tokens : s.default_max_tokens;
      spans->request_done(g.traceparent, g.id, g.cr.model,
                          {tl.arrival_ns, tl.admitted_ns, tl.first_token_ns, tl.last_token_ns,
                           tl.last_token_ns, g.cr.prompt_tokens, produced, asked});
    }
    if (g.cr.stream) {
      // The trace line goes first: once the client has the last byte it may stop this server.
      write_trace(g, tl, false);
      co_await net::async_write(sock, http::make_chunk_last(), use_awaitable);
      co_return;
    }
    co_await send_body(sock, g, keep, version, std::move(body), tl, produced);
  }

  // A stream's headers (chunked; every event follows as a chunk).
  awaitable<void> stream_headers(tcp::socket& sock, const std::string& id, bool keep,
                                 unsigned version, std::string_view type) {
    http::response<http::empty_body> res{http::status::ok, version};
    res.set(http::field::content_type, std::string(type));
    res.set(http::field::cache_control, "no-cache");
    res.set("x-request-id", id);
    res.keep_alive(keep);
    res.chunked(true);
    http::response_serializer<http::empty_body> sr(res);
    co_await http::async_write_header(sock, sr, use_awaitable);
  }

  // A non-streaming answer: the whole body, its trace line first (the body may be the last thing
  // the client waits for).
  awaitable<void> send_body(tcp::socket& sock, const Generation& g, bool keep, unsigned version,
                            std::string body, TraceLine& tl, int64_t produced) {
    http::response<http::string_body> out{http::status::ok, version};
    out.set(http::field::content_type, "application/json");
    out.set("x-request-id", g.id);
    std::vector<std::pair<std::string, std::string>> extra;
    const int64_t now = steady_now_ns();
    g.route.body_headers(
        {tl.admitted_ns - tl.arrival_ns, now - tl.admitted_ns, g.cr.prompt_tokens, produced},
        extra);
    for (const auto& [name, value] : extra) out.set(name, value);
    out.keep_alive(keep);
    out.body() = std::move(body);
    if (trace) {
      tl.t_ns.push_back(steady_now_ns());
      tl.kinds.push_back('B');
      tl.tokens.push_back(static_cast<int>(produced));
      write_trace(g, tl, false);
    }
    co_await send(sock, out);
  }

  awaitable<void> write_chunk(tcp::socket& sock, const std::string& payload,
                              std::vector<int64_t>& trace_t, size_t events) {
    if (trace) trace_t.insert(trace_t.end(), events, steady_now_ns());
    co_await net::async_write(sock, http::make_chunk(net::buffer(payload)), use_awaitable);
  }

  void write_trace(const Generation& g, const TraceLine& tl, bool dropped) {
    if (trace) trace.write(g.id, g.cr.model, g.cr.stream, dropped, g.conn, tl);
  }
};

MockServer::MockServer(MockSettings settings)
    : impl_(std::make_unique<Impl>(std::move(settings))) {}

MockServer::~MockServer() { stop(); }

uint16_t MockServer::start() {
  auto& m = *impl_;
  if (auto errs = m.s.validate(); !errs.empty()) throw std::runtime_error(errs.front());
  if (!m.s.tokenizer_path.empty()) m.tok = tokenizer::Tokenizer::load(m.s.tokenizer_path);
  if (m.s.prefix_caching) m.prefix_cache = std::make_unique<PrefixCache>(m.s.block_size);
  m.tool_caller =
      std::make_unique<ToolCaller>(m.s.answers, m.s.seed, m.s.tool_invalid_rate, m.s.wrong_rate,
                                   m.s.json_invalid_rate, m.s.tool_rounds);
  if (m.s.answers.starts_with("gsm8k:"))
    m.answers = std::make_unique<AnswerBook>(m.s.answers, m.s.seed, m.s.wrong_rate,
                                             m.s.wrong_rate_per_running_request);
  if (!m.s.otlp_traces_endpoint.empty())
    m.spans = std::make_unique<SpanExport>(m.s.otlp_traces_endpoint, "tokbench-mock");
  if (!m.s.trace_path.empty() && !m.trace.open(m.s.trace_path))
    throw std::runtime_error(fmt::format("--trace: cannot write '{}'", m.s.trace_path));
  beast::error_code ec;
  const auto addr = net::ip::make_address(m.s.host, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("--host: bad address '{}' (expected e.g. 127.0.0.1 or ::1)", m.s.host));
  const tcp::endpoint ep(addr, m.s.port);
  m.acceptor.open(ep.protocol(), ec);
  if (!ec) m.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(ep, ec);
  if (!ec) m.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (!ec && m.trace) stamp_accepted_receive_times(m.acceptor.native_handle());
  if (ec) {
    throw std::runtime_error(
        fmt::format("cannot listen on {}:{}: {} (pick another --port, or 0 for any free port)",
                    m.s.host, m.s.port, ec.message()));
  }
  const uint16_t port = m.acceptor.local_endpoint().port();
  net::co_spawn(m.ioc, m.accept_loop(), net::detached);
  if (m.s.log_interval_s > 0) net::co_spawn(m.ioc, m.log_loop(), net::detached);
  for (int i = 0; i < m.s.threads; ++i) m.threads.emplace_back([&m] { m.ioc.run(); });
  m.started = true;
  return port;
}

void MockServer::stop() {
  auto& m = *impl_;
  if (!m.started) return;
  m.started = false;
  m.ioc.stop();
  for (auto& t : m.threads) t.join();
  m.threads.clear();
  if (m.spans) m.spans->stop();  // what is queued goes out
  m.trace.close();
}

double MockServer::device_joules() const { return impl_->devices.joules(); }

uint64_t MockServer::completions_served() const { return impl_->served.load(); }

std::vector<std::pair<std::string, int64_t>> MockServer::profile_events() const {
  std::lock_guard lock(impl_->profile_mu);
  return impl_->profile_events;
}

}  // namespace tokbench::mock
