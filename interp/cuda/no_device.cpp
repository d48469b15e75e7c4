// Built without nvcc: there is no device backend.
#include "interp/cuda/backend.hpp"

namespace shlo::cuda {

std::unique_ptr<Backend> make_device_backend(std::string& why) {
  why = "this build has no CUDA support (nvcc was not found when it was configured)";
  return nullptr;
}

bool built_with_cuda() { return false; }

}  // namespace shlo::cuda
