// denote() for the f32 domain (one translation unit per domain).
#include "interp/den_impl.hpp"
#include "interp/domain/domain_spec.hpp"

namespace shlo {
template DenResult<F32Domain> denote(const F32Domain&, const Expr&, const DenOptions&);
template DenResult<F32Domain> denote(const F32Domain&, const Expr&, const DenBindings<F32Domain>&, const DenOptions&);
}  // namespace shlo
