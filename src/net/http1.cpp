#include "net/http1.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace tokbench::net {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A custom header's name, and how it ends: "Name: v" (set), "Name:" (remove), "Name;" (empty).
struct CustomHeader {
  std::string_view name;
  std::string_view value;
  enum Kind { Set, Remove, Empty } kind;
};

std::optional<CustomHeader> split_custom(std::string_view h) {
  const size_t colon = h.find(':');
  if (colon == std::string_view::npos) {
    if (!h.empty() && h.back() == ';')
      return CustomHeader{trim(h.substr(0, h.size() - 1)), {}, CustomHeader::Empty};
    return std::nullopt;  // not a header at all (libcurl sends it as is; nothing sane to do)
  }
  const std::string_view value = trim(h.substr(colon + 1));
  return CustomHeader{trim(h.substr(0, colon)), value,
                      value.empty() ? CustomHeader::Remove : CustomHeader::Set};
}

constexpr size_t kMaxChunkLine = 1024;
constexpr uint64_t kMaxChunkSize = uint64_t{1}
                                   << 40;  // 1 TiB in one chunk: 2^64-1 would wrap counts  //
                                           // "1a2b;ext=..." — nothing legitimate comes near it

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<HttpUrl> parse_http_url(std::string_view url, std::string* why) {
  auto no = [&](std::string reason) -> std::optional<HttpUrl> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  constexpr std::string_view kScheme = "http://";
  if (url.size() < kScheme.size() || !iequals(url.substr(0, kScheme.size()), kScheme))
    return no("not an http:// URL");
  url.remove_prefix(kScheme.size());
  const size_t slash = url.find_first_of("/?#");
  std::string_view authority = url.substr(0, slash);
  std::string_view rest = slash == std::string_view::npos ? std::string_view{} : url.substr(slash);
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos)
    rest = rest.substr(0, hash);
  if (authority.empty()) return no("no host in the URL");
  if (authority.find('@') != std::string_view::npos) return no("user info in the URL");
  HttpUrl u;
  u.authority = std::string(authority);
  std::string_view host = authority, port;
  if (authority.front() == '[') {  // [v6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return no("an IPv6 address without its ']'");
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return no("junk after the IPv6 address");
      port = after.substr(1);
      if (port.empty()) return no("a bad port");
    }
  } else if (const size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return no("a bad port");
  }
  if (host.empty()) return no("no host in the URL");
  if (!port.empty()) {
    int p = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p <= 0 || p > 65535)
      return no("a bad port");
    u.port = std::string(port);
  }
  u.host = std::string(host);
  if (!rest.empty()) u.path = rest.front() == '?' ? "/" + std::string(rest) : std::string(rest);
  return u;
}

std::string request_head(std::string_view method, const HttpUrl& url,
                         const std::vector<std::string>& headers,
                         std::optional<size_t> body_bytes) {
  auto custom_names = [&](std::string_view name) {
    for (const auto& h : headers)
      if (auto c = split_custom(h); c && iequals(c->name, name)) return true;
    return false;
  };
  std::string out = fmt::format("{} {} HTTP/1.1\r\n", method, url.path);
  const std::pair<std::string_view, std::string_view> defaults[] = {
      {"Host", url.authority}, {"User-Agent", "tokbench"}, {"Accept", "*/*"}};
  for (const auto& [name, value] : defaults)
    if (!custom_names(name)) fmt::format_to(std::back_inserter(out), "{}: {}\r\n", name, value);
  for (const auto& h : headers) {
    const auto c = split_custom(h);
    if (!c) continue;
    if (iequals(c->name, "Content-Length")) continue;  // the body's own length is the only true one
    if (c->kind == CustomHeader::Set)
      fmt::format_to(std::back_inserter(out), "{}: {}\r\n", c->name, c->value);
    if (c->kind == CustomHeader::Empty) fmt::format_to(std::back_inserter(out), "{}:\r\n", c->name);
  }
  if (body_bytes) fmt::format_to(std::back_inserter(out), "Content-Length: {}\r\n", *body_bytes);
  out += "\r\n";
  return out;
}

void Http1Reader::reset() {
  state_ = State::Status;
  body_ = BodyKind::None;
  line_.clear();
  head_bytes_ = 0;
  left_ = 0;
  status_ = 0;
  http10_ = false;
  keep_alive_ = true;
  chunked_ = false;
  has_length_ = false;
  started_ = false;
  error_.clear();
}

bool Http1Reader::fail(std::string why) {
  if (state_ != State::Failed) error_ = std::move(why);
  state_ = State::Failed;
  keep_alive_ = false;
  return false;
}

// One line ending in LF (a CR before it is dropped). True with `line` set when a whole line is
// there; false when the bytes ran out first (kept for the next read) or the line passed `cap`.
bool Http1Reader::take_line(std::string_view bytes, size_t& i, std::string_view& line, size_t cap) {
  const size_t lf = bytes.find('\n', i);
  const size_t end = lf == std::string_view::npos ? bytes.size() : lf;
  if (line_.size() + (end - i) > cap) {
    fail(state_ == State::ChunkSize  ? fmt::format("a chunk-size line longer than {} bytes", cap)
         : state_ == State::ChunkEnd ? std::string("chunk data longer than its size")
         : state_ == State::Trailers
             ? fmt::format("trailers larger than {} bytes", cap)
             : fmt::format("a response head larger than {} bytes", max_head_));
    i = bytes.size();
    return false;
  }
  if (lf == std::string_view::npos) {
    line_.append(bytes.substr(i));
    i = bytes.size();
    return false;
  }
  if (line_.empty()) {
    line = bytes.substr(i, end - i);
  } else {
    line_.append(bytes.substr(i, end - i));
    joined_.swap(
        line_);  // `line` stays valid until the next call, which may start a new partial line
    line_.clear();
    line = joined_;
  }
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  i = lf + 1;
  return true;
}

bool Http1Reader::on_status_line(std::string_view line, Sink& sink) {
  // "HTTP/1.1 200 OK": the version, a space, three digits.
  if (line.size() < 12 || !line.starts_with("HTTP/1.") || line[8] != ' ')
    return fail(fmt::format("not an HTTP/1.x status line: '{}'", line.substr(0, 80)));
  int code = 0;
  const auto [end, ec] = std::from_chars(line.data() + 9, line.data() + 12, code);
  // Three digits and then the end or a space: "HTTP/1.1 2000" is not a 200.
  if (ec != std::errc() || end != line.data() + 12 || code < 100 ||
      (line.size() > 12 && line[12] != ' '))
    return fail(fmt::format("a bad status code in '{}'", line.substr(0, 80)));
  status_ = code;
  http10_ = line[7] == '0';
  keep_alive_ = !http10_;
  chunked_ = has_length_ = false;
  left_ = 0;
  sink.on_status(code);
  state_ = State::Headers;
  return true;
}

bool Http1Reader::on_header_line(std::string_view line, Sink& sink) {
  if (line.front() == ' ' || line.front() == '\t')
    return true;  // obsolete folding: nothing we read folds
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0)
    return fail(fmt::format("a header line without a name: '{}'", line.substr(0, 80)));
  const std::string_view name = line.substr(0, colon);
  const std::string_view value = trim(line.substr(colon + 1));
  // An interim answer's headers (103 Early Hints, 100 Continue) describe nothing of the final one:
  // not its type, not its length, not whether the connection stays.
  if (status_ < 200 && status_ != 101) return true;
  if (iequals(name, "Content-Length")) {
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || (has_length_ && n != left_))
      return fail(fmt::format("a bad Content-Length: '{}'", value));
    has_length_ = true;
    left_ = n;
  } else if (iequals(name, "Transfer-Encoding")) {
    // The last coding must be chunked for the length to be known; anything else reads to close.
    const size_t comma = value.rfind(',');
    chunked_ =
        iequals(trim(comma == std::string_view::npos ? value : value.substr(comma + 1)), "chunked");
    if (!chunked_) keep_alive_ = false;
  } else if (iequals(name, "Connection")) {
    std::string v(value);
    for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (v.find("close") != std::string::npos) keep_alive_ = false;
    if (http10_ && v.find("keep-alive") != std::string::npos) keep_alive_ = true;
  }
  sink.on_header(name, value);
  return true;
}

// The blank line after the headers: what kind of body follows (RFC 9112 §6.3).
bool Http1Reader::end_of_head() {
  if (status_ < 200 && status_ != 101) {  // an interim response: the real one follows
    state_ = State::Status;
    head_bytes_ = 0;
    return true;
  }
  if (status_ == 101)
    keep_alive_ = false;  // switched to another protocol nobody asked for: not HTTP any more
  if (status_ == 204 || status_ == 304 || status_ < 200) {
    state_ = State::Done;
  } else if (chunked_) {
    body_ = BodyKind::Chunked;
    state_ = State::ChunkSize;
  } else if (has_length_) {
    body_ = BodyKind::Length;
    state_ = left_ == 0 ? State::Done : State::Body;
  } else {
    body_ = BodyKind::UntilClose;
    keep_alive_ = false;
    state_ = State::UntilClose;
  }
  return true;
}

bool Http1Reader::feed(std::string_view bytes, Sink& sink) {
  if (!bytes.empty()) started_ = true;
  size_t i = 0;
  while (i < bytes.size()) {
    std::string_view line;
    switch (state_) {
      case State::Status:
      case State::Headers: {
        // head_bytes_ counts whole lines only: a line split across reads was counted twice (its
        // first part once as read, again inside line_), and a legitimate 40 KB head was refused.
        const size_t before = i, partial = line_.size();
        const bool whole = take_line(bytes, i, line, max_head_ - std::min(max_head_, head_bytes_));
        if (!whole) return state_ != State::Failed;
        head_bytes_ += partial + (i - before);
        if (state_ == State::Status) {
          if (line.empty()) continue;  // a stray CRLF before the status line (RFC 9112 allows it)
          if (!on_status_line(line, sink)) return false;
        } else if (line.empty()) {
          end_of_head();
        } else if (!on_header_line(line, sink)) {
          return false;
        }
        break;
      }
      case State::Body:
      case State::ChunkData: {  // a Content-Length body, or one chunk's data
        const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, bytes.size() - i));
        left_ -= n;
        if (!sink.on_body(bytes.substr(i, n))) return fail("the body was refused");
        i += n;
        if (left_ == 0) state_ = state_ == State::Body ? State::Done : State::ChunkEnd;
        break;
      }
      case State::UntilClose:
        if (!sink.on_body(bytes.substr(i))) return fail("the body was refused");
        i = bytes.size();
        break;
      case State::ChunkSize: {
        if (!take_line(bytes, i, line, kMaxChunkLine)) return state_ != State::Failed;
        const std::string_view size = trim(line.substr(0, line.find(';')));
        uint64_t n = 0;
        const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), n, 16);
        if (size.empty() || ec != std::errc() || end != size.data() + size.size())
          return fail(fmt::format("a bad chunk size: '{}'", line.substr(0, 80)));
        if (n > kMaxChunkSize)
          return fail(fmt::format("a chunk size no server sends: '{}'", line.substr(0, 80)));
        left_ = n;
        state_ = n == 0 ? State::Trailers : State::ChunkData;
        break;
      }
      case State::ChunkEnd: {
        if (!take_line(bytes, i, line, 2)) return state_ != State::Failed;
        if (!line.empty()) return fail("chunk data longer than its size");
        state_ = State::ChunkSize;
        break;
      }
      case State::Trailers: {
        if (!take_line(bytes, i, line, max_head_)) return state_ != State::Failed;
        if (line.empty()) state_ = State::Done;
        break;
      }
      case State::Done:
        // Bytes after a whole response that nobody asked for: this connection is not to be trusted.
        keep_alive_ = false;
        return true;
      case State::Failed:
        return false;
    }
  }
  return state_ != State::Failed;
}

void Http1Reader::on_eof() {
  switch (state_) {
    case State::UntilClose:
      state_ = State::Done;
      return;
    case State::Done:
    case State::Failed:
      return;
    case State::Status:
      if (!started_) {
        fail("empty reply from server");
        return;
      }
      [[fallthrough]];
    case State::Headers:
      fail("the connection closed inside the response head");
      return;
    case State::Body:
      fail(fmt::format(
          "the connection closed with {} byte(s) of the body (Content-Length) still to come",
          left_));
      return;
    default:
      fail("the connection closed inside a chunked body (before its last chunk)");
      return;
  }
}

}  // namespace tokbench::net
