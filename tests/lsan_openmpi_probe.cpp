// The sanitized build's check of tests/lsan_openmpi.supp (tests/lsan_openmpi_test.sh): a program
// that only starts and ends MPI must leave no leak report with the suppressions, and a block
// this program itself leaks (argument "leak") must still be reported.
#include <mpi.h>

#include <cstdio>
#include <cstring>

namespace {
// Kept in a global that is cleared before exit, so that LSan sees an unreachable block.
char* volatile leaked_by_us = nullptr;

__attribute__((noinline)) void leak_a_block_of_ours() {
  leaked_by_us = new char[4242];
  leaked_by_us[0] = 1;
  leaked_by_us = nullptr;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double one = 1, ranks = 0;
  MPI_Allreduce(&one, &ranks, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (argc > 1 && std::strcmp(argv[1], "leak") == 0) leak_a_block_of_ours();
  std::printf("rank %d: %g ranks\n", rank, ranks);
  MPI_Finalize();
  return 0;
}
