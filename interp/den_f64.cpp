// denote() for the f64 domain (one translation unit per domain).
#include "interp/den_impl.hpp"
#include "interp/domain/domain_spec.hpp"

namespace shlo {
template DenResult<F64Domain> denote(const F64Domain&, const Expr&, const DenOptions&);
template DenResult<F64Domain> denote(const F64Domain&, const Expr&, const DenBindings<F64Domain>&, const DenOptions&);
}  // namespace shlo
