// run_program for the f32 domain (one translation unit per domain keeps the build parallel).
#include "interp/domain/domain_spec.hpp"
#include "interp/run_impl.hpp"

namespace shlo {
template RunResult<F32Domain> run_program(const Module&, const F32Domain&, std::vector<std::vector<Value<F32Domain>>>, const RunOptions&);
}  // namespace shlo
