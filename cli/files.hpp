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

}  // namespace shlo::cli
