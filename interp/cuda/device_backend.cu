// The CUDA device backend: one thread per output element, the kernel bodies of kernels.hpp.
// Only the CUDA runtime is used (linked statically by nvcc's default), not the driver API.
#include <cuda_runtime.h>

#include <stdexcept>

#include "interp/cuda/backend.hpp"

namespace shlo::cuda {

namespace {

template <class K>
__global__ void elementwise(K kernel, std::int64_t elements) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < elements) kernel(i);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

class DeviceBackend final : public Backend {
 public:
  explicit DeviceBackend(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    return p;
  }
  void release(void* p) override { cudaFree(p); }
  void upload(void* d, const void* h, std::size_t bytes) override { check(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), "upload"); }
  void download(void* h, const void* d, std::size_t bytes) override {
    check(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), "download");
  }
  void synchronize() override { check(cudaDeviceSynchronize(), "kernel"); }
#define SHLO_DEFINE_RUN(K)                                                                       \
  void run(const K& kernel, std::int64_t elements) override {                                    \
    if (elements == 0) return;                                                                   \
    const int threads = 256;                                                                     \
    elementwise<<<static_cast<unsigned>((elements + threads - 1) / threads), threads>>>(kernel, elements); \
    check(cudaGetLastError(), "launch");                                                         \
  }
  SHLO_CUDA_KERNELS(SHLO_DEFINE_RUN)
#undef SHLO_DEFINE_RUN
 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Backend> make_device_backend(std::string& why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = std::string("no CUDA device: ") + cudaGetErrorString(e);
    return nullptr;
  }
  if (count == 0) {
    why = "no CUDA device found";
    return nullptr;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const cudaError_t init = cudaFree(nullptr);  // create the context now, not inside a timed run
  if (init != cudaSuccess) {
    why = std::string("CUDA context: ") + cudaGetErrorString(init);
    return nullptr;
  }
  return std::make_unique<DeviceBackend>(std::string("cuda:") + prop.name);
}

bool built_with_cuda() { return true; }

}  // namespace shlo::cuda
