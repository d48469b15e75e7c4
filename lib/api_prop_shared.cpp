// The shared library's prop(): Debian's librapidcheck.a is not position-independent (its
// objects carry R_X86_64_PC32 relocations against global data, which a shared object cannot
// hold), so libshlo_oracle.so has no property catalogue of its own and runs the `shlo`
// command installed beside it (lib/api_prop_command.cpp).
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include "lib/api_internal.hpp"

namespace shlo_oracle {

namespace {

// $SHLO; else the command installed with this library (SHLO_BIN_FROM_LIB: the bin folder as
// seen from the lib folder, "../bin"); else the build tree's (SHLO_BUILD_COMMAND); else
// `shlo` on PATH.
std::string shlo_command() {
  if (const char* given = std::getenv("SHLO"); given && *given) return given;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&shlo_command), &self) && self.dli_fname) {
    const auto installed = std::filesystem::path(self.dli_fname).parent_path() / SHLO_BIN_FROM_LIB / "shlo";
    std::error_code ec;
    if (std::filesystem::is_regular_file(installed, ec)) return installed.lexically_normal().string();
  }
  std::error_code ec;
  if (std::filesystem::is_regular_file(SHLO_BUILD_COMMAND, ec)) return SHLO_BUILD_COMMAND;
  return "shlo";
}

}  // namespace

Expected<PropResult> prop(double seconds, const std::vector<std::string>& only, std::uint64_t seed, const std::string& corpus) {
  return prop_with_command(shlo_command(), seconds, only, seed, corpus);
}

}  // namespace shlo_oracle
