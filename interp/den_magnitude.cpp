// denote() for the magnitude domain (agree's allowance; one translation unit per domain).
#include "interp/den_impl.hpp"
#include "interp/domain/magnitude.hpp"

namespace shlo {
template DenResult<MagnitudeDomain> denote(const MagnitudeDomain&, const Expr&, const DenBindings<MagnitudeDomain>&, const DenOptions&);
}  // namespace shlo
