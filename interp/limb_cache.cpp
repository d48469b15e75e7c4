// GMP's and MPFR's small blocks (the limbs of every multiple-precision value) from caches kept
// per thread (interp/memory.hpp: install_thread_limb_caches).
//
// Why not the C library's heap: an interval tensor's elements each own two limb blocks, which
// the threads allocate as they write an op's output and free as the value dies. With two
// threads, glibc's malloc and free of those blocks took about 3 s more CPU time than with one
// in an interval:256 train step (a block freed by the thread that did not allocate it goes back
// to the other thread's arena), and the arenas' growth faulted pages in on both
// (docs/measurements.md, "All cores"). Here a block freed by a thread is pushed on that
// thread's list for its size, and the next allocation of that size on that thread pops it: no
// lock, no atomic, no header. Blocks live in one reserved range of addresses, carved in 2 MiB
// slabs of one size each (huge pages where the kernel gives them on request), so that a free
// knows a block's size from its address alone (it does not trust the size GMP passes) and
// hands a block that is not ours to the C library.

#include <gmp.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <vector>

#include "interp/memory.hpp"

namespace shlo {

namespace {

// Size classes (limb_cache_block_bytes, interp/memory.hpp): 16, 32, 64, 128, 192 and 256 bytes,
// up to a 1,984-bit MPFR value. Blocks of 64 bytes and more are whole cache lines: with 48-byte
// blocks, a 256-bit interval's endpoints, two threads wrote into lines the other was using
// (a block freed by one thread, taken by the other), and the 2-thread run took 2 to 5% longer.
constexpr std::size_t kClasses = 6;
constexpr std::size_t kLargest = 256;
constexpr std::size_t kSlab = std::size_t{2} << 20;      // carved for one class at a time: a huge page
constexpr std::size_t kReserve = std::size_t{64} << 30;  // address space for all slabs (not memory)
constexpr std::size_t kSlabs = kReserve / kSlab;
constexpr std::size_t kMaxCached = std::size_t{1} << 18;  // a thread's list longer than this goes to the shared one

struct FreeBlock {
  FreeBlock* next;
};

// A list of free blocks of one class, linked through the blocks themselves; a whole list moves
// between a thread and the shared lists as its head and count.
struct BlockList {
  FreeBlock* head = nullptr;
  std::size_t count = 0;
  void push(FreeBlock* b) {
    b->next = head;
    head = b;
    ++count;
  }
  FreeBlock* pop() {
    FreeBlock* b = head;
    head = b->next;
    --count;
    return b;
  }
};

// The reserved range, the class of each slab carved from it, and the lists that threads gave up.
class SlabSpace {
 public:
  static SlabSpace& instance() {
    static SlabSpace* space = new SlabSpace;  // never destroyed: blocks may be freed during exit
    return *space;
  }
  bool usable() const { return base_ != nullptr; }
  bool owns(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(base_);
    return base_ != nullptr && a - b < kReserve;  // unsigned: below base wraps to a large value
  }
  std::size_t class_of(const void* p) const {
    return slab_class_[(reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(base_)) / kSlab];
  }

  // A new slab for class c (its memory readable and writable), or null when the range is spent.
  char* take_slab(std::size_t c) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (next_slab_ == kSlabs) return nullptr;
    char* slab = base_ + next_slab_ * kSlab;
    if (mprotect(slab, kSlab, PROT_READ | PROT_WRITE) != 0) return nullptr;
    madvise(slab, kSlab, MADV_HUGEPAGE);  // a refusal changes only speed
    slab_class_[next_slab_++] = static_cast<unsigned char>(c);
    return slab;
  }
  void give(std::size_t c, BlockList list) {
    const std::lock_guard<std::mutex> lock(mutex_);
    shared_[c].push_back(list);
  }
  bool take(std::size_t c, BlockList& list) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (shared_[c].empty()) return false;
    list = shared_[c].back();
    shared_[c].pop_back();
    return true;
  }

 private:
  SlabSpace() {
    // Address space only: PROT_NONE and no reserve, so nothing counts against memory until a
    // slab is made writable and touched.
    void* p = mmap(nullptr, kReserve + kSlab, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {  // the slabs on huge-page boundaries
      const auto start = reinterpret_cast<std::uintptr_t>(p);
      base_ = reinterpret_cast<char*>((start + kSlab - 1) / kSlab * kSlab);
    }
    slab_class_.assign(kSlabs, 0);
  }

  char* base_ = nullptr;
  std::mutex mutex_;
  std::size_t next_slab_ = 0;
  std::vector<unsigned char> slab_class_;
  std::vector<BlockList> shared_[kClasses];
};

// One thread's free lists and the slab it is carving for each class. Trivially destructible, so
// that it is usable until the thread is gone; a thread's cached blocks are given to the shared
// lists when it exits (ThreadExit below).
struct ThreadCache {
  BlockList free[kClasses];
  char* carve[kClasses];
  char* carve_end[kClasses];
  bool exited;
};
thread_local ThreadCache cache;

struct ThreadExit {
  ~ThreadExit() {
    for (std::size_t c = 0; c < kClasses; ++c)
      if (cache.free[c].count) SlabSpace::instance().give(c, cache.free[c]), cache.free[c] = BlockList{};
    cache.exited = true;  // from now on this thread's frees go to the shared lists
  }
};
thread_local ThreadExit thread_exit;

std::size_t class_bytes(std::size_t c) { return c < 2 ? std::size_t{16} << c : (c - 1) * 64; }
std::size_t class_for(std::size_t bytes) {
  const std::size_t block = limb_cache_block_bytes(bytes);
  return block <= 32 ? block / 32 : block / 64 + 1;
}

void* allocate_in_class(std::size_t c) {
  (void)thread_exit;  // registers this thread's exit hook (odr-use)
  ThreadCache& t = cache;
  SlabSpace& space = SlabSpace::instance();
  if (t.free[c].count == 0 && !space.take(c, t.free[c])) {
    if (t.carve[c] == t.carve_end[c] || t.carve[c] == nullptr) {
      char* slab = space.take_slab(c);
      if (!slab) return nullptr;
      t.carve[c] = slab;
      t.carve_end[c] = slab + kSlab / class_bytes(c) * class_bytes(c);
    }
    void* block = t.carve[c];
    t.carve[c] += class_bytes(c);
    return block;
  }
  return t.free[c].pop();
}

void* limb_allocate(std::size_t bytes) {
  if (bytes <= kLargest && SlabSpace::instance().usable())
    if (void* p = allocate_in_class(class_for(bytes))) return p;
  void* p = std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

void limb_free(void* p, std::size_t) {
  SlabSpace& space = SlabSpace::instance();
  if (!space.owns(p)) return std::free(p);
  const std::size_t c = space.class_of(p);
  ThreadCache& t = cache;
  if (t.exited) {  // during this thread's exit: a list of one
    BlockList one;
    one.push(static_cast<FreeBlock*>(p));
    return space.give(c, one);
  }
  t.free[c].push(static_cast<FreeBlock*>(p));
  if (t.free[c].count > kMaxCached) {
    space.give(c, t.free[c]);
    t.free[c] = BlockList{};
  }
}

void* limb_reallocate(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  SlabSpace& space = SlabSpace::instance();
  if (!space.owns(p)) {
    void* q = std::realloc(p, new_bytes);
    if (!q && new_bytes) throw std::bad_alloc();
    return q;
  }
  const std::size_t held = class_bytes(space.class_of(p));
  if (new_bytes <= held) return p;
  void* q = limb_allocate(new_bytes);
  std::memcpy(q, p, held);  // at least the old contents: the block holds no more than its class
  limb_free(p, old_bytes);
  return q;
}

}  // namespace

void install_thread_limb_caches() {
#if defined(__SANITIZE_ADDRESS__)
  install_throwing_gmp_allocator();
#else
  mp_set_memory_functions(limb_allocate, limb_reallocate, limb_free);
#endif
}

bool limb_cache_holds(const void* block) { return SlabSpace::instance().owns(block); }

}  // namespace shlo
