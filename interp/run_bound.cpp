// run_program for the bound domain (the sound float32 error analysis).
#include "interp/bound/bound.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
template RunResult<BoundDomain> run_program(const Module&, const BoundDomain&, std::vector<std::vector<Value<BoundDomain>>>,
                                            const RunOptions&);
}  // namespace shlo
