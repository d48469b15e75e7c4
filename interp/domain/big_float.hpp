// A thin RAII owner of an mpfr_t: exact bit precision (Boost 1.74's mpfr_float takes decimal
// digits and cannot hold exactly 24 or 256 bits; see the TOOLCHAIN notes), value semantics.
#pragma once

#include <mpfr.h>

#include <string>
#include <utility>

namespace shlo {

class BigFloat {
 public:
  explicit BigFloat(mpfr_prec_t precision = 53) { mpfr_init2(v_, precision); mpfr_set_zero(v_, 1); }
  BigFloat(const BigFloat& o) {
    mpfr_init2(v_, mpfr_get_prec(o.v_));
    mpfr_set(v_, o.v_, MPFR_RNDN);
  }
  BigFloat(BigFloat&& o) noexcept {
    mpfr_init2(v_, MPFR_PREC_MIN);
    mpfr_swap(v_, o.v_);
  }
  BigFloat& operator=(const BigFloat& o) {
    if (this != &o) {
      mpfr_set_prec(v_, mpfr_get_prec(o.v_));
      mpfr_set(v_, o.v_, MPFR_RNDN);
    }
    return *this;
  }
  BigFloat& operator=(BigFloat&& o) noexcept {
    mpfr_swap(v_, o.v_);
    return *this;
  }
  ~BigFloat() { mpfr_clear(v_); }

  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  mpfr_prec_t precision() const { return mpfr_get_prec(v_); }

  /// Shortest decimal (in significant digits for this precision) that reads back to exactly
  /// this value at this precision, e.g. "1.5", "-3.0000000000000000001e-20", "inf", "nan".
  /// With MPFR_RNDU (RNDD) the decimal is the nearest one above (below) the value, which
  /// reads back to exactly the value with MPFR_RNDD (RNDU): n decimal digits are finer than
  /// P bits everywhere.
  std::string to_string(mpfr_rnd_t rnd = MPFR_RNDN) const;
  /// Reads a decimal (or "inf"/"nan") at the given precision, rounding as asked.
  static BigFloat parse(const std::string& text, mpfr_prec_t precision, mpfr_rnd_t rnd = MPFR_RNDN);

 private:
  mpfr_t v_;
};

}  // namespace shlo
