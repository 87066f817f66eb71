// dataset/synthetic: prompts of an exact token length (dataset/prompt_builder makes each body).
// The text, not the ids, is what is sent, so the check is on the text.
#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "dataset/dataset.hpp"
#include "dataset/prompt_builder.hpp"
#include "tokenizer/tokenizer.hpp"

namespace tokbench::dataset {

namespace {

class LocalCodec : public TokenCodec {
 public:
  explicit LocalCodec(const tokenizer::Tokenizer& tok) : tok_(tok) {}
  std::vector<int32_t> encode(const std::string& text) override { return tok_.encode(text, false); }
  std::string decode(const std::vector<int32_t>& ids) override { return tok_.decode(ids); }
  std::vector<int32_t> pool() override {
    std::vector<int32_t> out;
    for (int32_t id = 0; id < static_cast<int32_t>(tok_.vocab_size()); ++id) {
      if (tok_.is_control(id)) continue;
      const int32_t one[] = {id};
      if (detail::clean_text(tok_.decode(one))) out.push_back(id);
    }
    return out;
  }
  std::string name() const override { return "tokenizer.json"; }

 private:
  const tokenizer::Tokenizer& tok_;
};

}  // namespace

std::unique_ptr<TokenCodec> local_codec(const tokenizer::Tokenizer& tok) {
  return std::make_unique<LocalCodec>(tok);
}

Dataset synthetic(const SyntheticOptions& o, TokenCodec& tok) {
  if (o.input_len < 1)
    throw std::invalid_argument(
        "--input-len: must be a positive number of tokens with --dataset synthetic");
  if (o.output_len < 0)
    throw std::invalid_argument(
        "--output-len: must be a positive number of tokens with --dataset synthetic");
  if (o.output_len_range < 0 || o.output_len_range >= 1)
    throw std::invalid_argument(
        fmt::format("--output-len-range: bad value {} (expected a ratio in [0, 1), e.g. 0.1)",
                    o.output_len_range));
  if (o.input_len_range < 0 || o.input_len_range >= 1)
    throw std::invalid_argument(
        fmt::format("--input-len-range: bad value {} (expected a ratio in [0, 1), e.g. 0.1)",
                    o.input_len_range));
  Dataset d;
  d.kind = "synthetic";
  d.abbr = "synthetic";
  detail::Builder b(tok, o.seed);
  std::string prefix;
  std::vector<int32_t> prefix_ids;
  if (o.prefix_len > 0) {
    prefix = b.body("", {}, o.prefix_len);
    prefix_ids = tok.encode(prefix);
  }
  const auto lo = static_cast<int64_t>(static_cast<double>(o.input_len) * (1 - o.input_len_range));
  const auto hi = static_cast<int64_t>(static_cast<double>(o.input_len) * (1 + o.input_len_range));
  std::uniform_int_distribution<int64_t> len(lo, hi);
  // Output lengths draw from their own stream: a seed's prompts stay the same with or without a
  // range.
  std::mt19937_64 out_rng(o.seed ^ 0x9E3779B97F4A7C15ULL);
  std::uniform_int_distribution<int64_t> out_len(
      std::max<int64_t>(
          1, static_cast<int64_t>(static_cast<double>(o.output_len) * (1 - o.output_len_range))),
      std::max<int64_t>(
          1, static_cast<int64_t>(static_cast<double>(o.output_len) * (1 + o.output_len_range))));
  for (int64_t i = 0; i < o.count; ++i) {
    const int64_t n = o.input_len_range > 0 ? len(b.rng()) : o.input_len;
    const int64_t body_len = n - o.overhead;
    if (body_len < 1) {
      throw std::invalid_argument(
          fmt::format("--input-len {}: the server adds {} token(s) of its own (chat template, "
                      "BOS), leaving none for the prompt; "
                      "raise --input-len",
                      n, o.overhead));
    }
    RequestSpec spec;
    spec.prompt = prefix + b.body(prefix, prefix_ids, body_len);
    // No --output-len (an API that generates nothing): no cap of its own.
    spec.max_tokens = o.output_len == 0        ? -1
                      : o.output_len_range > 0 ? out_len(out_rng)
                                               : o.output_len;
    spec.expected_input_tokens = o.prefix_len + n;
    d.items.push_back(std::move(spec));
  }
  return d;
}

}  // namespace tokbench::dataset
