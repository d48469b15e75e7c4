// Shared helpers for the test suite.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace shlo::test {

/// The folder of real printer output (../shared/artifacts/lean4-mlir), or "" if absent.
inline std::string artifacts_dir() {
  const std::filesystem::path dir = SHLO_ARTIFACTS_DIR;
  return std::filesystem::is_directory(dir) ? dir.string() : std::string();
}

/// Skips the rest of a test case (with a visible message) when the artifacts are absent.
#define SHLO_REQUIRE_ARTIFACTS(dir_var)                                                       \
  const std::string dir_var = ::shlo::test::artifacts_dir();                                 \
  if (dir_var.empty()) {                                                                     \
    WARN("SKIPPED: artifact folder " SHLO_ARTIFACTS_DIR " is absent");                       \
    return;                                                                                  \
  }

}  // namespace shlo::test
