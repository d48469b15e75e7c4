// denote() for the exact domain (one translation unit per domain).
#include "interp/den_impl.hpp"
#include "interp/domain/domain_spec.hpp"

namespace shlo {
template DenResult<ExactDomain> denote(const ExactDomain&, const Expr&, const DenOptions&);
template DenResult<ExactDomain> denote(const ExactDomain&, const Expr&, const DenBindings<ExactDomain>&, const DenOptions&);
}  // namespace shlo
