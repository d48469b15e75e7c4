// denote() over dual numbers (one translation unit, as for every domain: interp/den_<domain>.cpp).
#include "fuzz/vjp_den.hpp"

#include "interp/den_impl.hpp"

namespace shlo {
template DenResult<DualDomain<ExactDomain>> denote(const DualDomain<ExactDomain>&, const Expr&, const DenOptions&);
template DenResult<DualDomain<IntervalDomain>> denote(const DualDomain<IntervalDomain>&, const Expr&, const DenOptions&);
}  // namespace shlo
