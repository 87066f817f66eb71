#pragma once
// workload/workload: the seam of a --dataset source. A workload checks what only it reads (its
// flags, and what it cannot run with), builds its prompts for the target — read from a file
// before the server is contacted, or built to exact lengths with a tokenizer once the model is
// known — and records how. One file per workload in workload/, chosen by the registry
// (workload/registry.cpp) from the --dataset spec's source. Below what runs a point: it fills
// Prompts, which the target (measure/target) holds.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "dataset/dataset.hpp"
#include "dataset/spec.hpp"
#include "net/http_get.hpp"
#include "record/run_parts.hpp"
#include "settings/settings.hpp"

namespace tokbench::tokenizer {
class Tokenizer;
}

namespace tokbench::runner {

/// What a workload builds: the requests' items, and how they were made.
struct Prompts {
  dataset::Dataset data;
  std::optional<record::SyntheticFacts> synthetic;  ///< how synthetic prompts were built
  std::optional<record::TraceFacts> trace;  ///< how a trace's prompts and schedule were built
};

/// What a workload's checks read of the other parts of the settings.
struct WorkloadContext {
  int64_t num_prompts = 0;  ///< --num-prompts (0: one pass over the dataset)
  bool generates = true;    ///< the API answers with tokens (an answer length means something)
  /// The sources --class dataset= names besides --dataset (their flags are the run's workload's).
  std::vector<dataset::Source> class_sources = {};
};

/// What building a workload's prompts may use: its own part, and of the others only this.
struct WorkloadInput {
  const WorkloadSettings& workload;
  /// Its seed; the workload may settle num_prompts (a trace replays its lines).
  LoadSettings& load;
  const TargetSettings& target;  ///< the model, credentials and --engine of the server's /tokenize
  bool conversation;  ///< the API takes messages (the server wraps a prompt in its chat template)
  const std::string& url;  ///< the endpoint (its /tokenize when there is no --tokenizer)
  const net::TlsSettings& tls;
  const tokenizer::Tokenizer* tok;  ///< --tokenizer (null: the server's /tokenize)
  std::FILE* console;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual dataset::Source source() const = 0;
  /// Its checks, each naming the flag and the fix. Every workload sees every run's workload part:
  /// the one selected checks what it needs; the others, that their own flags were not given.
  virtual void validate(const WorkloadSettings& w, const WorkloadContext& with,
                        std::vector<std::string>& errors) const = 0;
  /// True when building needs the server (its /tokenize) or the resolved model; false: the
  /// prompts are read before the target is contacted, so a bad file fails fast.
  virtual bool needs_target() const = 0;
  /// Fills `out` (its items and the facts of how they were built); may settle in.load.num_prompts.
  virtual void build(WorkloadInput& in, Prompts& out) const = 0;

 protected:
  bool selected(const WorkloadSettings& w) const { return w.dataset.is(source()); }
  /// Selected, or a --class draws it: its flags mean something.
  bool used(const WorkloadSettings& w, const WorkloadContext& with) const {
    return selected(w) || std::find(with.class_sources.begin(), with.class_sources.end(),
                                    source()) != with.class_sources.end();
  }
};

/// The workload of a --dataset source.
const Workload& workload_of(dataset::Source s);
/// Every workload (for the checks every config gets).
const std::vector<const Workload*>& all_workloads();

}  // namespace tokbench::runner
