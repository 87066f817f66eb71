// workload/synthetic: prompts of an exact token length as the server counts them
// (--input-len N ± --input-len-range, a shared --prefix-len, --output-len M sent with ignore_eos),
// built with the local tokenizer or the server's /tokenize; the tokens the server adds around a
// prompt (chat template, BOS) are measured once and subtracted, so usage.prompt_tokens is N.
#include <fmt/format.h>

#include "workload/codec.hpp"
#include "workload/registry.hpp"

namespace tokbench::runner {

namespace {

class SyntheticWorkload final : public Workload {
 public:
  dataset::Source source() const override { return dataset::Source::Synthetic; }
  bool needs_target() const override { return true; }

  void validate(const WorkloadSettings& w, const WorkloadContext& with,
                std::vector<std::string>& e) const override {
    auto check = [&e](bool ok, std::string msg) {
      if (!ok) e.push_back(std::move(msg));
    };
    const bool on = used(w, with);
    check(!on || with.num_prompts <= 1'000'000,
          fmt::format("--num-prompts: {} synthetic prompts would all be built before the run; use "
                      "at most 1000000 with "
                      "--dataset synthetic, or a file dataset (it cycles) for longer soak runs",
                      with.num_prompts));
    check(!on || w.input_len > 0, "--dataset synthetic needs --input-len N (tokens per prompt)");
    // An API that generates nothing (embeddings, rerank) has no answer length to ask for.
    check(!on || w.output_len > 0 || !with.generates,
          "--dataset synthetic needs --output-len M (tokens per answer)");
    check(on || (w.input_len == 0 && w.output_len == 0 && w.prefix_len == 0 &&
                 w.input_len_range == 0 && w.output_len_range == 0),
          "--input-len/--output-len/--input-len-range/--output-len-range/--prefix-len: only with "
          "--dataset synthetic");
    check(w.input_len_range >= 0 && w.input_len_range < 1,
          fmt::format("--input-len-range: bad value {} (expected a ratio in [0, 1), e.g. 0.1)",
                      w.input_len_range));
    check(w.output_len_range >= 0 && w.output_len_range < 1,
          fmt::format("--output-len-range: bad value {} (expected a ratio in [0, 1), e.g. 0.1)",
                      w.output_len_range));
    check(w.prefix_len >= 0,
          fmt::format("--prefix-len: bad value {} (expected >= 0)", w.prefix_len));
  }

  void build(WorkloadInput& in, Prompts& t) const override {
    ServerTokenizer st = server_tokenizer(in);
    const bool server_has = has_tokenize(st);
    const auto codec = make_codec(st, server_has, in.tok,
                                  "--dataset synthetic needs the model's tokenizer to build "
                                  "prompts of an exact length");
    std::string how;
    const int64_t overhead = server_added_tokens(st, server_has, *codec, in.conversation, &how);
    dataset::SyntheticOptions o;
    o.count = in.load.num_prompts;
    o.input_len = in.workload.input_len;
    o.output_len = in.workload.output_len;
    o.input_len_range = in.workload.input_len_range;
    o.output_len_range = in.workload.output_len_range;
    o.prefix_len = in.workload.prefix_len;
    o.seed = in.load.seed;
    o.overhead = overhead;
    t.data = dataset::synthetic(o, *codec);
    fmt::print(in.console,
               "synthetic: {} prompts of {} tokens{} (+{} shared prefix), {} output tokens{}; "
               "built with {}; "
               "server-added tokens: {} ({})\n",
               o.count, o.input_len,
               o.input_len_range > 0 ? fmt::format(" ±{}%", o.input_len_range * 100) : "",
               o.prefix_len, o.output_len,
               o.output_len_range > 0 ? fmt::format(" ±{}%", o.output_len_range * 100) : "",
               codec->name(), overhead, how);
    t.synthetic = record::SyntheticFacts{o.input_len,        o.output_len, o.input_len_range,
                                         o.output_len_range, o.prefix_len, o.seed,
                                         codec->name(),      overhead,     how};
  }
};

}  // namespace

const Workload& synthetic_workload() {
  static const SyntheticWorkload w;
  return w;
}

}  // namespace tokbench::runner
