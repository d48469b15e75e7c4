// run_program for the exact domain (one translation unit per domain keeps the build parallel).
#include "interp/domain/domain_spec.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
SHLO_INSTANTIATE_RUN_PROGRAM(ExactDomain)
}  // namespace shlo
