// The host backend: every kernel body run in a plain loop, on host memory.
#include <cstdlib>
#include <cstring>

#include "interp/cuda/backend.hpp"

namespace shlo::cuda {

namespace {

class HostBackend final : public Backend {
 public:
  std::string name() const override { return "cuda-host"; }
  void* allocate(std::size_t bytes) override { return std::malloc(bytes ? bytes : 1); }
  void release(void* p) override { std::free(p); }
  void upload(void* d, const void* h, std::size_t bytes) override { std::memcpy(d, h, bytes); }
  void download(void* h, const void* d, std::size_t bytes) override { std::memcpy(h, d, bytes); }
  void synchronize() override {}
#define SHLO_DEFINE_RUN(K) \
  void run(const K& kernel, std::int64_t elements) override { \
    for (std::int64_t i = 0; i < elements; ++i) kernel(i);  \
  }
  SHLO_CUDA_KERNELS(SHLO_DEFINE_RUN)
#undef SHLO_DEFINE_RUN
};

}  // namespace

std::unique_ptr<Backend> make_host_backend() { return std::make_unique<HostBackend>(); }

}  // namespace shlo::cuda
