// run_program for the f64 domain (one translation unit per domain keeps the build parallel).
#include "interp/domain/domain_spec.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
template RunResult<F64Domain> run_program(const Module&, const F64Domain&, std::vector<std::vector<Value<F64Domain>>>, const RunOptions&);
}  // namespace shlo
