// Large tensor storage on huge pages, kept for reuse (interp/tensor.hpp: allocate_storage_bytes).
//
// Why a pool of our own rather than the C library's heap: on a virtual machine a page fault
// costs microseconds, and a short f64 run took a third of its time faulting in 4 KiB pages.
// Transparent huge pages fault 2 MiB at a time, but only where a whole aligned 2 MiB range is
// advised; blocks aligned inside glibc's heap fragmented it (small allocations split the gaps
// between them) until the process held 2.6 times its peak. Here large blocks are whole huge
// pages in mappings of their own, first fit in address order, freed blocks merged with their
// neighbours, so the pool holds about the peak of live large tensors and small allocations
// never land between them.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <string>

#include "interp/tensor.hpp"

namespace shlo {

namespace {

// Whether the kernel backs memory with transparent huge pages when asked ("always" or
// "madvise", not "never").
bool huge_pages_on_request() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(enabled, modes) && modes.find("[never]") == std::string::npos;
}

class HugePagePool {
 public:
  static HugePagePool& instance() {
    static HugePagePool* pool = new HugePagePool;  // never destroyed: blocks may be freed during exit
    return *pool;
  }

  void enable() { enabled_ = true; }
  bool enabled() const { return enabled_; }

  // `bytes`, a multiple of kHugePageBytes: the lowest free range that fits, else a new mapping.
  void* take(std::size_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < bytes) continue;
      char* block = it->first;
      const std::size_t rest = it->second - bytes;
      free_.erase(it);
      if (rest > 0) free_.emplace(block + bytes, rest);
      return block;
    }
    const std::size_t mapping = std::max(bytes, kMinimumMapping);
    char* block = map_aligned(mapping);
    if (mapping > bytes) free_.emplace(block + bytes, mapping - bytes);
    return block;
  }

  // Gives a block back, merged with free neighbours (two mappings that happen to be adjacent
  // merge too: harmless, a block never spans a gap). False for a block not from the pool.
  bool give_back(void* p, std::size_t bytes) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    char* block = static_cast<char*>(p);
    auto mapping = mappings_.upper_bound(block);
    if (mapping == mappings_.begin() || block >= std::prev(mapping)->first + std::prev(mapping)->second) return false;
    auto next = free_.lower_bound(block);
    if (next != free_.end() && block + bytes == next->first) {
      bytes += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      const auto previous = std::prev(next);
      if (previous->first + previous->second == block) {
        previous->second += bytes;
        return true;
      }
    }
    free_.emplace(block, bytes);
    return true;
  }

 private:
  // New mappings are at least this large, so that a run's tensors share a few of them.
  static constexpr std::size_t kMinimumMapping = std::size_t{64} << 20;

  // `bytes` of fresh memory on a huge-page boundary, advised for huge pages.
  char* map_aligned(std::size_t bytes) {
    const std::size_t padded = bytes + kHugePageBytes;
    void* raw = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (aligned > start) munmap(raw, aligned - start);
    const std::uintptr_t end = start + padded;
    if (end > aligned + bytes) munmap(reinterpret_cast<void*>(aligned + bytes), end - (aligned + bytes));
    mappings_.emplace(reinterpret_cast<char*>(aligned), bytes);
    if (huge_pages_) madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);  // a refusal changes only speed
    return reinterpret_cast<char*>(aligned);
  }

  std::mutex mutex_;
  std::atomic<bool> enabled_ = false;
  const bool huge_pages_ = huge_pages_on_request();
  std::map<char*, std::size_t> mappings_;  // every mapping made, by address: never unmapped
  std::map<char*, std::size_t> free_;      // free ranges by address, none adjacent
};

// `bytes` rounded up to whole huge pages (0 where that overflows).
std::size_t whole_huge_pages(std::size_t bytes) {
  const std::size_t whole = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  return whole < bytes ? 0 : whole;
}

}  // namespace

void enable_storage_pool() { HugePagePool::instance().enable(); }

bool storage_pool_enabled() { return HugePagePool::instance().enabled(); }

void* allocate_storage_bytes(std::size_t bytes) {
  if (bytes < kHugePageBytes || !storage_pool_enabled()) return ::operator new(bytes);
  const std::size_t whole = whole_huge_pages(bytes);
  if (whole == 0) throw std::bad_alloc();
  return HugePagePool::instance().take(whole);
}

void free_storage_bytes(void* block, std::size_t bytes) noexcept {
  if (block == nullptr) return;
  // A large block allocated before the pool was enabled is the C library's.
  if (bytes >= kHugePageBytes && HugePagePool::instance().give_back(block, whole_huge_pages(bytes))) return;
  ::operator delete(block);
}

}  // namespace shlo
