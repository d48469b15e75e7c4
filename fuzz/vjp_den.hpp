// den over dual numbers (interp/domain/dual.hpp) in the two domains the VJP family judges in:
// exact rationals and interval:P. Instantiated once, in fuzz/vjp_den.cpp.
#pragma once

#include "interp/den.hpp"
#include "interp/domain/dual.hpp"
#include "interp/domain/exact.hpp"
#include "interp/domain/interval.hpp"

namespace shlo {
static_assert(Domain<DualDomain<ExactDomain>>);
static_assert(Domain<DualDomain<IntervalDomain>>);
extern template DenResult<DualDomain<ExactDomain>> denote(const DualDomain<ExactDomain>&, const Expr&, const DenOptions&);
extern template DenResult<DualDomain<IntervalDomain>> denote(const DualDomain<IntervalDomain>&, const Expr&, const DenOptions&);
}  // namespace shlo
