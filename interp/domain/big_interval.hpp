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
    if (o.is_placeholder()) {
      make_placeholder();
      return;
    }
    mpfi_init2(v_, mpfi_get_prec(o.v_));
    mpfi_set(v_, o.v_);
  }
  // A move takes the limbs and leaves a placeholder: no allocation.
  BigInterval(BigInterval&& o) noexcept {
    *v_ = *o.v_;
    o.make_placeholder();
  }
  BigInterval& operator=(const BigInterval& o) {
    if (this == &o) return *this;
    if (o.is_placeholder()) {
      release();
      return *this;
    }
    if (is_placeholder())
      mpfi_init2(v_, mpfi_get_prec(o.v_));
    else
      mpfi_set_prec(v_, mpfi_get_prec(o.v_));
    mpfi_set(v_, o.v_);
    return *this;
  }
  BigInterval& operator=(BigInterval&& o) noexcept {
    mpfi_swap(v_, o.v_);  // a placeholder on either side swaps like any value
    return *this;
  }
  ~BigInterval() {
    if (!is_placeholder()) mpfi_clear(v_);
  }

  /// Storage that is not yet a value: no limbs. It may only be assigned to, moved or
  /// destroyed. Tensors whose every element is assigned before it is read are built of these,
  /// so that the allocation of the limbs happens in the threads that assign them
  /// (interp/ops/common.hpp, storage_for_writing).
  static BigInterval placeholder() { return BigInterval(Placeholder{}); }
  bool is_placeholder() const { return v_->left._mpfr_d == nullptr; }
  /// Frees the limbs now and becomes a placeholder (the threads free a dying tensor's limbs).
  void release() {
    if (is_placeholder()) return;
    mpfi_clear(v_);
    make_placeholder();
  }

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
  struct Placeholder {};
  explicit BigInterval(Placeholder) { make_placeholder(); }
  // MPFR marks nothing as "no limbs"; a null limb pointer, which no initialised value has, does.
  void make_placeholder() {
    v_->left._mpfr_d = nullptr;
    v_->right._mpfr_d = nullptr;
    v_->left._mpfr_prec = v_->right._mpfr_prec = MPFR_PREC_MIN;
  }

  mpfi_t v_;
};

}  // namespace shlo
