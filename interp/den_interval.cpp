// denote() for the interval domain (one translation unit per domain).
#include "interp/den_impl.hpp"
#include "interp/domain/domain_spec.hpp"

namespace shlo {
template DenResult<IntervalDomain> denote(const IntervalDomain&, const Expr&, const DenOptions&);
template DenResult<IntervalDomain> denote(const IntervalDomain&, const Expr&, const DenBindings<IntervalDomain>&, const DenOptions&);
}  // namespace shlo
