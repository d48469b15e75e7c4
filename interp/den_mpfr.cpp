// denote() for the mpfr domain (one translation unit per domain).
#include "interp/den_impl.hpp"
#include "interp/domain/domain_spec.hpp"

namespace shlo {
template DenResult<MpfrDomain> denote(const MpfrDomain&, const Expr&, const DenOptions&);
template DenResult<MpfrDomain> denote(const MpfrDomain&, const Expr&, const DenBindings<MpfrDomain>&, const DenOptions&);
}  // namespace shlo
