#pragma once
// runfolder/files: how every file of a run folder (and of a series, grid or store beside it) is
// written and read: whole files replaced atomically, the folder's creation, safe names. The one
// place that touches the disk for them; report/, history/ and the runner write through it.
#include <ctime>
#include <filesystem>
#include <string>

namespace tokbench::runfolder {

/// Creates <output_dir>/<YYYYmmdd_HHMMSS>[_N]/ with configs/, logs/ and performances/.
/// Throws naming the folder and the fix when it cannot.
std::filesystem::path make_run_dir(const std::string& output_dir, std::time_t now);

/// Writes a whole file, throwing with the path on failure.
void write_file(const std::filesystem::path& p, const std::string& content);

/// Reads a whole file; "" when it does not exist or cannot be read.
std::string read_file(const std::filesystem::path& p);

/// Makes a name safe for a folder: [A-Za-z0-9._-], everything else '_'.
std::string file_safe(const std::string& name);

}  // namespace tokbench::runfolder
