#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/regex.hpp"

#include <fmt/format.h>
#include <pcre2.h>

#include <stdexcept>

namespace tokbench::tokenizer {

struct Regex::Impl {
  pcre2_code* code = nullptr;
  bool jit = false;
};

namespace {

// Per-thread match data and JIT stack, shared by every pattern (PCRE2 allows that).
struct ThreadScratch {
  pcre2_match_data* md = pcre2_match_data_create(64, nullptr);
  pcre2_match_context* mctx = pcre2_match_context_create(nullptr);
  pcre2_jit_stack* stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
  ThreadScratch() { pcre2_jit_stack_assign(mctx, nullptr, stack); }
  ~ThreadScratch() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(mctx);
    pcre2_match_data_free(md);
  }
};

ThreadScratch& scratch() {
  thread_local ThreadScratch s;
  return s;
}

}  // namespace

std::string Regex::rewrite(const std::string& p) {
  std::string out;
  out.reserve(p.size() + 16);
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size()) {
      const char n = p[i + 1];
      if (n == 's') {
        out += "\\p{White_Space}";
      } else if (n == 'S') {
        out += "\\P{White_Space}";
      } else {
        out += p[i];
        out += n;
      }
      ++i;
    } else {
      out += p[i];
    }
  }
  return out;
}

Regex::Regex(const std::string& pattern) : impl_(std::make_unique<Impl>()) {
  const std::string p = rewrite(pattern);
  int err = 0;
  PCRE2_SIZE offset = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(),
                              PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE, &err, &offset, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    throw std::runtime_error(fmt::format("regex '{}' does not compile at offset {}: {}", pattern,
                                         offset, reinterpret_cast<const char*>(msg)));
  }
  impl_->jit = pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() {
  if (impl_ && impl_->code) pcre2_code_free(impl_->code);
}

std::vector<std::pair<size_t, size_t>> Regex::find_all(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> out;
  auto& s = scratch();
  size_t start = 0;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  while (start <= text.size()) {
    // Input is valid UTF-8 (the tokenizer repairs it first), so the per-call check is skipped.
    const int rc = impl_->jit ? pcre2_jit_match(impl_->code, subject, text.size(), start,
                                                PCRE2_NO_UTF_CHECK, s.md, s.mctx)
                              : pcre2_match(impl_->code, subject, text.size(), start,
                                            PCRE2_NO_UTF_CHECK, s.md, s.mctx);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(rc, msg, sizeof msg);
      throw std::runtime_error(
          fmt::format("regex match failed: {}", reinterpret_cast<const char*>(msg)));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(s.md);
    const size_t b = ov[0], e = ov[1];
    out.emplace_back(b, e);
    if (e == b) {
      // Empty match: step over one whole character.
      if (b >= text.size()) break;
      size_t n = 1;
      while (b + n < text.size() && (static_cast<unsigned char>(text[b + n]) & 0xC0) == 0x80) ++n;
      start = b + n;
    } else {
      start = e;
    }
  }
  return out;
}

}  // namespace tokbench::tokenizer
