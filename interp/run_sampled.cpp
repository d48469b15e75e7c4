// run_program for the sampled domain (the statistical tier that keeps correlations).
#include "interp/run_impl.hpp"
#include "interp/sampled/sampled.hpp"

namespace shlo {
SHLO_INSTANTIATE_RUN_PROGRAM(SampledDomain)
}  // namespace shlo
