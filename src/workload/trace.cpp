// workload/trace: a Mooncake-style trace replayed at its timestamps (--trace-speed) —
// prompts of each line's input length built block by block (shared hash ids are shared text,
// --trace-block-size tokens each) with the local tokenizer or the server's /tokenize, less what
// the server adds. The trace is the schedule: nothing else may pace or bound it.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "workload/codec.hpp"
#include "workload/registry.hpp"

namespace tokbench::runner {

namespace {

class TraceWorkload final : public Workload {
 public:
  dataset::Source source() const override { return dataset::Source::Trace; }
  bool needs_target() const override { return true; }

  void validate(const WorkloadSettings& w, const WorkloadContext& with,
                std::vector<std::string>& e) const override {
    auto check = [&e](bool ok, std::string msg) {
      if (!ok) e.push_back(std::move(msg));
    };
    check(w.trace_block_size >= 1,
          fmt::format("--trace-block-size: bad value {} (expected >= 1)", w.trace_block_size));
    check(w.trace_speed > 0 && std::isfinite(w.trace_speed),
          fmt::format("--trace-speed: bad value {} (expected > 0)", w.trace_speed));
    check(used(w, with) || w.trace_block_size == 512,
          "--trace-block-size: only with --dataset trace:PATH");
    check(used(w, with) || w.dataset.is(dataset::Source::AgentTrace) || w.trace_speed == 1,
          "--trace-speed: only with --dataset trace:PATH or agent-trace:PATH (it scales their "
          "recorded times)");
  }

  void build(WorkloadInput& in, Prompts& t) const override {
    ServerTokenizer st = server_tokenizer(in);
    const bool server_has = has_tokenize(st);
    const auto codec = make_codec(st, server_has, in.tok,
                                  "--dataset trace:PATH builds each prompt to its exact "
                                  "input_length block by block");
    std::string how;
    dataset::TraceOptions o;
    o.block_size = in.workload.trace_block_size;
    o.speed = in.workload.trace_speed;
    o.count = in.load.num_prompts;
    o.seed = in.load.seed;
    o.overhead = server_added_tokens(st, server_has, *codec, in.conversation, &how);
    t.data = dataset::trace(in.workload.dataset.path, o, *codec);
    fmt::print(in.console, "{}; server-added tokens: {} ({})\n", t.data.summary, o.overhead, how);
    const auto lines = static_cast<int64_t>(t.data.items.size());
    t.trace = record::TraceFacts{o.block_size,
                                 o.speed,
                                 lines,
                                 static_cast<double>(t.data.schedule_ns.back()) / 1e9,
                                 t.data.implied_cache_hit,
                                 codec->name(),
                                 o.overhead,
                                 how};
    if (in.load.num_prompts > lines) {
      throw std::invalid_argument(
          fmt::format("--num-prompts {}: the trace has {} line(s) and replays once; drop "
                      "--num-prompts or lower it",
                      in.load.num_prompts, lines));
    }
    in.load.num_prompts = lines;
  }
};

}  // namespace

const Workload& trace_workload() {
  static const TraceWorkload w;
  return w;
}

}  // namespace tokbench::runner
