// The arithmetic domains: what every kernel is written against.
//
// A domain is a small value type (it may carry a precision) with a scalar type and the
// operations below; every op kernel is a template over it and is written once.
//
//   struct SomeDomain {
//     using Scalar = ...;
//     std::string name() const;                       // "exact", "interval:256", "f32", ...
//     Scalar from_rational(const Rational&) const;    // nearest / enclosing / exact
//     Scalar from_literal(std::string_view) const;     // a decimal literal of the text, read exactly
//                                                     // then rounded once (or enclosed)
//     Scalar from_bits(std::uint64_t, FloatFormat) const;  // a hex bit pattern (0xFF800000 = -inf)
//     Scalar from_double(double) const;               // inputs read from .npy files
//     Scalar parse(std::string_view) const;            // inverse of to_string (and any literal)
//     std::string to_string(const Scalar&) const;     // round-trips through parse
//     double to_double(const Scalar&) const;          // nearest double (interval: the midpoint)
//     Scalar add, sub, mul, div (a, b); neg, abs (a);
//     Scalar exp, log, sqrt, rsqrt, tanh, logistic (a);
//     Scalar max, min (a, b);
//     Scalar pi() const;                               // for den's GELU constant sqrt(2/pi)
//     Scalar map_monotone(a, f) const;                 // f: a non-decreasing map of the rationals
//                                                     // (convertF's roundings), applied exactly
//     Tri compare(CompareDirection, a, b) const;       // three-valued: intervals may not decide
//     Scalar select(bool, a, b) const;
//     void mac(Scalar& acc, a, b) const;               // acc = acc + a*b, the product rounded
//                                                     // first (never fused), in place: the inner
//                                                     // loop of dot_general and convolution
//   };
//
// Errors are thrown as DomainError with a message that names the domain, the op and the
// operand; nothing aborts and nothing is guessed.
#pragma once

#include <functional>

#include "num/basics.hpp"
