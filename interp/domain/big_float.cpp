#include "interp/domain/big_float.hpp"

#include <cstdlib>

#include "interp/domain/domain.hpp"

namespace shlo {

std::string BigFloat::to_string(mpfr_rnd_t rnd) const {
  if (mpfr_nan_p(v_)) return "nan";
  if (mpfr_inf_p(v_)) return mpfr_sgn(v_) > 0 ? "inf" : "-inf";
  if (mpfr_zero_p(v_)) return mpfr_signbit(v_) ? "-0.0" : "0.0";
  // mpfr_get_str_ndigits gives the number of digits that guarantees the round trip.
  const std::size_t digits = mpfr_get_str_ndigits(10, mpfr_get_prec(v_));
  mpfr_exp_t exponent = 0;
  char* s = mpfr_get_str(nullptr, &exponent, 10, digits, v_, rnd);
  std::string mant(s);
  mpfr_free_str(s);
  bool negative = !mant.empty() && mant[0] == '-';
  if (negative) mant.erase(0, 1);
  while (mant.size() > 1 && mant.back() == '0') mant.pop_back();  // drop trailing zeros
  // value = 0.mant * 10^exponent = m.ant * 10^(exponent-1)
  std::string out;
  if (negative) out.push_back('-');
  out.push_back(mant[0]);
  out.push_back('.');
  if (mant.size() > 1)
    out.append(mant, 1, std::string::npos);
  else
    out.push_back('0');
  if (exponent - 1 != 0) out += "e" + std::to_string(static_cast<long>(exponent - 1));
  return out;
}

BigFloat BigFloat::parse(const std::string& text, mpfr_prec_t precision, mpfr_rnd_t rnd) {
  BigFloat r(precision);
  char* end = nullptr;
  if (mpfr_strtofr(r.v_, text.c_str(), &end, 10, rnd), end == text.c_str() || *end != '\0')
    throw DomainError("not a number: '" + text + "'");
  return r;
}

}  // namespace shlo
