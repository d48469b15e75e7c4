// libFuzzer target: the .npy reader on arbitrary bytes. Any input may be rejected with an
// NpyError naming the file; nothing may crash, and an accepted array holds exactly the
// elements its shape promises.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "interp/npy.hpp"

namespace {
// One file per fuzzing process, rewritten for each input (read_npy reads a path).
const std::string& scratch_path() {
  static const std::string path = "/tmp/shlo_npy_fuzz_" + std::to_string(getpid()) + ".npy";
  return path;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    const shlo::NpyArray a = shlo::read_npy(path);
    const auto held = std::visit([](const auto& v) { return static_cast<std::int64_t>(v.size()); }, a.data);
    if (held != shlo::num_elements(a.shape)) {
      std::fprintf(stderr, "accepted an array of shape %s holding %lld elements\n", shlo::shape_to_string(a.shape).c_str(),
                   static_cast<long long>(held));
      std::abort();
    }
  } catch (const shlo::NpyError&) {
  }
  return 0;
}
