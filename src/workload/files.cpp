// workload/files: the datasets read line by line as they stand — builtin (a few embedded
// prompts), qa:PATH, gsm8k:PATH, lines:PATH, agent:PATH and agent-trace:PATH (dataset/ reads
// them). They have no
// flags of their own and are read before the target is contacted, so a bad file fails fast.
#include "dataset/dataset.hpp"
#include "workload/registry.hpp"
#include "workload/workload.hpp"

namespace tokbench::runner {

namespace {

class FileWorkload final : public Workload {
 public:
  explicit FileWorkload(dataset::Source s) : source_(s) {}
  dataset::Source source() const override { return source_; }
  void validate(const WorkloadSettings&, const WorkloadContext&,
                std::vector<std::string>&) const override {}
  bool needs_target() const override { return false; }
  void build(WorkloadInput& in, Prompts& t) const override {
    t.data = dataset::load(in.workload.dataset);
    if (in.load.num_prompts == 0)
      in.load.num_prompts = static_cast<int64_t>(t.data.items.size());  // one pass
  }

 private:
  dataset::Source source_;
};

}  // namespace

const Workload& builtin_workload() {
  static const FileWorkload w(dataset::Source::Builtin);
  return w;
}
const Workload& qa_workload() {
  static const FileWorkload w(dataset::Source::Qa);
  return w;
}
const Workload& gsm8k_workload() {
  static const FileWorkload w(dataset::Source::Gsm8k);
  return w;
}
const Workload& lines_workload() {
  static const FileWorkload w(dataset::Source::Lines);
  return w;
}
const Workload& agent_workload() {
  static const FileWorkload w(dataset::Source::Agent);
  return w;
}
const Workload& agent_trace_workload() {
  static const FileWorkload w(dataset::Source::AgentTrace);
  return w;
}

}  // namespace tokbench::runner
