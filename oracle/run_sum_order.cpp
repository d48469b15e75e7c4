// run_program for the summation-order f32 domain (tests and the float properties).
#include "interp/run_impl.hpp"
#include "oracle/sum_order_domain.hpp"

namespace shlo {
template RunResult<SumOrderDomain> run_program(const Module&, const SumOrderDomain&, std::vector<std::vector<Value<SumOrderDomain>>>,
                                               const RunOptions&);
}  // namespace shlo
