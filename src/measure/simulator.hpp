#pragma once
// measure/simulator: the built-in simulator as the measured phase asks for it. A run that names
// no server (no --url, --host or --server-cmd) starts one for itself; measure/ does not build it:
// the binary's wiring hands in how (cli/simulator_link.cpp, which every test binary links too),
// so the phase that sends reaches none of the simulator's code and the simulator none of the
// run's (the layers: docs/ARCHITECTURE.md).
#include <cstdint>
#include <memory>
#include <string>

namespace tokbench::runner {

/// What a run asks of the simulator it starts: `serve-mock`'s defaults but for these.
struct SimulatorAsk {
  std::string tokenizer;  ///< --tokenizer: exact prompt counts and /tokenize
  std::string answers;    ///< "gsm8k:PATH": that dataset's questions answered right; "" = none
  /// --class priorities or fairness ids: scheduled by them, as a server set up for shared
  /// traffic would (vLLM refuses a priority its scheduler does not use).
  enum class Scheduling { Fcfs, Priority, Fair } scheduling = Scheduling::Fcfs;
};

/// A started simulator on 127.0.0.1; destroying it stops it.
class Simulator {
 public:
  virtual ~Simulator() = default;
  virtual uint16_t port() const = 0;
};

using SimulatorStart = std::unique_ptr<Simulator> (*)(const SimulatorAsk&);

/// How runs start their simulator; set once by the wiring, before any run.
void set_simulator_start(SimulatorStart start);

/// Starts one (throws when this binary was built without the wiring: a build error, not a user's).
std::unique_ptr<Simulator> start_simulator(const SimulatorAsk& ask);

}  // namespace tokbench::runner
