// run_program for the exact domain (one translation unit per domain keeps the build parallel).
#include "interp/domain/domain_spec.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
template RunResult<ExactDomain> run_program(const Module&, const ExactDomain&, std::vector<std::vector<Value<ExactDomain>>>, const RunOptions&);
}  // namespace shlo
