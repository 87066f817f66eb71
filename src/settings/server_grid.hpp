#pragma once
// settings/server_grid: the server configurations of a capacity grid (--server-grid
// 'max_num_seqs=64,128;chunked=true,false') as a list of points, each a name and its values, and
// the --server-cmd template each point fills in ({port}, {name}, {KEY}). Pure: parsed and checked
// once by RunConfig::validate, expanded by series/grid before each server is started.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tokbench::runner {

/// One key of the grid and the values it takes, in the order given.
struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

/// One server configuration: every key's value, and the folder name made of them.
struct ServerPoint {
  std::string name;  ///< "max_num_seqs-64_chunked-true" (file-safe), unique within the grid
  std::vector<std::pair<std::string, std::string>> values;  ///< in the grid's key order
  /// The environment a started server gets: each KEY upper-cased (non-alphanumerics as '_'),
  /// and TOKBENCH_GRID_POINT = name (--deploy-sh reads the grid this way).
  std::map<std::string, std::string> env() const;
};

/// Parses --server-grid. Throws std::invalid_argument naming the part and the fix (an empty
/// value list, a key given twice, a key that is not [A-Za-z0-9_.-], a value with a quote or a
/// space, more than kMaxServerPoints points).
std::vector<GridAxis> parse_server_grid(const std::string& text);

inline constexpr size_t kMaxServerPoints = 256;

/// Every combination of the axes, the first key varying slowest.
std::vector<ServerPoint> server_points(const std::vector<GridAxis>& axes);

/// The placeholders a template uses ({port}, {name}, {max_num_seqs}); a shell's ${VAR} is not one.
std::vector<std::string> placeholders(const std::string& command);

/// The problems of a --server-cmd template against the grid: a placeholder that is neither
/// {port}, {name} nor a grid key; a grid key the template never uses (every point would start
/// the same server). Each names the fix.
std::vector<std::string> template_problems(const std::string& command,
                                           const std::vector<GridAxis>& axes);

/// The port of an endpoint URL ({port}): the one after the host, else the scheme's (80, 443).
int url_port(const std::string& url);

/// `command` with {port}, {name} and each key of `point` filled in.
std::string expand_server_command(const std::string& command, const ServerPoint& point, int port);

}  // namespace tokbench::runner
