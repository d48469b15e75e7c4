// Where the float32 kernels run: the host (a loop over elements) or a CUDA device (one thread
// per element). The executor (executor.hpp) sees only this interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "interp/cuda/kernels.hpp"

namespace shlo::cuda {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* p) = 0;
  virtual void upload(void* device, const void* host, std::size_t bytes) = 0;
  virtual void download(void* host, const void* device, std::size_t bytes) = 0;
  virtual void synchronize() = 0;
#define SHLO_DECLARE_RUN(K) virtual void run(const K& kernel, std::int64_t elements) = 0;
  SHLO_CUDA_KERNELS(SHLO_DECLARE_RUN)
#undef SHLO_DECLARE_RUN
};

/// The host path: the same kernel bodies in a loop.
std::unique_ptr<Backend> make_host_backend();

/// A CUDA device backend, or nullptr with the reason in `why` (built without CUDA, no
/// device, driver error).
std::unique_ptr<Backend> make_device_backend(std::string& why);

/// Was this build compiled with the CUDA sources?
bool built_with_cuda();

}  // namespace shlo::cuda
