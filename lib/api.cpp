// The library's parse, run and check: include/shlo_oracle/shlo_oracle.hpp over ast/, interp/
// and oracle/. Arrays cross as xtensor arrays and are copied into the kernels' own storage
// (the .npy form every command reads through interp/program_inputs), so a library run and a
// `shlo run` on the same numbers take the same path from there on.
#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <xtensor/xadapt.hpp>
#include <xtensor/xbuilder.hpp>

#include "ast/mlir_parse.hpp"
#include "ast/mlir_print.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"
#include "lib/api_internal.hpp"
#include "oracle/float_check.hpp"
#include "oracle/program_agree.hpp"

namespace shlo_oracle {

using detail::bad_input;
using detail::entry;
using detail::run_error;

const shlo::Function& detail::entry(const shlo::Module& m) { return m.function(); }

const std::string& Program::file() const { return module_->file; }
std::string Program::entry_name() const { return "@" + entry(*module_).name; }
std::string Program::print() const { return shlo::print_module(*module_); }

namespace {

std::vector<std::size_t> dims(const shlo::Shape& s) { return {s.begin(), s.end()}; }

TensorInfo info(const std::string& name, const shlo::TensorType& t) {
  return {name, dims(t.shape), shlo::to_string(t.element), shlo::to_string(t)};
}

// An xtensor array as the .npy form the input reader checks (shape, dtype) and converts; the
// dtypes that share a C++ type with another (ui8 with bool's bytes, f16 with u16) take the
// reader's distinct types.
shlo::NpyArray to_npy(const Array& a) {
  return std::visit(
      [](const auto& x) {
        shlo::NpyArray out;
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, Float16Bits>) {
          out.shape.assign(x.bits.shape().begin(), x.bits.shape().end());
          std::vector<shlo::NpyF16Bits> bits(x.bits.size());
          std::transform(x.bits.begin(), x.bits.end(), bits.begin(), [](std::uint16_t b) { return shlo::NpyF16Bits{b}; });
          out.data = std::move(bits);
        } else {
          using E = typename std::decay_t<decltype(x)>::value_type;
          out.shape.assign(x.shape().begin(), x.shape().end());
          if constexpr (std::is_same_v<E, bool>) {
            out.data = std::vector<std::uint8_t>(x.begin(), x.end());
          } else if constexpr (std::is_same_v<E, std::uint8_t>) {
            std::vector<shlo::NpyU8> bytes(x.size());
            std::transform(x.begin(), x.end(), bytes.begin(), [](std::uint8_t b) { return shlo::NpyU8{b}; });
            out.data = std::move(bytes);
          } else {
            out.data = std::vector<E>(x.begin(), x.end());
          }
        }
        return out;
      },
      a);
}

// lists[replica][i] as .npy arrays for R replicas: one list is shared by every replica.
std::optional<Error> to_npy_lists(const Inputs& lists, int replicas, std::size_t expected, const char* what,
                                  std::vector<std::vector<shlo::NpyArray>>& out) {
  if (replicas < 1) return bad_input("replicas must be at least 1, got " + std::to_string(replicas));
  if (lists.size() != 1 && lists.size() != static_cast<std::size_t>(replicas))
    return bad_input(std::to_string(lists.size()) + " lists of " + what + " for " + std::to_string(replicas) +
                     " replicas (give one list, shared, or one per replica)");
  out.assign(static_cast<std::size_t>(replicas), {});
  for (int r = 0; r < replicas; ++r) {
    const auto& list = lists[lists.size() == 1 ? 0 : static_cast<std::size_t>(r)];
    if (list.size() != expected)
      return bad_input("replica " + std::to_string(r) + ": " + std::to_string(list.size()) + " " + what + " for " +
                       std::to_string(expected) + " in the program");
    for (const auto& a : list) out[static_cast<std::size_t>(r)].push_back(to_npy(a));
  }
  return std::nullopt;
}

// As the command's .npy reader: float64 data only for f64 arguments (feeding it to an f32
// argument would give the program values its type cannot hold).
std::optional<Error> refuse_wide_floats(const shlo::Function& f, const std::vector<std::vector<shlo::NpyArray>>& arrays) {
  for (std::size_t r = 0; r < arrays.size(); ++r)
    for (std::size_t i = 0; i < f.arguments.size(); ++i)
      if (arrays[r][i].dtype() == shlo::NpyDtype::F64 && f.arguments[i].type.element != shlo::ElementType::F64)
        return bad_input("input " + f.arguments[i].name + " of replica " + std::to_string(r) + ": dtype is f64, " +
                         f.arguments[i].name + " needs " + shlo::to_string(f.arguments[i].type.element) +
                         " (round it to float32 first)");
  return std::nullopt;
}

template <class V>
xt::xarray<typename V::value_type> shaped(const V& data, const shlo::Shape& shape) {
  return xt::xarray<typename V::value_type>(xt::adapt(data, dims(shape)));
}

// An integer .npy array (as `shlo run --out` writes an integer result) as the public Array of
// the same dtype.
Array integer_array(const shlo::NpyArray& n) {
  return std::visit(
      [&](const auto& data) -> Array {
        using T = typename std::decay_t<decltype(data)>::value_type;
        if constexpr (std::is_same_v<T, shlo::NpyU8>) {
          std::vector<std::uint8_t> bytes(data.size());
          std::transform(data.begin(), data.end(), bytes.begin(), [](shlo::NpyU8 b) { return static_cast<std::uint8_t>(b); });
          return shaped(bytes, n.shape);
        } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, std::uint8_t>) {  // uint8_t: bool's bytes
          return shaped(data, n.shape);
        } else {
          throw std::logic_error("integer_array: a " + std::string(shlo::to_string(n.dtype())) + " array holds no integers");
        }
      },
      n.data);
}

Rational to_public(const shlo::Rational& q) {
  Rational out;
  mpq_set(out.backend().data(), q.backend().data());
  return out;
}

// A binary floating-point value's exact decimal expansion (it always has one: m * 2^e).
std::string exact_decimal(mpfr_srcptr x) {
  if (mpfr_nan_p(x)) return "nan";
  if (mpfr_inf_p(x)) return mpfr_sgn(x) > 0 ? "inf" : "-inf";
  if (mpfr_zero_p(x)) return "0";
  mpz_t m;
  mpz_init(m);
  long e = mpfr_get_z_2exp(m, x);
  const bool negative = mpz_sgn(m) < 0;
  mpz_abs(m, m);
  std::size_t point = 0;  // decimal digits after the point
  if (e >= 0) {
    mpz_mul_2exp(m, m, static_cast<mp_bitcnt_t>(e));
  } else {
    // m / 2^k = m * 5^k / 10^k
    mpz_t five;
    mpz_init(five);
    mpz_ui_pow_ui(five, 5, static_cast<unsigned long>(-e));
    mpz_mul(m, m, five);
    mpz_clear(five);
    point = static_cast<std::size_t>(-e);
  }
  std::string digits(mpz_sizeinbase(m, 10) + 2, '\0');
  mpz_get_str(digits.data(), 10, m);
  digits.resize(std::char_traits<char>::length(digits.c_str()));
  mpz_clear(m);
  if (point > 0) {
    if (digits.size() <= point) digits.insert(0, point - digits.size() + 1, '0');
    digits.insert(digits.size() - point, ".");
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return (negative ? "-" : "") + digits;
}

Rational exact_rational(mpfr_srcptr x) {
  Rational q;
  if (mpfr_number_p(x)) mpfr_get_q(q.backend().data(), x);
  return q;
}

Enclosure enclosure(const shlo::BigInterval& x) {
  return {exact_decimal(x.lo()), exact_decimal(x.hi()), exact_rational(x.lo()), exact_rational(x.hi()),
          mpfr_get_d(x.lo(), MPFR_RNDD), mpfr_get_d(x.hi(), MPFR_RNDU)};
}

// One result of one replica in the public form; which fields are filled depends on D.
template <class D>
Output to_output(const D& d, const std::string& name, shlo::ElementType element, const shlo::Value<D>& v) {
  using S = typename D::Scalar;
  Output out;
  out.name = name;
  out.element_type = shlo::to_string(element);
  if (const auto* n = std::get_if<shlo::IntTensor>(&v)) {
    out.shape = dims(n->shape);
    out.is_integer = true;
    out.integer = integer_array(shlo::npy_of_integers(n->shape, n->data, element));
    return out;
  }
  if (const auto* p = std::get_if<shlo::PredTensor>(&v)) {
    out.shape = dims(p->shape);
    out.is_predicate = true;
    out.predicate = xt::zeros<bool>(out.shape);
    std::transform(p->data.begin(), p->data.end(), out.predicate.begin(), [](auto b) { return b != 0; });
    return out;
  }
  const auto& t = std::get<shlo::Tensor<S>>(v);
  out.shape = dims(t.shape);
  if constexpr (std::is_same_v<S, float>) {
    out.f32 = shaped(t.data, t.shape);
  } else if constexpr (std::is_same_v<S, double>) {
    out.f64 = shaped(t.data, t.shape);
  } else {
    std::vector<double> nearest;
    nearest.reserve(t.data.size());
    for (const auto& x : t.data) {
      nearest.push_back(d.to_double(x));
      out.text.push_back(d.to_string(x));
      if constexpr (std::is_same_v<D, shlo::ExactDomain>) {
        out.exact.push_back(x.finite() ? to_public(x.q) : Rational(0));
        out.exact_infinity.push_back(x.finite() ? 0 : x.sign());
      } else if constexpr (std::is_same_v<D, shlo::IntervalDomain>) {
        out.enclosures.push_back(enclosure(x));
      }
    }
    out.f64 = shaped(nearest, t.shape);
  }
  return out;
}

}  // namespace

Expected<Program> parse(std::string_view text, const std::string& file) {
  try {
    return Program(std::make_shared<const shlo::Module>(shlo::parse_module(text, file)));
  } catch (const shlo::ParseError& e) {
    return Error{Error::Kind::Parse, e.what(), file, e.where.line, e.where.column};
  }
}

Expected<Program> parse_file(const std::string& path) {
  try {
    return Program(std::make_shared<const shlo::Module>(shlo::parse_module_file(path)));
  } catch (const shlo::ParseError& e) {
    return Error{Error::Kind::Parse, e.what(), path, e.where.line, e.where.column};
  }
}

std::vector<TensorInfo> Program::arguments() const {
  std::vector<TensorInfo> out;
  for (const auto& a : entry(*module_).arguments) out.push_back(info(a.name, a.type));
  return out;
}

std::vector<TensorInfo> Program::results() const {
  const auto& f = entry(*module_);
  std::vector<TensorInfo> out;
  for (std::size_t i = 0; i < f.return_values.size(); ++i) out.push_back(info(f.return_values[i], f.return_types[i]));
  return out;
}

namespace {

// Reads the inputs as `shlo run` does and calls evaluate(d, values) -> outputs[replica][result]
// in the domain; the outputs in the public form. What evaluate throws is a run error.
template <class Evaluate>
Expected<RunResult> evaluate_in(const Program& p, const Inputs& inputs, const std::string& domain, int replicas, Evaluate&& evaluate) {
  const shlo::Function& f = entry(p.module());
  std::vector<std::vector<shlo::NpyArray>> arrays;
  if (auto e = to_npy_lists(inputs, replicas, f.arguments.size(), "inputs", arrays)) return *e;
  if (auto e = refuse_wide_floats(f, arrays)) return *e;
  shlo::AnyDomain any;
  try {
    any = shlo::parse_domain(domain);
  } catch (const std::exception& e) {
    return bad_input(e.what());
  }
  return shlo::with_domain(any, [&](const auto& d) -> Expected<RunResult> {
    using D = std::decay_t<decltype(d)>;
    std::vector<std::vector<shlo::Value<D>>> values;
    try {
      values = shlo::npy_values(d, f, arrays);
    } catch (const shlo::InputError& e) {
      return bad_input(e.what());
    }
    RunResult result;
    result.domain = d.name();
    result.replicas = replicas;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::vector<shlo::Value<D>>> outputs;
    try {
      std::optional<Error> refused = evaluate(d, std::move(values), outputs);
      if (refused) return *refused;
    } catch (const std::exception& e) {  // RunError (located), or out of memory
      return run_error(e.what());
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& outs : outputs) {
      auto& row = result.outputs.emplace_back();
      for (std::size_t i = 0; i < outs.size(); ++i) row.push_back(to_output(d, f.return_values[i], f.return_types[i].element, outs[i]));
    }
    return result;
  });
}

}  // namespace

Expected<RunResult> run(const Program& p, const Inputs& inputs, const std::string& domain, int replicas) {
  return evaluate_in(p, inputs, domain, replicas, [&](const auto& d, auto values, auto& outputs) -> std::optional<Error> {
    shlo::RunOptions options;
    options.replicas = replicas;
    outputs = shlo::run_program(p.module(), d, std::move(values), options).outputs;
    return std::nullopt;
  });
}

Expected<RunResult> den(const Program& p, const Inputs& inputs, const std::string& domain, int replicas) {
  return evaluate_in(p, inputs, domain, replicas, [&](const auto& d, auto values, auto& outputs) -> std::optional<Error> {
    using D = std::decay_t<decltype(d)>;
    if constexpr (!shlo::kAgreeDomain<D>) {
      return bad_input("den with inputs runs in exact, interval:P, f64 or f32 (as shlo agree), not " + d.name());
    } else {
      outputs = shlo::den_program(p.module(), d, std::move(values), replicas);
      return std::nullopt;
    }
  });
}

const char* to_string(Verdict v) { return shlo::verdict_name(static_cast<shlo::Verdict>(v)); }

Expected<CheckResult> check(const Program& p, const Inputs& inputs, const Inputs& outputs, const std::string& profile,
                            int replicas, double delta) {
  return check(p, inputs, outputs, profile, replicas, delta, {});
}

Expected<CheckResult> check(const Program& p, const Inputs& inputs, const Inputs& outputs, const std::string& profile,
                            int replicas, double delta, const std::map<std::string, double>& allowances, bool sampled) {
  const shlo::Module& m = p.module();
  const shlo::Function& f = entry(m);
  if (!(delta > 0 && delta <= 0.5)) return bad_input("delta must lie in (0, 0.5], got " + std::to_string(delta));
  std::vector<std::vector<shlo::NpyArray>> in, out;
  if (auto e = to_npy_lists(inputs, replicas, f.arguments.size(), "inputs", in)) return *e;
  if (auto e = refuse_wide_floats(f, in)) return *e;
  if (auto e = to_npy_lists(outputs, replicas, f.return_values.size(), "outputs", out)) return *e;
  shlo::CheckReport report;
  try {
    shlo::CheckOptions options;
    options.delta = delta;
    options.sampled = sampled;
    shlo::FloatProfile claimed = shlo::float_profile(profile);
    for (const auto& [fn, ulps] : allowances) claimed = shlo::with_allowance(std::move(claimed), fn, ulps);
    report = shlo::check_float_outputs(m, claimed, in, out, replicas, {}, options);
  } catch (const shlo::RunError& e) {
    return run_error(std::string("the bound analysis cannot run: ") + e.what());
  } catch (const shlo::InputError& e) {  // a misshaped input
    return bad_input(e.what());
  } catch (const std::invalid_argument& e) {  // an unknown profile or allowance, a misshaped output, a NaN input
    return bad_input(e.what());
  }
  CheckResult result;
  result.verdict = static_cast<Verdict>(report.verdict());
  result.consistent_profiles = report.consistent_profiles;
  result.fitting_profile = report.fitting_profile;
  result.table = shlo::format_table(report);
  result.json = shlo::format_json(report);
  for (const auto& o : report.outputs)
    result.rows.push_back({o.name, o.replica, o.elements, o.max_abs, o.max_rel, o.max_ulps, o.worst_ratio, o.worst_pratio, o.over,
                           o.improbable, o.flips, o.unbounded, o.improbable_probability, o.statistical_only, o.certain_nonfinite,
                           o.probable_nonfinite, o.nan_alternative, o.inf_alternative, static_cast<Verdict>(o.verdict()), shlo::format_table_row(o)});
  return result;
}

}  // namespace shlo_oracle
