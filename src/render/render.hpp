#pragma once
// render/: a cluster's job for a multi-host run, written from the run's own flags — an sbatch
// script for Slurm (`tokbench render slurm`), a Kubeflow MPI Operator MPIJob (v2beta1) or a
// JobSet for Kubernetes (`tokbench render kube`). Text only: the flags were checked by the
// caller (cli/render_command parses them as `run` would); nothing here talks to a cluster.
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::render {

/// What every form shares: the binary on the load hosts, the run's flags (after "run"), the
/// hosts and the ranks on each.
struct LaunchSpec {
  std::string name = "tokbench";             ///< the job's name (a DNS label for Kubernetes)
  std::string binary = "/usr/bin/tokbench";  ///< where the load hosts have tokbench
  std::vector<std::string> run_args;         ///< `tokbench run`'s flags, as given
  int hosts = 2;                             ///< nodes (Slurm) or worker pods (Kubernetes)
  int ranks_per_host = 1;                    ///< tasks per node, or slots per worker
  int ranks() const { return hosts * ranks_per_host; }
};

struct SlurmSpec : LaunchSpec {
  std::string time = "01:00:00";  ///< --time
  std::string partition;          ///< --partition ("" = the cluster's default)
  std::string account;            ///< --account ("" = none)
  bool use_mpirun = false;        ///< mpirun inside the allocation instead of srun --mpi=pmix
};

struct KubeSpec : LaunchSpec {
  std::string image;                       ///< the image holding tokbench, Open MPI and sshd
  std::string cpu = "4";                   ///< each worker's CPU request and limit
  std::string memory = "8Gi";              ///< each worker's memory request and limit
  std::string claim = "tokbench-results";  ///< the PersistentVolumeClaim the run folder goes to
  std::string mount = "/results";          ///< where the workers mount it
  std::string ssh_path = "/root/.ssh";     ///< sshAuthMountPath (the operator's default)
  bool jobset = false;  ///< a JobSet (jobset.x-k8s.io/v1alpha2) instead of an MPIJob
};

/// `s` as one word for a POSIX shell ('…' with each ' as '\'').
std::string shell_quote(std::string_view s);

/// The run's flags with the run folder under `dir` when they name none: --output-dir DIR/outputs
/// added. Throws std::invalid_argument when they name one outside `dir` (it would be written
/// inside a pod and lost).
std::vector<std::string> with_output_under(std::vector<std::string> run_args,
                                           const std::string& dir);

/// The launch line: `mpirun … -np N BINARY run FLAGS` (Kubernetes' launcher, Slurm with mpirun)
/// or `srun --mpi=pmix BINARY run FLAGS`, one argv each.
std::vector<std::string> mpirun_argv(const LaunchSpec& s);

std::string render_slurm(const SlurmSpec& s);
std::string render_kube(const KubeSpec& s);

}  // namespace tokbench::render
