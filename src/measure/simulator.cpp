#include "measure/simulator.hpp"

#include <stdexcept>

namespace tokbench::runner {
namespace {
// Constant-initialised, so a wiring that sets it from its own static initialiser always wins.
SimulatorStart g_start = nullptr;
}  // namespace

void set_simulator_start(SimulatorStart start) { g_start = start; }

std::unique_ptr<Simulator> start_simulator(const SimulatorAsk& ask) {
  if (!g_start)
    throw std::logic_error(
        "no built-in simulator is linked into this binary: link src/cli/simulator_link.cpp (the "
        "tokbench binary and the test binaries do), or pass --url");
  return g_start(ask);
}

}  // namespace tokbench::runner
