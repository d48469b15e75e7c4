#include "interp/domain/big_interval.hpp"

namespace shlo {

BigFloat BigInterval::lower() const {
  BigFloat r(precision());
  mpfi_get_left(r.get(), v_);
  return r;
}

BigFloat BigInterval::upper() const {
  BigFloat r(precision());
  mpfi_get_right(r.get(), v_);
  return r;
}

BigInterval BigInterval::from_endpoints(mpfr_srcptr lo, mpfr_srcptr hi, mpfr_prec_t precision) {
  BigInterval r(precision);
  mpfi_interv_fr(r.v_, lo, hi);
  return r;
}

}  // namespace shlo
