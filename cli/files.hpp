// Where per-replica files live: DIR/r<k>/NAME when that exists, else DIR/NAME (shared by
// every replica). `shlo run` writes, and `shlo run` and `shlo check` read, this layout.
#pragma once

#include <filesystem>
#include <string>

namespace shlo::cli {

inline std::string replica_file(const std::string& dir, int replica, const std::string& name) {
  const auto per_replica = std::filesystem::path(dir) / ("r" + std::to_string(replica)) / name;
  return std::filesystem::exists(per_replica) ? per_replica.string() : (std::filesystem::path(dir) / name).string();
}

/// An input: DIR/r<k>/NAME, DIR/r<k>/inputs/NAME (what `shlo run --random-inputs --out DIR`
/// saves on R > 1 replicas), else DIR/NAME.
inline std::string replica_input(const std::string& dir, int replica, const std::string& name) {
  const auto saved = std::filesystem::path(dir) / ("r" + std::to_string(replica)) / "inputs" / name;
  const std::string direct = replica_file(dir, replica, name);
  return !std::filesystem::exists(direct) && std::filesystem::exists(saved) ? saved.string() : direct;
}

}  // namespace shlo::cli
