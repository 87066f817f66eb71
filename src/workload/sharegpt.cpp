// workload/sharegpt: ShareGPT conversations under vLLM's rules (lengths counted with the
// local tokenizer or the server's /tokenize; --sharegpt-output-len), or with --multi-turn whole
// conversations as sessions, each exchange a turn.
#include <fmt/format.h>

#include "workload/codec.hpp"
#include "workload/registry.hpp"

namespace tokbench::runner {

namespace {

class ShareGptWorkload final : public Workload {
 public:
  dataset::Source source() const override { return dataset::Source::Sharegpt; }
  bool needs_target() const override { return true; }

  void validate(const WorkloadSettings& w, const WorkloadContext& with,
                std::vector<std::string>& e) const override {
    auto check = [&e](bool ok, std::string msg) {
      if (!ok) e.push_back(std::move(msg));
    };
    check(!w.multi_turn || selected(w),
          "--multi-turn: only with --dataset sharegpt:PATH (with other datasets, --turns N "
          "makes conversations of N items)");
    check(
        w.sharegpt_output_len >= 0,
        fmt::format("--sharegpt-output-len: bad value {} (expected >= 0)", w.sharegpt_output_len));
    check(w.sharegpt_output_len == 0 || used(w, with),
          "--sharegpt-output-len: only with --dataset sharegpt:PATH");
  }

  void build(WorkloadInput& in, Prompts& t) const override {
    ServerTokenizer st = server_tokenizer(in);
    const auto codec = make_codec(
        st, !in.tok && has_tokenize(st), in.tok,
        "--dataset sharegpt:PATH counts each prompt's and answer's tokens (vLLM's filters and "
        "max_tokens)");
    dataset::ShareGptOptions o;
    o.count = in.load.num_prompts > 0 ? in.load.num_prompts
                                      : 1000;  // vllm bench serve's default --num-prompts
    o.seed = in.load.seed;
    o.output_len = in.workload.sharegpt_output_len;
    o.multi_turn = in.workload.multi_turn;
    o.max_turns = in.workload.turns;
    t.data = dataset::sharegpt(in.workload.dataset.path, o, *codec);
    fmt::print(in.console, "{}\n", t.data.summary);
    if (in.workload.multi_turn) {
      in.load.num_prompts =
          static_cast<int64_t>(t.data.conversations.size());  // sessions: the conversations kept
    } else if (in.load.num_prompts == 0) {
      in.load.num_prompts = static_cast<int64_t>(t.data.items.size());
    }
  }
};

}  // namespace

const Workload& sharegpt_workload() {
  static const ShareGptWorkload w;
  return w;
}

}  // namespace tokbench::runner
