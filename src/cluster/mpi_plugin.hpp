#pragma once
// cluster/mpi_plugin: the few MPI calls cluster/ makes, behind a C table that a plug-in
// (tokbench-mpi.so, mpi_plugin.cpp, the only code linked against Open MPI) fills. The binary
// loads it only when an MPI launcher started it, so Open MPI and its six libraries stay off
// every other start-up (docs/PERFORMANCE.md, "Start-up"). Bytes go as MPI_CHAR: the ranks of one
// run are one architecture.
#include <cstdint>

extern "C" {

/// Raised whenever the table changes: a plug-in of another version is refused by name.
inline constexpr int kTokbenchMpiAbi = 1;

struct TokbenchMpi {
  int abi;  ///< kTokbenchMpiAbi of the plug-in's build
  /// MPI_Init; this process's rank and the world's size.
  void (*init)(int* argc, char*** argv, int* rank, int* size);
  void (*finalize)();
  void (*abort)(int code);
  void (*send)(const void* data, int bytes, int to, int tag);
  void (*recv)(void* data, int bytes, int from, int tag);
  void (*broadcast)(void* data, int bytes);  ///< rank 0's bytes on every rank
  int64_t (*max_all)(int64_t value);         ///< the largest value of any rank, on every rank
};

/// The plug-in's one exported symbol.
const TokbenchMpi* tokbench_mpi_plugin();
using TokbenchMpiEntry = const TokbenchMpi* (*)();

}  // extern "C"
