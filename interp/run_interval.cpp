// run_program for the interval domain (one translation unit per domain keeps the build parallel).
#include "interp/domain/domain_spec.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
template RunResult<IntervalDomain> run_program(const Module&, const IntervalDomain&, std::vector<std::vector<Value<IntervalDomain>>>, const RunOptions&);
}  // namespace shlo
