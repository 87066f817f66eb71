#include "cluster/cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "common/clock.hpp"

#ifdef TOKBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace tokbench::cluster {

namespace {

World g_world;

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(var)) return true;
  return false;
}

#ifdef TOKBENCH_HAVE_MPI
constexpr int kTagClock = 1, kTagPayload = 2;
constexpr size_t kPiece = size_t{64} << 20;
#endif

}  // namespace

bool available() {
#ifdef TOKBENCH_HAVE_MPI
  return true;
#else
  return false;
#endif
}

const World& init(int* argc, char*** argv) {
  if (!launched_by_mpi()) return g_world;
#ifdef TOKBENCH_HAVE_MPI
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
  g_world.initialized = true;
  return g_world;
#else
  (void)argc;
  (void)argv;
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size && std::atoi(size) > 1) {
    throw std::runtime_error("started by mpirun, but this tokbench was built without MPI: install libopenmpi-dev and "
                             "openmpi-bin (scripts/setup.sh does) and rebuild (scripts/build.sh)");
  }
  return g_world;
#endif
}

const World& world() { return g_world; }

void finalize() {
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.initialized) MPI_Finalize();
  g_world.initialized = false;
#endif
}

void abort(int code) {
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.initialized) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

ClockSync sync_clocks(int rounds) {
  ClockSync out;
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.size <= 1) return out;
  // Rank 0 answers each rank in turn: t0 = its clock when the ping arrived.
  if (g_world.rank == 0) {
    for (int r = 1; r < g_world.size; ++r) {
      for (int k = 0; k < rounds; ++k) {
        int64_t ping = 0;
        MPI_Recv(&ping, 1, MPI_INT64_T, r, kTagClock, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const int64_t t0 = steady_now_ns();
        MPI_Send(&t0, 1, MPI_INT64_T, r, kTagClock, MPI_COMM_WORLD);
      }
    }
  } else {
    out.round_trip_ns = INT64_MAX;
    for (int k = 0; k < rounds; ++k) {
      const int64_t t1 = steady_now_ns();
      MPI_Send(&t1, 1, MPI_INT64_T, 0, kTagClock, MPI_COMM_WORLD);
      int64_t t0 = 0;
      MPI_Recv(&t0, 1, MPI_INT64_T, 0, kTagClock, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const int64_t t2 = steady_now_ns();
      if (t2 - t1 < out.round_trip_ns) {  // the shortest round trip bounds the error best
        out.round_trip_ns = t2 - t1;
        out.offset_ns = t0 - (t1 + (t2 - t1) / 2);
        out.residual_ns = (t2 - t1 + 1) / 2;
      }
    }
  }
#else
  (void)rounds;
#endif
  return out;
}

int64_t common_moment(int64_t local_ns, const ClockSync& clock, int64_t margin_ns) {
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.size > 1) {
    const int64_t mine = local_ns + clock.offset_ns;
    int64_t latest = mine;
    MPI_Allreduce(&mine, &latest, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return latest + margin_ns - clock.offset_ns;
  }
#endif
  (void)clock;
  return local_ns + margin_ns;
}

int64_t broadcast(int64_t value) {
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.size > 1) MPI_Bcast(&value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
#endif
  return value;
}

std::string broadcast(const std::string& value) {
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.size > 1) {
    int64_t n = broadcast(static_cast<int64_t>(value.size()));
    std::string out = g_world.rank == 0 ? value : std::string(static_cast<size_t>(n), '\0');
    for (int64_t at = 0; at < n; at += static_cast<int64_t>(kPiece)) {
      const int piece = static_cast<int>(std::min<int64_t>(n - at, static_cast<int64_t>(kPiece)));
      MPI_Bcast(out.data() + at, piece, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    return out;
  }
#endif
  return value;
}

std::vector<std::string> gather(const std::string& payload) {
  std::vector<std::string> out;
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.size > 1) {
    if (g_world.rank != 0) {
      const int64_t n = static_cast<int64_t>(payload.size());
      MPI_Send(&n, 1, MPI_INT64_T, 0, kTagPayload, MPI_COMM_WORLD);
      for (int64_t at = 0; at < n; at += static_cast<int64_t>(kPiece)) {
        const int piece = static_cast<int>(std::min<int64_t>(n - at, static_cast<int64_t>(kPiece)));
        MPI_Send(payload.data() + at, piece, MPI_CHAR, 0, kTagPayload, MPI_COMM_WORLD);
      }
      return out;
    }
    out.push_back(payload);
    for (int r = 1; r < g_world.size; ++r) {
      int64_t n = 0;
      MPI_Recv(&n, 1, MPI_INT64_T, r, kTagPayload, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      std::string got(static_cast<size_t>(n), '\0');
      for (int64_t at = 0; at < n; at += static_cast<int64_t>(kPiece)) {
        const int piece = static_cast<int>(std::min<int64_t>(n - at, static_cast<int64_t>(kPiece)));
        MPI_Recv(got.data() + at, piece, MPI_CHAR, r, kTagPayload, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      out.push_back(std::move(got));
    }
    return out;
  }
#endif
  out.push_back(payload);
  return out;
}

int64_t append_to_root(const std::filesystem::path& path) {
  int64_t appended = 0;
#ifdef TOKBENCH_HAVE_MPI
  if (g_world.size <= 1) return 0;
  constexpr size_t kFilePiece = size_t{16} << 20;
  std::string buf(kFilePiece, '\0');
  if (g_world.rank != 0) {
    std::ifstream in(path, std::ios::binary);
    while (true) {
      int64_t n = 0;
      if (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        n = in.gcount();
      }
      MPI_Send(&n, 1, MPI_INT64_T, 0, kTagPayload, MPI_COMM_WORLD);
      if (n == 0) break;  // the end of this rank's file
      MPI_Send(buf.data(), static_cast<int>(n), MPI_CHAR, 0, kTagPayload, MPI_COMM_WORLD);
    }
    return 0;
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);
  for (int r = 1; r < g_world.size; ++r) {
    while (true) {
      int64_t n = 0;
      MPI_Recv(&n, 1, MPI_INT64_T, r, kTagPayload, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (n == 0) break;
      MPI_Recv(buf.data(), static_cast<int>(n), MPI_CHAR, r, kTagPayload, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      out.write(buf.data(), static_cast<std::streamsize>(n));
      appended += n;
    }
  }
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("could not append the ranks' records to {}", path.string()));
#else
  (void)path;
#endif
  return appended;
}

}  // namespace tokbench::cluster
