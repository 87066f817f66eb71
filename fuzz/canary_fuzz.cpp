// Fuzz target that crashes on every input, on purpose: scripts/test.sh runs the fuzz gate
// (scripts/fuzz_gate.sh) on it first and fails when the gate lets it pass, so a gate that cannot
// fail — a dropped exit status, an artifact it does not look for — is caught on every run.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { std::abort(); }
