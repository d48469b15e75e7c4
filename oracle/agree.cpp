#include "oracle/agree.hpp"

#include "ast/mlir_parse.hpp"
#include "interp/den.hpp"
#include "interp/run.hpp"

namespace shlo {

namespace {

template <class D>
std::vector<std::vector<typename D::Scalar>> run_in(const D& d, const TextCase& tc, bool perturb) {
  const Module m = parse_module(tc.text, "case.mlir");
  std::vector<std::vector<Value<D>>> inputs(static_cast<std::size_t>(tc.replicas));
  for (std::size_t r = 0; r < inputs.size(); ++r)
    for (const auto& arg : m.function().arguments) {
      const auto& q = tc.inputs[r].at(arg.name);
      std::vector<typename D::Scalar> v;
      for (std::size_t i = 0; i < q.size(); ++i)
        v.push_back(d.from_rational(perturb && r == 0 && i == 0 && &arg == &m.function().arguments[0] ? Rational(q[i] + 1) : q[i]));
      inputs[r].push_back(Tensor<typename D::Scalar>(arg.type.shape, std::move(v)));
    }
  RunOptions options;
  options.replicas = static_cast<int>(tc.replicas);
  auto result = run_program(m, d, std::move(inputs), options);
  std::vector<std::vector<typename D::Scalar>> out;
  for (auto& replica : result.outputs) {
    const auto& data = std::get<Tensor<typename D::Scalar>>(replica.at(0)).data;
    out.emplace_back(data.begin(), data.end());
  }
  return out;
}

bool overlap(const BigInterval& a, const BigInterval& b) {
  return mpfr_lessequal_p(a.lo(), b.hi()) && mpfr_lessequal_p(b.lo(), a.hi());
}

template <class D>
Agreement compare(const D& d, const Expr& e, const TextCase& tc, bool perturb) {
  Agreement out;
  out.domain = d.name();
  // The text rounds every bf16/f8E4M3FN value to nearest even, so den is taken with that rnd.
  const auto den = denote(d, e, DenOptions{RoundingModel::NearestEven});
  if (!den.events.empty()) {
    out.comparable = false;
    out.detail = den.events[0].kind + " in " + den.events[0].constructor;
    return out;
  }
  const auto text = run_in(d, tc, perturb);
  for (std::size_t r = 0; r < text.size(); ++r) {
    if (text[r].size() != den.value.size()) {
      out.agree = false;
      out.detail = "replica " + std::to_string(r) + ": the text gives " + std::to_string(text[r].size()) + " values, den " +
                   std::to_string(den.value.size());
      return out;
    }
    for (std::size_t i = 0; i < text[r].size(); ++i) {
      bool same;
      if constexpr (std::is_same_v<D, IntervalDomain>) same = overlap(text[r][i], den.value[i]);
      else same = d.compare(CompareDirection::EQ, text[r][i], den.value[i]) == Tri::True;
      if (!same) {
        out.agree = false;
        out.detail = "replica " + std::to_string(r) + ", element " + std::to_string(i) + ": den = " + d.to_string(den.value[i]) +
                     ", text = " + d.to_string(text[r][i]);
        return out;
      }
    }
  }
  return out;
}

}  // namespace

Agreement den_agrees_with_text(const Expr& e, bool perturb) {
  const TextCase tc = text_case(e);
  try {
    return compare(ExactDomain{}, e, tc, perturb);
  } catch (const std::exception& err) {
    const std::string what = err.what();
    if (what.find("irrational") == std::string::npos) throw;
  }
  return compare(IntervalDomain(256), e, tc, perturb);
}

std::vector<std::vector<std::string>> run_text_case(const TextCase& tc, const std::string& domain) {
  return with_domain(parse_domain(domain), [&](const auto& d) {
    std::vector<std::vector<std::string>> out;
    for (const auto& replica : run_in(d, tc, false)) {
      out.emplace_back();
      for (const auto& x : replica) out.back().push_back(d.to_string(x));
    }
    return out;
  });
}

bool interval_contains(const std::string& interval, const std::string& exact, int precision) {
  const BigInterval box = IntervalDomain(precision).parse(interval);
  const ExtRational x = ExactDomain().parse(exact);
  if (x.finite()) return IntervalDomain::contains(box, x.q);
  // An infinite exact value (the max-pool init -inf, say) lies in the box when the box's
  // endpoint on that side is the same infinity: [-inf, -inf] contains -inf, [-inf, 0] too.
  return x.kind == ExtRational::Kind::NegInf ? mpfr_inf_p(box.lo()) && mpfr_sgn(box.lo()) < 0
                                             : mpfr_inf_p(box.hi()) && mpfr_sgn(box.hi()) > 0;
}

bool interval_contains_point(const std::string& interval, const std::string& point, int precision) {
  const BigFloat x = MpfrDomain(precision).parse(point);
  return IntervalDomain::contains(IntervalDomain(precision).parse(interval), x.get());
}

}  // namespace shlo
