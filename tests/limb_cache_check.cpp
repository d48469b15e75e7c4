// install_thread_limb_caches (interp/limb_cache.cpp), in a process of its own: it must be
// installed before any MPFR value exists. Checks that a freed limb block is taken again by the
// next value of its size on the same thread, that a thread's cached blocks outlive it (taken by
// another thread after it exits), that blocks from the C library (made before the caches) are
// still freed and grown correctly, that values stay right across all of that, and that an
// impossible allocation is an exception. Exit 0 when so, 1 with what differed otherwise, 77
// (skipped) under AddressSanitizer, where the caches stand aside.
#include <gmp.h>
#include <mpfr.h>

#include <cstdint>
#include <cstdio>
#include <new>
#include <thread>
#include <vector>

#include "interp/memory.hpp"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

// The start of an MPFR value's limb block (MPFR keeps its size in the word before the limbs).
const void* block_of(const mpfr_t x) { return reinterpret_cast<const char*>(x->_mpfr_d) - sizeof(mp_size_t); }

}  // namespace

int main() {
#if defined(__SANITIZE_ADDRESS__)
  std::printf("skipped: under AddressSanitizer the limb caches stand aside\n");
  return 77;
#else
  // A block from the C library, made before the caches: freed and grown through them later.
  mpz_t before;
  mpz_init_set_ui(before, 12345);
  expect(!shlo::limb_cache_holds(before->_mp_d), "a block made before the caches is not theirs (control)");

  shlo::install_thread_limb_caches();

  // Reuse on one thread: the block a freed value held is the next value's of the same size.
  mpfr_t a, b;
  mpfr_init2(a, 256);
  expect(shlo::limb_cache_holds(block_of(a)), "a 256-bit value's limbs come from the caches");
  expect(reinterpret_cast<std::uintptr_t>(block_of(a)) % 64 == 0, "a 256-bit value's limbs are a whole cache line");
  const void* freed = block_of(a);
  mpfr_clear(a);
  mpfr_init2(b, 256);
  expect(block_of(b) == freed, "the next 256-bit value takes the block just freed");
  mpfr_set_d(b, 0.1, MPFR_RNDN);
  mpfr_mul_d(b, b, 3.0, MPFR_RNDN);
  expect(mpfr_cmp_d(b, 0.30000000000000004) != 0 && mpfr_cmp_d(b, 0.3) > 0, "arithmetic in a reused block");

  // A value of another size class takes another block (a control for the reuse above).
  mpfr_t c;
  mpfr_init2(c, 1024);
  expect(block_of(c) != freed && shlo::limb_cache_holds(block_of(c)), "a 1,024-bit value takes a block of its own class");

  // A thread's cached blocks outlive it: freed there, then taken on this thread.
  std::vector<const void*> theirs;
  std::thread worker([&] {
    std::vector<mpfr_t> values(8);
    for (auto& v : values) mpfr_init2(v, 512), theirs.push_back(block_of(v));
    for (auto& v : values) mpfr_clear(v);
  });
  worker.join();
  mpfr_t mine;
  mpfr_init2(mine, 512);
  bool taken = false;
  for (const void* p : theirs) taken = taken || p == block_of(mine);
  expect(taken, "a block cached by a thread that exited is taken by another");

  // The block from before the caches: grown past the classes (realloc of the C library's
  // block), its value kept, then freed.
  mpz_mul_2exp(before, before, 20000);
  mpz_tdiv_q_2exp(before, before, 20000);
  expect(mpz_cmp_ui(before, 12345) == 0, "a C library block grown through the caches keeps its value");
  mpz_clear(before);
  // A cached block grown into another class and past the classes.
  mpz_t grown;
  mpz_init_set_ui(grown, 7);
  expect(shlo::limb_cache_holds(grown->_mp_d), "a new integer's limbs come from the caches");
  for (int bits : {64, 256, 4096, 65536}) {
    mpz_mul_2exp(grown, grown, static_cast<mp_bitcnt_t>(bits));
    mpz_add_ui(grown, grown, 1);
  }
  mpz_t check;
  mpz_init_set_ui(check, 7);
  for (int bits : {64, 256, 4096, 65536}) {
    mpz_mul_2exp(check, check, static_cast<mp_bitcnt_t>(bits));
    mpz_add_ui(check, check, 1);
  }
  expect(mpz_sizeinbase(grown, 2) == 3 + 64 + 256 + 4096 + 65536, "an integer grown through every class has its size");
  expect(mpz_cmp(grown, check) == 0, "an integer grown through every class keeps its value");
  mpz_clear(grown);
  mpz_clear(check);

  // Out of memory is an exception: 2^60 bits are 2^57 bytes.
  bool threw = false;
  try {
    mpfr_t huge;
    mpfr_init2(huge, mpfr_prec_t{1} << 60);
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  expect(threw, "an impossible allocation throws std::bad_alloc");

  mpfr_clear(b);
  mpfr_clear(c);
  mpfr_clear(mine);
  return failures == 0 ? 0 : 1;
#endif
}
