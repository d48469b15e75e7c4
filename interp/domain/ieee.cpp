#include "interp/domain/ieee.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace shlo {

std::uint32_t float_bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

std::uint64_t double_bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

template <class T>
std::string IeeeDomain<T>::name() const {
  return std::is_same_v<T, float> ? "f32" : element_typed_ ? "ieee" : "f64";
}

template <class T>
T IeeeDomain<T>::from_literal(std::string_view text) const {
  Literal lit = parse_literal(text);
  switch (lit.kind) {
    case Literal::Kind::Finite:
      if (lit.value == 0 && lit.negative) return -T(0);  // "-0.0"
      return round_rational<T>(lit.value);
    case Literal::Kind::PosInf: return std::numeric_limits<T>::infinity();
    case Literal::Kind::NegInf: return -std::numeric_limits<T>::infinity();
    case Literal::Kind::NaN: return std::numeric_limits<T>::quiet_NaN();
  }
  return T(0);
}

template <class T>
T IeeeDomain<T>::from_bits(std::uint64_t bits, FloatFormat format) const {
  if (format == FloatFormat::Binary32) {
    if (bits > 0xFFFFFFFFull) throw DomainError(name() + ": hex pattern wider than 32 bits");
    float f;
    const std::uint32_t b = static_cast<std::uint32_t>(bits);
    std::memcpy(&f, &b, sizeof f);
    return static_cast<T>(f);  // exact for f64; identity for f32
  }
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return static_cast<T>(d);  // for f32: one rounding of the f64 value, as a convert would
}

template <class T>
std::string IeeeDomain<T>::to_string(T a) const {
  if (std::isnan(a)) return "nan";
  if (std::isinf(a)) return a > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, a);  // shortest round-trip form
  return std::string(buf, res.ptr);
}

template <class T>
T IeeeDomain<T>::abs(T a) const { return std::fabs(a); }

template <class T>
T IeeeDomain<T>::max(T a, T b) const {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a >= b ? a : b;
}

template <class T>
T IeeeDomain<T>::min(T a, T b) const {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a <= b ? a : b;
}

template <class T>
T IeeeDomain<T>::exp(T a) const { return static_cast<T>(std::exp(static_cast<double>(a))); }
template <class T>
T IeeeDomain<T>::log(T a) const { return static_cast<T>(std::log(static_cast<double>(a))); }
template <class T>
T IeeeDomain<T>::sqrt(T a) const { return static_cast<T>(std::sqrt(static_cast<double>(a))); }
template <class T>
T IeeeDomain<T>::rsqrt(T a) const { return static_cast<T>(1.0 / std::sqrt(static_cast<double>(a))); }
template <class T>
T IeeeDomain<T>::tanh(T a) const { return static_cast<T>(std::tanh(static_cast<double>(a))); }
template <class T>
T IeeeDomain<T>::logistic(T a) const {
  return static_cast<T>(1.0 / (1.0 + std::exp(-static_cast<double>(a))));
}

template <class T>
Tri IeeeDomain<T>::compare(CompareDirection d, T a, T b) const {
  return compare_ordered(d, a, b);
}

template class IeeeDomain<float>;
template class IeeeDomain<double>;

}  // namespace shlo
