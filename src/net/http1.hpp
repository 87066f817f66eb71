#pragma once
// net/http1: HTTP/1.1 on plain sockets — the parts that are pure and testable on their own: the
// target URL's pieces, the request's bytes, and an incremental response reader (status line,
// headers, a Content-Length, chunked or read-until-close body). client/socket_transport drives it
// over non-blocking sockets on the measured path, and net/http_get's set-up calls (GET /v1/models,
// /metrics, POST /tokenize) over a blocking socket. libcurl stays for TLS and proxies; this exists
// because libcurl spends a poll() and its state machine on every read (without them a client core
// spends 17–30 % less per SSE event, docs/PERFORMANCE.md), and because loading it maps about 25
// shared libraries that a plain http:// run never needs.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::net {

/// ASCII case-insensitive equality (header names, the scheme).
bool iequals(std::string_view a, std::string_view b);

/// The parts of an http:// URL a socket needs.
struct HttpUrl {
  std::string host;         ///< a name or an address, IPv6 without brackets
  std::string port = "80";  ///< as written, or the default
  std::string path = "/";   ///< the path and query, "/" when empty
  std::string authority;    ///< the Host header's value, as written in the URL
};

/// Parses "http://host[:port][/path]". nullopt (with `why`) for any other scheme, user info or
/// a malformed authority: the caller then uses libcurl, which knows them all.
std::optional<HttpUrl> parse_http_url(std::string_view url, std::string* why = nullptr);

/// The request head, with libcurl's defaults and its rules for custom headers, so both transports
/// send the same bytes: Host, User-Agent: tokbench and Accept: */* unless a custom header of that
/// name replaces them; a custom "Name:" with no value removes one, "Name;" sends it empty.
/// Content-Length is added when `body_bytes` is set (a POST).
std::string request_head(std::string_view method, const HttpUrl& url,
                         const std::vector<std::string>& headers, std::optional<size_t> body_bytes);

/// Reads one HTTP/1.1 response from bytes split anywhere. Interim 1xx responses are skipped. The
/// head is capped (a server cannot make it hold unbounded memory); the body is handed on as it
/// is decoded, never buffered here.
class Http1Reader {
 public:
  class Sink {
   public:
    virtual ~Sink() = default;
    virtual void on_status(int code) = 0;
    virtual void on_header(std::string_view name, std::string_view value) = 0;  ///< value trimmed
    /// Decoded body bytes; false stops the reader (the caller gave up on this response).
    virtual bool on_body(std::string_view bytes) = 0;
  };

  explicit Http1Reader(size_t max_head_bytes = 64 * 1024) : max_head_(max_head_bytes) {}

  /// Ready for a new response.
  void reset();
  /// Consumes `bytes`. False when the response broke HTTP (error() says how) or the sink said
  /// stop; the connection is then unusable.
  bool feed(std::string_view bytes, Sink& sink);
  /// The peer closed the connection: ends a read-until-close body; anywhere else it is an error.
  void on_eof();

  bool started() const { return started_; }  ///< a byte of this response has come
  bool done() const { return state_ == State::Done; }
  bool failed() const { return state_ == State::Failed; }
  const std::string& error() const { return error_; }
  /// After done(): the connection may carry the next request.
  bool keep_alive() const { return keep_alive_; }

 private:
  enum class State {
    Status,
    Headers,
    Body,
    ChunkSize,
    ChunkData,
    ChunkEnd,
    Trailers,
    UntilClose,
    Done,
    Failed
  };
  enum class BodyKind { None, Length, Chunked, UntilClose };

  bool fail(std::string why);
  bool take_line(std::string_view bytes, size_t& i, std::string_view& line, size_t cap);
  bool on_status_line(std::string_view line, Sink& sink);
  bool on_header_line(std::string_view line, Sink& sink);
  bool end_of_head();

  State state_ = State::Status;
  BodyKind body_ = BodyKind::None;
  std::string line_;    // a line split across reads, so far
  std::string joined_;  // the last such line, whole (take_line's `line` points here)
  size_t head_bytes_ = 0;
  size_t max_head_;
  uint64_t left_ = 0;  // body or chunk bytes still to come
  int status_ = 0;
  bool http10_ = false;
  bool keep_alive_ = true;
  bool chunked_ = false;
  bool has_length_ = false;
  bool started_ = false;
  std::string error_;
};

}  // namespace tokbench::net
