// run_program for the mpfr domain (one translation unit per domain keeps the build parallel).
#include "interp/domain/domain_spec.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
template RunResult<MpfrDomain> run_program(const Module&, const MpfrDomain&, std::vector<std::vector<Value<MpfrDomain>>>, const RunOptions&);
}  // namespace shlo
