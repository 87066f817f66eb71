#include "series/summary_file.hpp"

#include "runfolder/files.hpp"

namespace tokbench::runner {

std::filesystem::path write_summary(
    const std::filesystem::path& root, const char* folder, JsonWriter& w, const std::string& csv,
    const std::optional<record::ServerProcessFacts>& server_process) {
  if (server_process) record::write_optional(w, "server_process", server_process);
  w.end_object();
  const std::filesystem::path dir = root / folder;
  std::filesystem::create_directories(dir);
  runfolder::write_file(dir / "summary.json", w.take());
  runfolder::write_file(dir / "summary.csv", csv);
  return dir / "summary.json";
}

}  // namespace tokbench::runner
