// float32 with the summation order of every fold chosen at will. A fold's value
// stays an open list of computed terms (the products of a dot, the inputs of a reduce) and is
// summed, when used, in one of the orders a GPU might take: left fold, reversed, pairwise
// (recursive halves), or a permutation drawn from the terms themselves and a seed. Everything
// else is the f32 domain. Used by the tests and by the property
// domains.f32_any_order_within_bound.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "interp/domain/ieee.hpp"
#include "interp/domain/domain.hpp"

namespace shlo {

enum class SumOrder { LeftFold, Reversed, Pairwise, Shuffled };

struct OrderedF32 {
  float v = 0;
  std::vector<float> terms;  // non-empty: an open sum (v unused)
};

class SumOrderDomain {
 public:
  using Scalar = OrderedF32;
  SumOrderDomain(SumOrder order, std::uint64_t seed) : order_(order), seed_(seed) {}
  std::string name() const { return "f32-ordered"; }

  float value(const Scalar& s) const {
    if (s.terms.empty()) return s.v;
    switch (order_) {
      case SumOrder::LeftFold: return fold(s.terms);
      case SumOrder::Reversed: return fold({s.terms.rbegin(), s.terms.rend()});
      case SumOrder::Pairwise: return pairwise(s.terms.data(), s.terms.size());
      case SumOrder::Shuffled: {
        // Fisher-Yates driven by splitmix64 from a hash of the terms: cheap to seed, since
        // an open sum may be summed once per use.
        std::vector<float> t = s.terms;
        std::uint64_t h = seed_ ^ t.size();
        for (float x : t) {
          std::uint32_t b;
          std::memcpy(&b, &x, 4);
          h = h * 1099511628211ULL ^ b;
        }
        for (std::size_t i = t.size() - 1; i > 0; --i) std::swap(t[i], t[next_random(h) % (i + 1)]);
        return fold(t);
      }
    }
    return 0;
  }

  static Scalar wrap(float x) { return {x, {}}; }
  Scalar from_rational(const Rational& q) const { return wrap(f_.from_rational(q)); }
  Scalar from_literal(std::string_view t) const { return wrap(f_.from_literal(t)); }
  Scalar from_bits(std::uint64_t b, FloatFormat fmt) const { return wrap(f_.from_bits(b, fmt)); }
  Scalar from_double(double x) const { return wrap(f_.from_double(x)); }
  Scalar parse(std::string_view t) const { return wrap(f_.parse(t)); }
  std::string to_string(const Scalar& a) const { return f_.to_string(value(a)); }
  double to_double(const Scalar& a) const { return value(a); }

  Scalar add(const Scalar& a, const Scalar& b) const { return wrap(f_.add(value(a), value(b))); }
  Scalar sub(const Scalar& a, const Scalar& b) const { return wrap(f_.sub(value(a), value(b))); }
  Scalar mul(const Scalar& a, const Scalar& b) const { return wrap(f_.mul(value(a), value(b))); }
  Scalar div(const Scalar& a, const Scalar& b) const { return wrap(f_.div(value(a), value(b))); }
  Scalar max(const Scalar& a, const Scalar& b) const { return wrap(f_.max(value(a), value(b))); }
  Scalar min(const Scalar& a, const Scalar& b) const { return wrap(f_.min(value(a), value(b))); }
  Scalar neg(const Scalar& a) const { return wrap(f_.neg(value(a))); }
  Scalar abs(const Scalar& a) const { return wrap(f_.abs(value(a))); }
  Scalar exp(const Scalar& a) const { return wrap(f_.exp(value(a))); }
  Scalar log(const Scalar& a) const { return wrap(f_.log(value(a))); }
  Scalar sqrt(const Scalar& a) const { return wrap(f_.sqrt(value(a))); }
  Scalar rsqrt(const Scalar& a) const { return wrap(f_.rsqrt(value(a))); }
  Scalar tanh(const Scalar& a) const { return wrap(f_.tanh(value(a))); }
  Scalar logistic(const Scalar& a) const { return wrap(f_.logistic(value(a))); }
  Scalar map_monotone(const Scalar& a, const RationalMap& m) const { return wrap(f_.map_monotone(value(a), m)); }
  Scalar pi() const { return wrap(f_.pi()); }
  Tri compare(CompareDirection d, const Scalar& a, const Scalar& b) const { return f_.compare(d, value(a), value(b)); }
  // The chosen value is summed here, once, as a GPU materialises a select's operands (an open
  // sum passed on would be summed again at every later use).
  Scalar select(bool p, const Scalar& a, const Scalar& b) const { return wrap(value(p ? a : b)); }

  void mac(Scalar& acc, const Scalar& a, const Scalar& b) const {
    if (acc.terms.empty() && acc.v != 0) acc.terms.push_back(acc.v);
    acc.terms.push_back(f_.mul(value(a), value(b)));  // the product rounded, never fused
  }
  Scalar accumulate(const Scalar& acc, const Scalar& x) const {
    Scalar s = acc;
    if (s.terms.empty()) s.terms.push_back(acc.v);  // the init is a term too
    s.terms.push_back(value(x));
    return s;
  }

 private:
  // The splitmix64 generator: the next output, and the state advanced.
  static std::uint64_t next_random(std::uint64_t& state) {
    const std::uint64_t out = splitmix64(state);
    state += 0x9e3779b97f4a7c15ULL;
    return out;
  }
  static float fold(const std::vector<float>& t) {
    float s = t[0];
    for (std::size_t i = 1; i < t.size(); ++i) s = s + t[i];
    return s;
  }
  static float pairwise(const float* t, std::size_t n) {
    if (n == 1) return t[0];
    return pairwise(t, n / 2) + pairwise(t + n / 2, n - n / 2);
  }
  F32Domain f_;
  SumOrder order_;
  std::uint64_t seed_;
};
static_assert(Domain<SumOrderDomain>);

}  // namespace shlo
