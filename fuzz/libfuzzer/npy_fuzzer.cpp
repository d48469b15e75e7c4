// libFuzzer target: the .npy reader on arbitrary bytes. Any input may be rejected with an
// NpyError naming the file; nothing may crash, and an accepted array holds exactly the
// elements its shape promises.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/libfuzzer/scratch_file.hpp"
#include "interp/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = shlo::fuzzing::write_scratch_file("npy_fuzz", ".npy", data, size);
  if (path.empty()) return 0;
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
