// touch_heap_in_parallel, in a process of its own (a test binary's heap carries the state of
// earlier tests): after it, new tensors take pages already in the heap instead of faulting
// each one in. Exit 0 when so, 1 with the figures otherwise, 77 (skipped) where huge pages back
// the heap and a fresh tensor takes few faults anyway.
#include <sys/resource.h>

#include <cstdio>
#include <vector>

#include "interp/memory.hpp"

namespace {

long minor_faults() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  return r.ru_minflt;
}

// Faults taken while `count` zero-filled vectors of `bytes` (as tensors are) live at once.
long faults_of_tensors(int count, std::size_t bytes) {
  const long before = minor_faults();
  std::vector<std::vector<char>> tensors;
  for (int i = 0; i < count; ++i) tensors.emplace_back(bytes);
  return minor_faults() - before;
}

}  // namespace

int main() {
#ifdef __GLIBC__
  shlo::keep_freed_memory_for_reuse();  // as the shlo command does
  constexpr std::size_t kTensor = std::size_t{16} << 20;
  constexpr long kPages = static_cast<long>(kTensor / 4096);
  // Control: in a fresh heap one tensor faults in (nearly) every page; it stays in the heap.
  const long first = faults_of_tensors(1, kTensor);
  // Three at once need two tensors' pages more: touched in advance, they fault no more.
  shlo::touch_heap_in_parallel(4 * kTensor);
  const long after_touch = faults_of_tensors(3, kTensor);
  std::printf("faults: one 16 MiB tensor in a fresh heap %ld; three after touching 64 MiB %ld\n", first, after_touch);
  if (first < kPages / 2) {  // the heap on huge pages (THP "always", glibc.malloc.hugetlb): nothing to measure
    std::printf("skipped: a fresh tensor faulted in %ld pages, not about %ld (huge pages back the heap)\n", first, kPages);
    return 77;
  }
  if (after_touch > kPages / 8) {
    std::printf("the touched heap was not reused: %ld faults (at most %ld expected)\n", after_touch, kPages / 8);
    return 1;
  }
#endif
  return 0;
}
