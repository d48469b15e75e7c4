// The kernels that cross element kinds (float, integer, boolean): integer constants, convert
// and bitcast_convert. Integer and boolean arithmetic itself runs through the generic kernels
// with the IntegerDomain / BoolDomain of interp/domain/integer.hpp (interp/ops/arithmetic.hpp).
// Spec: sections "constant", "convert", "bitcast_convert".
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

#include "interp/domain/integer.hpp"
#include "interp/domain/rounding.hpp"
#include "interp/ops/common.hpp"
#include "interp/ops/movement.hpp"

namespace shlo::ops {

/// An integer constant: each element a decimal in the type's range or a hex bit pattern.
inline IntTensor int_constant(const DenseLiteral& literal, const TensorType& type) {
  const IntegerDomain id(type.element);
  try {
    if (literal.splat) return IntTensor(type.shape, id.from_literal(literal.elements.at(0)));
    std::vector<std::uint64_t> values;
    values.reserve(literal.elements.size());
    for (const auto& e : literal.elements) values.push_back(id.from_literal(e));
    return IntTensor(type.shape, std::move(values));
  } catch (const DomainError& e) {
    throw OpError(e.what());
  }
}

/// The exact integer an element holds.
inline Integer integer_value(const IntegerDomain& id, std::uint64_t x) {
  return id.is_signed() ? Integer(static_cast<std::int64_t>(x)) : Integer(x);
}

// A float value rounded to a float element type where the domain keeps more than the type:
// f32 (binary32) and f64 (binary64). bf16, f16 and f8E4M3FN are rounded as every result of
// those types is (run_impl.hpp, round_to_result_type).
template <class D>
typename D::Scalar round_to_float_type(const D& d, const typename D::Scalar& x, ElementType to) {
  if (to == ElementType::F32) return d.map_monotone(x, [](const Rational& q) { return round_binary32(q); });
  if (to == ElementType::F64)
    return d.map_monotone(x, [](const Rational& q) { return rational_from_double(round_rational<double>(q)); });
  return x;
}

// #convert (ops-plan section 3): float <- float rounds to nearest even; float <- integer is the
// exact value rounded; integer <- float truncates toward zero and saturates (NaN -> 0, the
// reference interpreter's choice where the spec says TBD); integer <- integer wraps; i1 <- x is
// x != 0 (NaN -> true); x <- i1 is 0 or 1. Interval values whose truncation or zero test is
// not decided are errors.
template <class D>
Value<D> convert(const D& d, const Instruction& inst, const Value<D>& x) {
  using S = typename D::Scalar;
  using T = Tensor<S>;
  const ElementType from = inst.operand_types.at(0).element, to = inst.result_type.element;
  const Shape& shape = inst.result_type.shape;
  auto each = [&](auto make) {
    using R = decltype(make(std::int64_t{0}));
    Storage<R> out;
    const std::int64_t n = num_elements(shape);
    out.reserve(static_cast<std::size_t>(n));
    for_each_element(shape, n, [&](std::int64_t i) { out.push_back(make(i)); });
    return Tensor<R>(shape, std::move(out));
  };
  if (is_float(to)) {
    if (is_float(from)) {
      const T& in = std::get<T>(x);
      if (bit_width(to) >= bit_width(from) && to != ElementType::BF16 && to != ElementType::F16) return in;  // widening is exact
      return each([&](std::int64_t i) { return round_to_float_type(d, in[i], to); });
    }
    if (from == ElementType::I1) {
      const PredTensor& in = std::get<PredTensor>(x);
      return each([&](std::int64_t i) { return d.from_rational(Rational(in[i] & 1)); });
    }
    const IntegerDomain src(from);
    const IntTensor& in = std::get<IntTensor>(x);
    return each([&](std::int64_t i) { return round_to_float_type(d, d.from_rational(Rational(integer_value(src, in[i]))), to); });
  }
  if (to == ElementType::I1) {
    if (from == ElementType::I1) return std::get<PredTensor>(x);
    if (is_integer(from)) {
      const IntTensor& in = std::get<IntTensor>(x);
      return each([&](std::int64_t i) { return static_cast<Pred>(in[i] != 0); });
    }
    const T& in = std::get<T>(x);
    const S zero = d.from_rational(0);
    return each([&](std::int64_t i) { return static_cast<Pred>(decide(d, CompareDirection::NE, in[i], zero)); });
  }
  const IntegerDomain dst(to);
  if (from == ElementType::I1) {
    const PredTensor& in = std::get<PredTensor>(x);
    return each([&](std::int64_t i) { return static_cast<std::uint64_t>(in[i] & 1); });
  }
  if (is_integer(from)) {
    const IntTensor& in = std::get<IntTensor>(x);
    return each([&](std::int64_t i) { return dst.wrap(in[i]); });
  }
  if constexpr (requires(const S& a) { d.truncate(a); }) {
    const T& in = std::get<T>(x);
    const Integer low = integer_value(dst, dst.min_value()), high = integer_value(dst, dst.max_value());
    return each([&](std::int64_t i) -> std::uint64_t {
      const Truncated t = d.truncate(in[i]);
      switch (t.kind) {
        case Truncated::Kind::NaN: return 0;
        case Truncated::Kind::PosInf: return dst.max_value();
        case Truncated::Kind::NegInf: return dst.min_value();
        case Truncated::Kind::Finite: break;
      }
      const Integer v = t.value < low ? low : t.value > high ? high : t.value;
      return dst.from_rational(Rational(v));
    });
  } else {
    throw OpError("stablehlo.convert from a float to an integer type is not supported in the " + d.name() + " domain");
  }
}

namespace detail {

/// x rounded to binary16 (to nearest, ties to even, once: scaling by a power of two is exact),
/// as its bit pattern; beyond the largest finite value (65504) it is infinity.
inline std::uint16_t binary16_bits_nearest(double x) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7E00;
  const double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7C00;  // 65520, the tie with 2^16, rounds up
  if (a < std::ldexp(1.0, -14))            // subnormal: multiples of 2^-24 (1024 is the least normal)
    return sign | static_cast<std::uint16_t>(std::nearbyint(std::ldexp(a, 24)));
  int exponent = 0;
  std::frexp(a, &exponent);  // a = m 2^exponent, m in [0.5, 1)
  --exponent;                // a = s 2^exponent, s in [1, 2)
  double q = std::nearbyint(std::ldexp(a, 10 - exponent));  // in [1024, 2048]
  if (q == 2048) q = 1024, ++exponent;
  if (exponent > 15) return sign | 0x7C00;
  return sign | static_cast<std::uint16_t>(((exponent + 15) << 10) | (static_cast<int>(q) - 1024));
}

/// The value of a binary16 bit pattern.
inline double binary16_value(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1F, fraction = bits & 0x3FF;
  const double sign = bits & 0x8000 ? -1.0 : 1.0;
  if (exponent == 0x1F) return fraction ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
  if (exponent == 0) return sign * std::ldexp(fraction, -24);
  return sign * std::ldexp(1024 + fraction, exponent - 25);
}

// The bit pattern of a float element of type `type` holding x; x must be representable.
template <class D>
std::uint64_t float_bits_of(const D& d, const typename D::Scalar& x, ElementType type) {
  const double v = d.to_double(x);
  if (d.compare(CompareDirection::EQ, d.from_double(v), x) != Tri::True && !(v != v))
    throw DomainError(d.name() + ": bitcast of " + d.to_string(x) + ", which is not one value of " + to_string(type));
  std::uint64_t bits64 = 0;
  std::memcpy(&bits64, &v, sizeof v);
  if (type == ElementType::F64) return bits64;
  if (type == ElementType::F16) {
    const std::uint16_t h = binary16_bits_nearest(v);
    if (binary16_value(h) != v && !(v != v))
      throw DomainError(d.name() + ": bitcast of " + d.to_string(x) + ", which is not one value of f16");
    return h;
  }
  const auto f = static_cast<float>(v);
  std::uint32_t bits32 = 0;
  std::memcpy(&bits32, &f, sizeof f);
  if (static_cast<double>(f) != v && !(v != v))
    throw DomainError(d.name() + ": bitcast of " + d.to_string(x) + ", which is not one value of " + to_string(type));
  if (type == ElementType::F32) return bits32;
  if (type == ElementType::BF16 && (bits32 & 0xFFFF) == 0) return bits32 >> 16;
  throw DomainError(d.name() + ": bitcast of " + d.to_string(x) + " as " + to_string(type) + " is not supported");
}

template <class D>
typename D::Scalar float_from_bits(const D& d, std::uint64_t bits, ElementType type) {
  if (type == ElementType::F64) return d.from_bits(bits, FloatFormat::Binary64);
  if (type == ElementType::F32) return d.from_bits(bits & 0xFFFFFFFFu, FloatFormat::Binary32);
  if (type == ElementType::BF16) return d.from_bits((bits & 0xFFFFu) << 16, FloatFormat::Binary32);
  if (type == ElementType::F16) return from_binary16_bits(d, bits & 0xFFFFu);
  throw DomainError(std::string("bitcast to ") + to_string(type) + " is not supported");
}

}  // namespace detail

// #bitcast_convert: the bits of each operand element, regrouped into elements of the result
// type. Between types of one bit width element by element; from a wider type each element
// splits into E = width ratio elements along a new last dimension, least significant bits
// first; to a wider type the last dimension's E elements join, the first as the least
// significant bits (i1 is one bit). The bits of a float element are those of its value in its
// type, so in exact, interval and mpfr the value must be one value of the type (it is after a
// literal or a convert, not after arithmetic).
template <class D>
Value<D> bitcast_convert(const D& d, const Instruction& inst, const Value<D>& x) {
  using T = Tensor<typename D::Scalar>;
  const ElementType from = inst.operand_types.at(0).element, to = inst.result_type.element;
  if (from == ElementType::F8E4M3FN || to == ElementType::F8E4M3FN)
    throw OpError(std::string("stablehlo.bitcast_convert from ") + to_string(from) + " to " + to_string(to) +
                  " is not supported (f8E4M3FN has no bit pattern here)");
  const int from_width = bit_width(from), to_width = bit_width(to);
  auto mask = [](int w) { return w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1; };
  auto operand_bits = [&](std::int64_t i) -> std::uint64_t {
    if (from == ElementType::I1) return std::get<PredTensor>(x)[i] ? 1 : 0;
    if (is_float(from)) return detail::float_bits_of(d, std::get<T>(x)[i], from);
    return std::get<IntTensor>(x)[i] & mask(from_width);
  };
  const Shape& shape = inst.result_type.shape;
  const std::int64_t n = num_elements(shape);
  std::vector<std::uint64_t> bits(static_cast<std::size_t>(n), 0);
  if (from_width >= to_width) {
    const int ratio = from_width / to_width;
    for (std::int64_t i = 0; i < n / ratio; ++i) {
      const std::uint64_t b = operand_bits(i);
      for (int k = 0; k < ratio; ++k) bits[static_cast<std::size_t>(i * ratio + k)] = (b >> (k * to_width)) & mask(to_width);
    }
  } else {
    const int ratio = to_width / from_width;
    for (std::int64_t i = 0; i < n; ++i)
      for (int k = 0; k < ratio; ++k) bits[static_cast<std::size_t>(i)] |= operand_bits(i * ratio + k) << (k * from_width);
  }
  if (to == ElementType::I1) {
    std::vector<Pred> out(bits.begin(), bits.end());
    return PredTensor(shape, std::move(out));
  }
  if (is_integer(to)) {
    const IntegerDomain dst(to);
    for (auto& b : bits) b = dst.wrap(b);
    return IntTensor(shape, std::move(bits));
  }
  Storage<typename D::Scalar> out;
  out.reserve(bits.size());
  for (const std::uint64_t b : bits) out.push_back(detail::float_from_bits(d, b, to));
  return T(shape, std::move(out));
}

}  // namespace shlo::ops
