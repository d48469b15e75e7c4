// A thin RAII owner of an mpfi_t (a closed interval with P-bit endpoints, outward rounded).
// Comparisons are deliberately absent: Boost's mpfi_float calls std::terminate on an
// ambiguous comparison; the interval domain decides with endpoint tests instead.
#pragma once

#include <mpfi.h>

#include "interp/domain/big_float.hpp"

namespace shlo {

class BigInterval {
 public:
  explicit BigInterval(mpfr_prec_t precision = 53) { mpfi_init2(v_, precision); mpfi_set_si(v_, 0); }
  BigInterval(const BigInterval& o) {
    mpfi_init2(v_, mpfi_get_prec(o.v_));
    mpfi_set(v_, o.v_);
  }
  BigInterval(BigInterval&& o) noexcept {
    mpfi_init2(v_, MPFR_PREC_MIN);
    mpfi_swap(v_, o.v_);
  }
  BigInterval& operator=(const BigInterval& o) {
    if (this != &o) {
      mpfi_set_prec(v_, mpfi_get_prec(o.v_));
      mpfi_set(v_, o.v_);
    }
    return *this;
  }
  BigInterval& operator=(BigInterval&& o) noexcept {
    mpfi_swap(v_, o.v_);
    return *this;
  }
  ~BigInterval() { mpfi_clear(v_); }

  mpfi_ptr get() { return v_; }
  mpfi_srcptr get() const { return v_; }
  mpfr_prec_t precision() const { return mpfi_get_prec(v_); }

  // Endpoints as mpfr values without copying.
  mpfr_srcptr lo() const { return &v_->left; }
  mpfr_srcptr hi() const { return &v_->right; }
  BigFloat lower() const;
  BigFloat upper() const;
  /// Builds [lo, hi] at the given precision (outward rounded if the endpoints are wider).
  static BigInterval from_endpoints(mpfr_srcptr lo, mpfr_srcptr hi, mpfr_prec_t precision);

 private:
  mpfi_t v_;
};

}  // namespace shlo
