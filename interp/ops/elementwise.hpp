// Elementwise ops, one function each, generic over the domain; large tensors split their
// elements over the threads (each element computed once, so the result is the same).
// Spec: https://github.com/openxla/stablehlo/blob/main/docs/spec.md (section named after the op).
#pragma once

#include <type_traits>

#include "interp/ops/common.hpp"

namespace shlo::ops {

template <class D>
using T = Tensor<typename D::Scalar>;

// Results are moved into default-made elements (an arbitrary-precision element takes the
// result's precision with it).
//
// `storage`, when given, is a dying operand of the result's shape whose storage the result is
// written into (no new tensor): only for machine floats (an arbitrary-precision element keeps
// its own precision on assignment), and it may be `x`, `a` or `b` itself. That is safe because
// element i is written once, by f of the operands' elements i alone, after they are read.
template <class D>
bool can_write_into(const T<D>* storage, const T<D>& operand) {
  return std::is_floating_point_v<typename D::Scalar> && storage && storage->shape == operand.shape &&
         storage->data.size() == operand.data.size();
}

template <class D, class F>
T<D> map_unary(const D&, const T<D>& x, F f, T<D>* storage = nullptr) {
  Storage<typename D::Scalar> fresh;
  const bool in_place = can_write_into<D>(storage, x);
  if (!in_place) fresh = storage_for_writing<typename D::Scalar>(x.size());
  typename D::Scalar* out = in_place ? storage->data.data() : fresh.data();
  parallel_for_elements(x.shape, x.size(), [&](std::int64_t i) { out[i] = f(x[i]); }, kElementwiseGrain<typename D::Scalar>);
  if (in_place) return std::move(*storage);
  return T<D>(x.shape, std::move(fresh));
}

template <class D, class F>
T<D> map_binary(const D&, const T<D>& a, const T<D>& b, F f, T<D>* storage = nullptr) {
  Storage<typename D::Scalar> fresh;
  const bool in_place = can_write_into<D>(storage, a);
  if (!in_place) fresh = storage_for_writing<typename D::Scalar>(a.size());
  typename D::Scalar* out = in_place ? storage->data.data() : fresh.data();
  parallel_for_elements(a.shape, a.size(), [&](std::int64_t i) { out[i] = f(a[i], b[i]); }, kElementwiseGrain<typename D::Scalar>);
  if (in_place) return std::move(*storage);
  return T<D>(a.shape, std::move(fresh));
}

// #add #subtract #multiply #divide #maximum #minimum
template <class D> T<D> add(const D& d, const T<D>& lhs, const T<D>& rhs) {
  return map_binary(d, lhs, rhs, [&](const auto& a, const auto& b) { return d.add(a, b); });
}
template <class D> T<D> subtract(const D& d, const T<D>& lhs, const T<D>& rhs) {
  return map_binary(d, lhs, rhs, [&](const auto& a, const auto& b) { return d.sub(a, b); });
}
template <class D> T<D> multiply(const D& d, const T<D>& lhs, const T<D>& rhs) {
  return map_binary(d, lhs, rhs, [&](const auto& a, const auto& b) { return d.mul(a, b); });
}
template <class D> T<D> divide(const D& d, const T<D>& lhs, const T<D>& rhs) {
  return map_binary(d, lhs, rhs, [&](const auto& a, const auto& b) { return d.div(a, b); });
}
template <class D> T<D> maximum(const D& d, const T<D>& lhs, const T<D>& rhs) {
  return map_binary(d, lhs, rhs, [&](const auto& a, const auto& b) { return d.max(a, b); });
}
template <class D> T<D> minimum(const D& d, const T<D>& lhs, const T<D>& rhs) {
  return map_binary(d, lhs, rhs, [&](const auto& a, const auto& b) { return d.min(a, b); });
}

// #negate #abs #exponential #log #sqrt #rsqrt #tanh #logistic
template <class D> T<D> negate(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.neg(a); }); }
template <class D> T<D> abs(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.abs(a); }); }
template <class D> T<D> exponential(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.exp(a); }); }
template <class D> T<D> log(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.log(a); }); }
template <class D> T<D> sqrt(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.sqrt(a); }); }
template <class D> T<D> rsqrt(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.rsqrt(a); }); }
template <class D> T<D> tanh(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.tanh(a); }); }
template <class D> T<D> logistic(const D& d, const T<D>& x) { return map_unary(d, x, [&](const auto& a) { return d.logistic(a); }); }

// #and #or (on i1). Bit 0 is the value; the bound domain's "may differ" bits (1, 2) of
// either operand carry over to the result.
inline PredTensor and_(const PredTensor& a, const PredTensor& b) {
  PredTensor out(a.shape, Pred{0});
  for (std::int64_t i = 0; i < a.size(); ++i) out[i] = static_cast<Pred>((a[i] & b[i] & 1) | ((a[i] | b[i]) & 6));
  return out;
}
inline PredTensor or_(const PredTensor& a, const PredTensor& b) {
  PredTensor out(a.shape, Pred{0});
  for (std::int64_t i = 0; i < a.size(); ++i) out[i] = static_cast<Pred>((a[i] | b[i]) & 7);
  return out;
}

// #compare: an undecidable interval comparison is an error naming the element.
// The bound domain never fails here: it writes the exact outcome plus "may flip" bits.
template <class D>
PredTensor compare(const D& d, CompareDirection dir, const T<D>& lhs, const T<D>& rhs) {
  PredTensor out(lhs.shape, Pred{0});
  parallel_for_elements(lhs.shape, lhs.size(), [&](std::int64_t i) {
    if constexpr (requires { d.compare_bits(dir, lhs[i], rhs[i]); }) out[i] = d.compare_bits(dir, lhs[i], rhs[i]);
    else out[i] = decide(d, dir, lhs[i], rhs[i]) ? 1 : 0;
  }, kElementwiseGrain<typename D::Scalar>);
  return out;
}

// #select: a rank-0 predicate selects whole tensors. Where the predicate may flip (bound
// domain), the element covers both branches. `storage`: as for map_binary (a dying branch).
template <class D>
T<D> select(const D& d, const PredTensor& pred, const T<D>& on_true, const T<D>& on_false, T<D>* storage = nullptr) {
  const bool whole = pred.rank() == 0;
  constexpr bool may_flip = requires { d.select_widened(pred[0], on_true[0], on_false[0]); };
  if (whole && !may_flip) return T<D>(on_false.shape, copied(pred[0] & 1 ? on_true.data : on_false.data));
  Storage<typename D::Scalar> fresh;
  const bool in_place = can_write_into<D>(storage, on_false);
  if (!in_place) fresh = storage_for_writing<typename D::Scalar>(on_false.size());
  typename D::Scalar* out = in_place ? storage->data.data() : fresh.data();
  parallel_for_elements(on_false.shape, on_false.size(), [&](std::int64_t i) {
    if constexpr (may_flip) out[i] = d.select_widened(pred[whole ? 0 : i], on_true[i], on_false[i]);
    else out[i] = pred[i] & 1 ? on_true[i] : on_false[i];
  }, kElementwiseGrain<typename D::Scalar>);
  if (in_place) return std::move(*storage);
  return T<D>(on_false.shape, std::move(fresh));
}

}  // namespace shlo::ops
