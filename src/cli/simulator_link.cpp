// cli/simulator_link: the wiring that lets a run start the built-in simulator (measure/simulator)
// without measure/ reaching mock/: `tokbench serve-mock` with the run's asks, on a free port.
// Linked into the binary and, as an object of its own, into every test binary (tests/CMakeLists).
#include <utility>

#include "measure/simulator.hpp"
#include "mock/mock_server.hpp"

namespace tokbench {
namespace {

class Embedded final : public runner::Simulator {
 public:
  explicit Embedded(mock::MockSettings s) : server_(std::move(s)) { port_ = server_.start(); }
  uint16_t port() const override { return port_; }

 private:
  mock::MockServer server_;
  uint16_t port_ = 0;
};

std::unique_ptr<runner::Simulator> start(const runner::SimulatorAsk& ask) {
  using Scheduling = runner::SimulatorAsk::Scheduling;
  mock::MockSettings ms;
  ms.port = 0;
  ms.tokenizer_path = ask.tokenizer;
  ms.answers = ask.answers;
  ms.scheduling_policy = ask.scheduling == Scheduling::Priority ? mock::SchedulingPolicy::Priority
                         : ask.scheduling == Scheduling::Fair   ? mock::SchedulingPolicy::Fair
                                                                : mock::SchedulingPolicy::Fcfs;
  return std::make_unique<Embedded>(std::move(ms));
}

// Set before main: a run, in the binary or a test, finds it whenever it starts.
const bool linked = (runner::set_simulator_start(&start), true);

}  // namespace
}  // namespace tokbench
