#pragma once
// runner/workload: the seam of a --dataset source. A workload checks what only it reads (its
// flags, and what it cannot run with), builds its prompts for the target — read from a file
// before the server is contacted, or built to exact lengths with a tokenizer once the model is
// known — and records how. One file per workload under runner/workloads/, chosen by the registry
// (runner/workloads/registry.cpp) from the --dataset spec's source.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "dataset/spec.hpp"
#include "net/http_get.hpp"
#include "runner/run_config.hpp"

namespace tokbench::tokenizer {
class Tokenizer;
}

namespace tokbench::runner {

struct Target;

/// What building a workload's prompts may use.
struct WorkloadInput {
  RunConfig& cfg;          ///< the workload may settle num_prompts (a trace replays its lines)
  const std::string& url;  ///< the endpoint (its /tokenize when there is no --tokenizer)
  const net::TlsSettings& tls;
  const tokenizer::Tokenizer* tok;  ///< --tokenizer (null: the server's /tokenize)
  std::FILE* console;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual dataset::Source source() const = 0;
  /// Its checks, each naming the flag and the fix. Every workload sees every config: the one
  /// selected checks what it needs; the others, that their own flags were not given.
  virtual void validate(const RunConfig& c, std::vector<std::string>& errors) const = 0;
  /// True when building needs the server (its /tokenize) or the resolved model; false: the
  /// prompts are read before the target is contacted, so a bad file fails fast.
  virtual bool needs_target() const = 0;
  /// Fills t.data and the facts of how it was built; may settle in.cfg.num_prompts.
  virtual void build(WorkloadInput& in, Target& t) const = 0;

 protected:
  bool selected(const RunConfig& c) const { return c.dataset.is(source()); }
};

/// The workload of a --dataset source.
const Workload& workload_of(dataset::Source s);
/// Every workload (for the checks every config gets).
const std::vector<const Workload*>& all_workloads();

}  // namespace tokbench::runner
