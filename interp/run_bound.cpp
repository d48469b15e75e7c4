// run_program for the bound domain (the sound float32 error analysis).
#include "interp/bound/bound.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
SHLO_INSTANTIATE_RUN_PROGRAM(BoundDomain)
}  // namespace shlo
