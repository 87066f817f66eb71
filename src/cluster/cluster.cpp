#include "cluster/cluster.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "cluster/mpi_plugin.hpp"
#include "cluster/watch.hpp"
#include "common/clock.hpp"

namespace tokbench::cluster {

namespace {

World g_world;

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(var)) return true;
  return false;
}

constexpr int kTagClock = 1, kTagPayload = 2;
constexpr size_t kPiece = size_t{64} << 20;

const TokbenchMpi* g_mpi = nullptr;  // the plug-in, once an MPI launcher started this process

// Where the plug-in is: $TOKBENCH_MPI_PLUGIN, else beside this binary (the build tree), else
// where `cmake --install` puts it (TOKBENCH_PLUGIN_DIR, relative to the binary's folder).
std::string plugin_path() {
  if (const char* p = std::getenv("TOKBENCH_MPI_PLUGIN")) return p;
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::filesystem::path dir =
      n > 0 ? std::filesystem::path(std::string(exe, static_cast<size_t>(n))).parent_path()
            : std::filesystem::path(".");
  if (std::filesystem::exists(dir / "tokbench-mpi.so")) return (dir / "tokbench-mpi.so").string();
  return (dir / TOKBENCH_PLUGIN_DIR / "tokbench-mpi.so").lexically_normal().string();
}

const TokbenchMpi* load_plugin() {
  const std::string path = plugin_path();
  // Global: Open MPI loads components of its own that need libmpi's symbols.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib)
    throw std::runtime_error(
        fmt::format("started by an MPI launcher, but the Open MPI plug-in cannot be loaded ({}): "
                    "install libopenmpi3 (and tokbench's plug-in), or set TOKBENCH_MPI_PLUGIN",
                    dlerror()));
  auto entry = reinterpret_cast<TokbenchMpiEntry>(dlsym(lib, "tokbench_mpi_plugin"));
  const TokbenchMpi* table = entry ? entry() : nullptr;
  if (!table || table->abi != kTokbenchMpiAbi)
    throw std::runtime_error(fmt::format(
        "{} is not this tokbench's Open MPI plug-in (another build): reinstall tokbench", path));
  return table;
}

template <class T>
void send_value(const T& v, int to, int tag) {
  g_mpi->send(&v, sizeof v, to, tag);
}
template <class T>
void recv_value(T& v, int from, int tag) {
  g_mpi->recv(&v, sizeof v, from, tag);
}

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
  if (!available()) {
    (void)argc;
    (void)argv;
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (size && std::atoi(size) > 1) {
      throw std::runtime_error(
          "started by mpirun, but this tokbench was built without MPI: install libopenmpi-dev and "
          "openmpi-bin (scripts/setup.sh does) and rebuild (scripts/build.sh)");
    }
    return g_world;
  }
  g_mpi = load_plugin();
  g_mpi->init(argc, argv, &g_world.rank, &g_world.size);
  g_world.initialized = true;
  return g_world;
}

const World& world() { return g_world; }

void finalize() {
  end_watch();
  // After a lost rank MPI_Finalize would wait for it: the process just ends.
  if (g_world.initialized && !rank_lost()) g_mpi->finalize();
  g_world.initialized = false;
}

void abort(int code) {
  if (g_world.initialized) g_mpi->abort(code);
  std::exit(code);
}

ClockSync sync_clocks(int rounds) {
  ClockSync out;
  if (g_world.size <= 1 || rank_lost()) return out;
  // Rank 0 answers each rank in turn: t0 = its clock when the ping arrived.
  if (g_world.rank == 0) {
    for (int r = 1; r < g_world.size; ++r) {
      for (int k = 0; k < rounds; ++k) {
        int64_t ping = 0;
        recv_value(ping, r, kTagClock);
        const int64_t t0 = steady_now_ns();
        send_value(t0, r, kTagClock);
      }
    }
  } else {
    out.round_trip_ns = INT64_MAX;
    for (int k = 0; k < rounds; ++k) {
      const int64_t t1 = steady_now_ns();
      send_value(t1, 0, kTagClock);
      int64_t t0 = 0;
      recv_value(t0, 0, kTagClock);
      const int64_t t2 = steady_now_ns();
      if (t2 - t1 < out.round_trip_ns) {  // the shortest round trip bounds the error best
        out.round_trip_ns = t2 - t1;
        out.offset_ns = t0 - (t1 + (t2 - t1) / 2);
        out.residual_ns = (t2 - t1 + 1) / 2;
      }
    }
  }
  return out;
}

int64_t common_moment(int64_t local_ns, const ClockSync& clock, int64_t margin_ns) {
  if (g_world.size > 1 && !rank_lost())
    return g_mpi->max_all(local_ns + clock.offset_ns) + margin_ns - clock.offset_ns;
  return local_ns + margin_ns;
}

int64_t broadcast(int64_t value) {
  if (g_world.size > 1 && !rank_lost()) g_mpi->broadcast(&value, sizeof value);
  return value;
}

std::string broadcast(const std::string& value) {
  if (g_world.size > 1 && !rank_lost()) {
    int64_t n = broadcast(static_cast<int64_t>(value.size()));
    std::string out = g_world.rank == 0 ? value : std::string(static_cast<size_t>(n), '\0');
    for (int64_t at = 0; at < n; at += static_cast<int64_t>(kPiece)) {
      const int piece = static_cast<int>(std::min<int64_t>(n - at, static_cast<int64_t>(kPiece)));
      g_mpi->broadcast(out.data() + at, piece);
    }
    return out;
  }
  return value;
}

std::vector<std::string> gather(const std::string& payload) {
  std::vector<std::string> out;
  if (g_world.size > 1 && !rank_lost()) {
    if (g_world.rank != 0) {
      const int64_t n = static_cast<int64_t>(payload.size());
      send_value(n, 0, kTagPayload);
      for (int64_t at = 0; at < n; at += static_cast<int64_t>(kPiece)) {
        const int piece = static_cast<int>(std::min<int64_t>(n - at, static_cast<int64_t>(kPiece)));
        g_mpi->send(payload.data() + at, piece, 0, kTagPayload);
      }
      return out;
    }
    out.push_back(payload);
    for (int r = 1; r < g_world.size; ++r) {
      int64_t n = 0;
      recv_value(n, r, kTagPayload);
      std::string got(static_cast<size_t>(n), '\0');
      for (int64_t at = 0; at < n; at += static_cast<int64_t>(kPiece)) {
        const int piece = static_cast<int>(std::min<int64_t>(n - at, static_cast<int64_t>(kPiece)));
        g_mpi->recv(got.data() + at, piece, r, kTagPayload);
      }
      out.push_back(std::move(got));
    }
    return out;
  }
  out.push_back(payload);
  return out;
}

int64_t append_to_root(const std::filesystem::path& path) {
  int64_t appended = 0;
  if (g_world.size <= 1 || rank_lost()) return 0;
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
      send_value(n, 0, kTagPayload);
      if (n == 0) break;  // the end of this rank's file
      g_mpi->send(buf.data(), static_cast<int>(n), 0, kTagPayload);
    }
    return 0;
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);
  for (int r = 1; r < g_world.size; ++r) {
    while (true) {
      int64_t n = 0;
      recv_value(n, r, kTagPayload);
      if (n == 0) break;
      g_mpi->recv(buf.data(), static_cast<int>(n), r, kTagPayload);
      out.write(buf.data(), static_cast<std::streamsize>(n));
      appended += n;
    }
  }
  out.flush();
  if (!out)
    throw std::runtime_error(
        fmt::format("could not append the ranks' records to {}", path.string()));
  return appended;
}

}  // namespace tokbench::cluster
