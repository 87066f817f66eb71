// cluster/mpi_plugin: tokbench-mpi.so, the plug-in that speaks Open MPI for cluster/ (see
// mpi_plugin.hpp). Built only when Open MPI is found; loaded only under mpirun or srun.
#include "cluster/mpi_plugin.hpp"

#include <mpi.h>

namespace {

void init(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}
void finalize() { MPI_Finalize(); }
void abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
void send(const void* data, int bytes, int to, int tag) {
  MPI_Send(data, bytes, MPI_CHAR, to, tag, MPI_COMM_WORLD);
}
void recv(void* data, int bytes, int from, int tag) {
  MPI_Recv(data, bytes, MPI_CHAR, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
void broadcast(void* data, int bytes) { MPI_Bcast(data, bytes, MPI_CHAR, 0, MPI_COMM_WORLD); }
int64_t max_all(int64_t value) {
  int64_t out = value;
  MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

constexpr TokbenchMpi kTable{kTokbenchMpiAbi, init,   finalize, abort, send, recv,
                             broadcast,       max_all};

}  // namespace

extern "C" __attribute__((visibility("default"))) const TokbenchMpi* tokbench_mpi_plugin() {
  return &kTable;
}
