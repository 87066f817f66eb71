#pragma once
// client/sse: incremental Server-Sent Events framing (WHATWG rules) for the hot path. Bytes go
// in as they arrive, in reads split anywhere; each complete event's data comes out once. In
// lines mode (newline-delimited JSON, Ollama's native stream) every non-empty line is an event.
// Knows nothing about JSON or OpenAI: chunk_parser decides what an event means.
#include <cstring>
#include <string>
#include <string_view>

namespace tokbench::client {

class SseFramer {
 public:
  /// Feeds raw bytes. For every event completed by them, calls on_event(std::string_view data)
  /// with the event's `data:` lines joined by '\n'. Lines end in "\n", "\r\n" or "\r" (a CR at
  /// the end of one read and the LF at the start of the next are one line end). Comments
  /// (":...") and other fields are ignored; an event with no data line is not dispatched.
  /// A line or an event's data larger than `max_bytes` stops the framer: too_large() turns true
  /// and every later byte is ignored (memory stays bounded whatever the server sends).
  explicit SseFramer(size_t max_bytes = 1 << 20) : max_bytes_(max_bytes) {}
  void set_max_bytes(size_t max_bytes) { max_bytes_ = max_bytes; }
  /// Lines mode: each non-empty line is one event's data, as it is (NDJSON).
  void set_lines(bool lines) { lines_ = lines; }

  template <class OnEvent>
  void feed(std::string_view bytes, OnEvent&& on_event) {
    if (too_large_) return;
    size_t i = 0;
    if (skip_lf_ && !bytes.empty()) {
      if (bytes[0] == '\n') i = 1;
      skip_lf_ = false;
    }
    while (i < bytes.size()) {
      const size_t end = line_end(bytes, i);
      if (end == bytes.size()) {  // partial line: keep it for the next read
        if (line_.size() + (end - i) > max_bytes_) {
          too_large_ = true;
          return;
        }
        line_.append(bytes.substr(i));
        keep_viewed_data();
        return;
      }
      if (line_.size() + (end - i) > max_bytes_) {
        too_large_ = true;
        return;
      }
      std::string_view line;
      const bool in_bytes =
          line_.empty();  // the line lies in `bytes`, valid until this call returns
      if (in_bytes) {
        line = bytes.substr(i, end - i);
      } else {
        line_.append(bytes.substr(i, end - i));
        line = line_;
      }
      size_t next = end + 1;
      if (bytes[end] == '\r') {
        if (next < bytes.size()) {
          if (bytes[next] == '\n') ++next;
        } else {
          skip_lf_ = true;
        }
      }
      i = next;
      if (lines_) {  // NDJSON: a line is an event
        if (!line.empty()) on_event(line);
        line_.clear();
        continue;
      }
      if (line.empty()) {
        if (has_data_) on_event(viewing_ ? viewed_ : std::string_view(data_));
        data_.clear();
        has_data_ = viewing_ = false;
      } else {
        take_line(line, in_bytes);
        if (too_large_) return;
      }
      line_.clear();
    }
    keep_viewed_data();
  }

  /// True when bytes of an unfinished event are buffered (a stream that ends here was cut).
  bool has_partial() const { return !line_.empty() || has_data_; }
  /// Lines that were not SSE at all (no known field, not a comment): skipped, and counted.
  int64_t malformed_lines() const { return malformed_; }
  /// A line or an event passed the size cap; the framer has stopped.
  bool too_large() const { return too_large_; }
  size_t max_bytes() const { return max_bytes_; }

  void reset() {
    too_large_ = false;
    malformed_ = 0;
    line_.clear();
    data_.clear();
    has_data_ = viewing_ = false;
    skip_lf_ = false;
  }

 private:
  void take_line(std::string_view line, bool in_bytes);
  // An event of one data line, whole in one read (the usual case), is handed out as a view of
  // the read's bytes instead of a copy; before feed() returns, a view not yet handed out is copied.
  void keep_viewed_data() {
    if (!viewing_) return;
    data_.assign(viewed_);
    viewing_ = false;
  }
  // Where the line starting at `i` ends: its first CR or LF, or bytes.size(). memchr rather than
  // a loop over every byte (the framer's largest cost per event was that loop): a line is one
  // event's JSON, a few hundred bytes, and LF-terminated lines need the CR search only up to the
  // LF.
  static size_t line_end(std::string_view bytes, size_t i) {
    const char* base = bytes.data();
    const auto* lf = static_cast<const char*>(std::memchr(base + i, '\n', bytes.size() - i));
    const size_t end = lf ? static_cast<size_t>(lf - base) : bytes.size();
    const auto* cr = static_cast<const char*>(std::memchr(base + i, '\r', end - i));
    return cr ? static_cast<size_t>(cr - base) : end;
  }

  std::string line_;         // a line split across reads
  std::string data_;         // data of the event being assembled
  std::string_view viewed_;  // or, while viewing_, its one data line in the bytes being fed
  bool viewing_ = false;
  bool has_data_ = false;
  bool skip_lf_ = false;
  bool too_large_ = false;
  bool lines_ = false;
  int64_t malformed_ = 0;
  size_t max_bytes_;
};

}  // namespace tokbench::client
