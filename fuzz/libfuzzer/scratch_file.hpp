// The readers under fuzzing take a path, not bytes: each target writes its input to one scratch
// file per fuzzing process (rewritten for every input) and hands the reader that path.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace shlo::fuzzing {

/// Writes data to /tmp/shlo_<stem>_<pid><suffix> and returns the path; empty if it cannot.
inline std::string write_scratch_file(const char* stem, const char* suffix, const std::uint8_t* data, std::size_t size) {
  static const std::string path = std::string("/tmp/shlo_") + stem + "_" + std::to_string(getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

}  // namespace shlo::fuzzing
