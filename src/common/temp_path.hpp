#pragma once
// common/temp_path: the temporary file a writer fills before renaming it over its target (a kill
// leaves the old file or the new one), removed when the writer fails or the scope unwinds, so a
// full disk or a throw never leaves a half-written `*.tmp` beside the run's files.
#include <filesystem>
#include <string>
#include <system_error>

namespace tokbench {

class TempPath {
 public:
  explicit TempPath(std::filesystem::path target, const std::string& suffix = ".tmp")
      : target_(std::move(target)), tmp_(target_.string() + suffix) {}
  ~TempPath() {
    if (committed_) return;
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;

  const std::filesystem::path& path() const { return tmp_; }
  /// Renames the temporary file over the target; throws std::filesystem_error when it cannot.
  void commit() {
    std::filesystem::rename(tmp_, target_);
    committed_ = true;
  }

 private:
  std::filesystem::path target_, tmp_;
  bool committed_ = false;
};

}  // namespace tokbench
