#include "oracle/float_check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "interp/domain/ieee.hpp"
#include "interp/memory.hpp"
#include "interp/program_inputs.hpp"
#include "interp/ops/common.hpp"
#include "interp/run.hpp"
#include "interp/sampled/sampled.hpp"

namespace shlo {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kRatioBins = 19, kUlpsBins = 14;

int ratio_bin(double r) {
  if (r == 0) return 0;
  if (r > 1) return kRatioBins - 1;
  const int e = std::ilogb(r);  // r in [2^e, 2^(e+1))
  const int top = (std::ldexp(1.0, e) == r) ? e : e + 1;  // smallest k with r <= 2^k
  return std::clamp(top + 17, 1, kRatioBins - 2);        // 2^-16 -> 1, 2^0 -> 17
}

int ulps_bin(double u) {
  if (u == 0) return 0;
  if (u > 1024) return kUlpsBins - 1;
  int k = 1;
  for (double edge = 0.5; u > edge; edge *= 2) ++k;  // (0, .5] -> 1, (.5, 1] -> 2, ...
  return std::min(k, kUlpsBins - 2);
}

std::vector<double> as_doubles(const NpyArray& a, const std::string& what) {
  std::vector<double> v;
  if (const auto* f = std::get_if<std::vector<float>>(&a.data)) v.assign(f->begin(), f->end());
  else if (const auto* d = std::get_if<std::vector<double>>(&a.data)) v.assign(d->begin(), d->end());
  else throw std::invalid_argument(what + ": dtype is " + to_string(a.dtype()) + ", expected f32");
  return v;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// How far y lies into an open gap (lo, hi) between two branches, over the bound (0: not in it).
double into_gap(double y, float lo, float hi, double bound) {
  if (!(lo < hi) || !(y > lo && y < hi)) return 0;
  return 1 + std::min(y - lo, hi - y) / bound;
}

std::string describe(const Module& m, const Instruction& inst) {
  return m.file + ":" + std::to_string(inst.location.line) + ":" + std::to_string(inst.location.column) + ": " + inst.result +
         " = stablehlo." + op_name(inst.op);
}

// One run of the bound analysis, watching for the first instruction that made a bound infinite.
struct Analysis {
  std::vector<std::vector<Value<BoundDomain>>> outputs;  // [replica][result]
  std::string first_unbounded;
  double seconds = 0;
};

Analysis analyse(const Module& m, const BoundDomain& d, const std::vector<std::vector<NpyArray>>& inputs, int replicas,
                 const std::function<void(const std::string&)>& progress) {
  const Function& f = m.function();
  // A NaN input has no exact value: name it before the one .npy-to-domain path reads the inputs.
  for (int r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < f.arguments.size(); ++i) {
      if (f.arguments[i].type.element == ElementType::I1) continue;
      const NpyArray& a = inputs.at(static_cast<std::size_t>(r)).at(i);
      const std::string what = "input " + f.arguments[i].name + " (argument " + std::to_string(i) + ", replica " + std::to_string(r) + ")";
      const auto xs = as_doubles(a, what);
      for (std::size_t k = 0; k < xs.size(); ++k)
        if (xs[k] != xs[k])
          throw std::invalid_argument(what + ": element " + index_string(a.shape, static_cast<std::int64_t>(k)) +
                                      " is NaN, which has no exact value to check against");
    }
  std::vector<std::vector<Value<BoundDomain>>> values;
  try {
    values = npy_values(d, f, inputs);
  } catch (const InputError& e) {
    throw std::invalid_argument(e.what());
  }
  Analysis out;
  d.reset_made_unbounded();
  const Instruction* previous = nullptr;
  auto watch = [&] {
    if (out.first_unbounded.empty() && previous && d.made_unbounded()) out.first_unbounded = describe(m, *previous);
  };
  RunOptions options;
  options.replicas = replicas;
  options.progress = [&](const RunProgress& p) {
    watch();
    previous = p.current;
    if (progress)
      progress("[" + std::to_string(p.done + 1) + "/" + std::to_string(p.total) + "] " + p.current->result + " = stablehlo." +
               op_name(p.current->op));
  };
  const auto t0 = std::chrono::steady_clock::now();
  out.outputs = run_program(m, d, std::move(values), options).outputs;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  watch();
  return out;
}

// The sampled tier's run: per replica, result and element, its bound on |float - exact| (empty
// when it could not judge, with the reason). `risk`: its share of the check's failure
// probability, half for the bounds every value's second-order terms and comparisons use (at most
// `values` of them), half for the verdicts.
struct Sampled {
  std::vector<std::vector<std::vector<SampledElement>>> bounds;
  SampledGram gram;  // over every element with sigma_hat > 0 (SampledElement::sigma_hat)
  SampledFactors factors;
  double seconds = 0;
  std::string error;
};

Sampled sample(const Module& m, const FloatProfile& profile, const std::vector<std::vector<NpyArray>>& inputs, int replicas,
               double risk, double values, std::uint64_t memory, const std::function<void(const std::string&)>& progress) {
  const Function& f = m.function();
  double verdicts = 0;
  for (const auto& t : f.return_types) verdicts += static_cast<double>(num_elements(t.shape)) * replicas;
  Sampled out;
  out.factors = sampled_factors(risk / 2, verdicts);
  // Said, not killed for it, where the tier's live values and a product's converted operands
  // would not fit (about 600 bytes per live element; the analysis' run is over by now). A
  // product's tile holds at most its operands' elements, live values, each about 2.7 times a
  // packed element: so per thread at most 3 times the peak, and at most the tile's budget.
  const double live = static_cast<double>(estimate_peak_memory(m, sizeof(SampledScalar), replicas).peak_bytes);  // saturates
  const double need = live + thread_count() * std::min(static_cast<double>(SampledRules::matmul_scratch_bytes()), 3 * live);
  if (const std::uint64_t have = memory != 0 ? memory : available_memory(); have != 0 && need > static_cast<double>(have)) {
    const std::uint64_t shown = need >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(need);
    out.error = "its live values would take about " + format_bytes(shown) + ", more than the " + format_bytes(have) +
                " of memory available";
    return out;
  }
  const SampledDomain d(profile, sampled_factors(risk / 2, values));
  RunOptions options;
  options.replicas = replicas;
  options.progress = [&](const RunProgress& p) {
    if (progress)
      progress("sampled tier [" + std::to_string(p.done + 1) + "/" + std::to_string(p.total) + "] " + p.current->result +
               " = stablehlo." + op_name(p.current->op));
  };
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const auto run = run_program(m, d, npy_values(d, f, inputs), options);
    for (const auto& replica : run.outputs) {
      out.bounds.emplace_back();
      for (const auto& value : replica) {
        out.bounds.back().emplace_back();
        if (const auto* t = std::get_if<Tensor<SampledScalar>>(&value))
          for (const auto& x : t->data) {
            const SampledScalar c = d.closed(x);
            SampledElement e{c.value, SampledDomain::bound(c, out.factors), c.may_nan, c.may_inf};
            if (!c.infinite && std::isfinite(c.value) && !c.may_nan && c.may_inf == 0 && SampledDomain::sigma_hat(c) > 0) {
              e.sigma_hat = SampledDomain::sigma_hat(c);
              e.rest = out.factors.Q * SampledDomain::sketch_rank(c);
              out.gram.add(c.tangent.unpacked(), e.sigma_hat);
            }
            out.bounds.back().back().push_back(e);
          }
      }
    }
  } catch (const std::exception& e) {  // an op it has no model for, a comparison near flipping in sort
    out.bounds.clear();
    out.error = e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// Every output against its analysis. `whole_risk`: the whole check's failure probability,
// which bounds every element's. Appends every float element's error/bound (both tiers) to
// `all_ratios` and `all_pratios` when given; adds the sampled tier's sum of squared excess errors
// (oracle/sampled_aggregate.hpp) to `aggregate_sum` when given.
std::vector<OutputCheck> judge_outputs(const Module& m, const BoundDomain& d, const Analysis& analysis,
                                       const std::vector<std::vector<NpyArray>>& outputs, int replicas, double whole_risk,
                                       const Sampled* sampled, std::vector<double>* all_ratios = nullptr,
                                       std::vector<double>* all_pratios = nullptr, double* aggregate_sum = nullptr) {
  const Function& f = m.function();
  std::vector<OutputCheck> checks;
  for (int r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < f.return_values.size(); ++i) {
      OutputCheck o;
      o.name = f.return_values[i];
      o.replica = r;
      o.index = i;
      o.shape = f.return_types[i].shape;
      o.ratio_histogram.assign(kRatioBins, 0);
      o.pratio_histogram.assign(kRatioBins, 0);
      o.ulps_histogram.assign(kUlpsBins, 0);
      const NpyArray& y = outputs.at(static_cast<std::size_t>(r)).at(i);
      const std::string what = "output " + o.name + " (result " + std::to_string(i) + ", replica " + std::to_string(r) + ")";
      if (y.shape != o.shape)
        throw std::invalid_argument(what + " has shape " + shape_to_string(y.shape) + ", expected " + shape_to_string(o.shape));
      const auto& value = analysis.outputs[static_cast<std::size_t>(r)][i];
      if (const auto* p = std::get_if<PredTensor>(&value)) {
        o.predicate = true;
        if (y.dtype() != NpyDtype::Bool) throw std::invalid_argument(what + " must be bool");
        const auto& b = std::get<std::vector<std::uint8_t>>(y.data);
        o.elements = p->size();
        for (std::int64_t k = 0; k < p->size(); ++k) {
          const std::uint8_t bits = (*p)[k];
          const bool flip = bits & (kPredFloatMayFlip | kPredExactUndecided);
          const bool likely_flip = flip && !(bits & kPredStatDecided);
          const bool differs = (b[static_cast<std::size_t>(k)] != 0) != ((bits & kPredValue) != 0);
          o.flips += flip;
          if (differs && !flip) {
            ++o.over;
            if (o.worst_flat < 0) o.worst_flat = k;
          } else if (differs && !likely_flip) {
            ++o.improbable;
            o.improbable_probability = std::min(o.improbable_probability, whole_risk);
            if (o.worst_pflat < 0) o.worst_pflat = k;
          }
        }
        checks.push_back(std::move(o));
        continue;
      }
      const auto& t = std::get<Tensor<BoundScalar>>(value);
      const auto ys = as_doubles(y, what);
      o.elements = t.size();
      std::vector<double> ratios, pratios;
      ratios.reserve(ys.size());
      pratios.reserve(ys.size());
      for (std::int64_t k = 0; k < t.size(); ++k) {
        const BoundScalar s = d.closed(t[k]);
        const double yk = ys[static_cast<std::size_t>(k)];
        const SampledElement se = sampled && !sampled->bounds.empty()
                                      ? sampled->bounds[static_cast<std::size_t>(r)][i][static_cast<std::size_t>(k)]
                                      : SampledElement{};
        const ElementVerdict v = judge_element(d, s, yk, se);
        // A non-finite y leaves its element out of S, never in: S only grows with the elements.
        if (aggregate_sum && se.sigma_hat > 0 && std::isfinite(yk)) {
          const double excess = std::max(0.0, std::fabs(yk - se.value) - se.rest) / se.sigma_hat;
          *aggregate_sum += excess * excess;
        }
        o.flips += (s.flags & kMayFlip) != 0;
        o.nonfinite += !std::isfinite(yk);
        o.over += v.over;
        if (v.improbable) {
          ++o.improbable;
          // An element downstream of a comparison the statistical tier decided also relies on
          // the comparison's operands: count it at the whole check's risk.
          const double risk =
              s.flags & kMayFlip || v.certain_nonfinite || se.bound != kInf ? whole_risk : std::min(whole_risk, (s.events + 1) * d.event_risk());
          o.improbable_probability = std::min(o.improbable_probability, risk);
        }
        o.statistical_only += v.statistical_only;
        o.certain_nonfinite += v.certain_nonfinite;
        o.probable_nonfinite += v.probable_nonfinite;
        o.nan_alternative += v.nan_alternative;
        o.inf_alternative += v.inf_alternative;
        if (v.unbounded) {
          ++o.unbounded;
          if (o.first_unbounded_flat < 0) {
            o.first_unbounded_flat = k;
            o.unbounded_exact = d.to_double(s);
            o.unbounded_float = yk;
          }
        }
        if (!std::isfinite(s.lo) || !std::isfinite(s.hi) || !std::isfinite(v.error)) {  // exact value unknown here
          if (v.over && !(o.worst_ratio == kInf)) {  // e.g. a finite number where every evaluation gives NaN
            o.worst_ratio = kInf;
            o.worst_flat = k;
          }
          // The sampled tier may still have judged it against its own reference: its figure counts.
          if (se.bound != kInf && std::isfinite(se.value) && !v.nan_alternative && !v.inf_alternative) {
            if (o.worst_pflat < 0 || v.pratio > o.worst_pratio) {
              o.worst_pratio = v.pratio;
              o.worst_pflat = k;
            }
            pratios.push_back(v.pratio);
          }
          ++o.ratio_histogram[static_cast<std::size_t>(ratio_bin(v.ratio))];
          ++o.pratio_histogram[static_cast<std::size_t>(ratio_bin(v.pratio))];
          continue;
        }
        o.max_abs = std::max(o.max_abs, v.error);
        const double mid = d.to_double(s);
        if (mid != 0) o.max_rel = std::max(o.max_rel, v.error / std::fabs(mid));
        o.max_ulps = std::max(o.max_ulps, v.ulps);
        if (o.worst_flat < 0 || v.ratio > o.worst_ratio) {
          o.worst_ratio = v.ratio;
          o.worst_flat = k;
        }
        if (o.worst_pflat < 0 || v.pratio > o.worst_pratio) {
          o.worst_pratio = v.pratio;
          o.worst_pflat = k;
        }
        ratios.push_back(v.ratio);
        pratios.push_back(v.pratio);
        ++o.ratio_histogram[static_cast<std::size_t>(ratio_bin(v.ratio))];
        ++o.pratio_histogram[static_cast<std::size_t>(ratio_bin(v.pratio))];
        ++o.ulps_histogram[static_cast<std::size_t>(ulps_bin(v.ulps))];
      }
      if (all_ratios) all_ratios->insert(all_ratios->end(), ratios.begin(), ratios.end());
      if (all_pratios) all_pratios->insert(all_pratios->end(), pratios.begin(), pratios.end());
      o.median_ratio = median(std::move(ratios));
      o.median_pratio = median(std::move(pratios));
      checks.push_back(std::move(o));
    }
  return checks;
}

// Consistent: some element judged, none FAIL or IMPROBABLE. Outputs whose every element has
// both bounds infinite say nothing about any profile.
bool consistent(const std::vector<OutputCheck>& outputs) {
  return judged_elements(outputs) > 0 && std::none_of(outputs.begin(), outputs.end(), [](const OutputCheck& o) {
    return o.verdict() == Verdict::Fail || o.verdict() == Verdict::Improbable;
  });
}

}  // namespace

std::int64_t judged_elements(const std::vector<OutputCheck>& outputs) {
  std::int64_t n = 0;
  for (const auto& o : outputs) n += o.elements - o.unbounded;
  return n;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Improbable: return "IMPROBABLE";
    case Verdict::NoVerdict: return "NO VERDICT";
  }
  return "?";
}

Verdict worse(Verdict a, Verdict b) {
  for (Verdict v : {Verdict::Fail, Verdict::Improbable, Verdict::NoVerdict})
    if (a == v || b == v) return v;
  return Verdict::Pass;
}

Verdict ElementVerdict::verdict() const {
  return over ? Verdict::Fail : improbable ? Verdict::Improbable : unbounded ? Verdict::NoVerdict : Verdict::Pass;
}

ElementVerdict judge_element(const BoundDomain& d, const BoundScalar& open, double y, SampledElement sampled) {
  const BoundScalar s = d.closed(open);
  ElementVerdict v;
  const double bound = d.bound(s);
  // The statistical tier models rounding around a known exact value: where the enclosure is not
  // finite (an undefined exact value such as -inf - -inf, or one not enclosed in double), it can
  // claim nothing the sound tier does not. Past a sound infinity it judges alone under every
  // profile: under tf32 and bf16 it once did not (honest TF32 outputs of a deep train step were
  // measured 8.4 times over it), but that measurement no longer reproduces on the same draw
  // (at most 0.0017 of the bound; docs/measurements.md, "Under tf32 the statistical tier judges
  // alone again").
  const bool judged = std::isfinite(s.lo) && std::isfinite(s.hi);
  const double pbound = judged ? d.pbound(s) : kInf;
  // The sampled tier's verdict: |y - its reference| over its bound (a NaN y is outside it).
  // Its sure infinities and NaN (interp/sampled/sampled.hpp) are judged below, where the sound
  // tier has no bound (where it has one, the float value is finite and they say nothing).
  const bool sampled_sure = sampled.bound == 0 && !std::isfinite(sampled.value);
  // y is an infinity the sampled tier has as an alternative (an overflow that may happen).
  const bool sampled_inf_alternative = (y == kInf && (sampled.may_inf & 1)) || (y == -kInf && (sampled.may_inf & 2));
  const bool sampled_judges = sampled.bound != kInf && !sampled_sure;
  const double sampled_ratio = !sampled_judges ? 0
                               : y != y        ? kInf
                               : std::fabs(y - sampled.value) == 0 ? 0
                               : sampled.bound == 0 ? kInf
                                                    : std::fabs(y - sampled.value) / sampled.bound;
  if (nonfinite(s)) {  // inf or NaN in every float evaluation: y must be that value
    const BoundDomain::Kind k = d.kind(s);
    v.certain_nonfinite = true;
    const bool differs = k == BoundDomain::Kind::NaN ? y == y : k == BoundDomain::Kind::PosInf ? y != kInf : y != -kInf;
    // Where the statistical tier decided it, a different float value is improbable, not impossible.
    v.probable_nonfinite = d.probable(s);
    (v.probable_nonfinite ? v.improbable : v.over) = differs;
    v.ratio = v.over ? kInf : 0;
    v.pratio = v.error = differs ? kInf : 0;
    return v;
  }
  if (sampled_sure && bound == kInf) {  // inf or NaN in every float evaluation but for an improbable event
    v.certain_nonfinite = v.probable_nonfinite = true;
    const bool same = sampled.value != sampled.value ? y != y : y == sampled.value;
    const bool differs = !same && !(y != y && sampled.may_nan) && !sampled_inf_alternative;
    v.improbable = differs;
    v.pratio = v.error = differs ? kInf : 0;
    return v;
  }
  const double mid = d.to_double(s);
  if (std::isinf(s.lo) && s.lo == s.hi && bound == 0) {  // an exact infinity: that infinity in every float evaluation
    v.certain_nonfinite = true;
    v.over = y != s.lo;
    v.ratio = v.pratio = v.over ? kInf : 0;
    v.error = v.over ? kInf : 0;
    return v;
  }
  v.error = std::fabs(y - mid);
  v.ulps = v.error / ieee_ulp<float>(mid);
  // NaN is one of its values (a comparison that may take a NaN branch, an overflow that may
  // happen): so where the sampled tier says so, whether or not it bounds the element's numbers.
  if (y != y && (d.may_be_nan(s) || (sampled.may_nan && bound == kInf))) {
    v.error = v.ulps = kInf;
    v.nan_alternative = true;
    return v;
  }
  if (sampled_inf_alternative && bound == kInf) {  // an overflow that may happen, its numbers bounded or not
    v.error = v.ulps = kInf;
    v.inf_alternative = true;
    return v;
  }
  if (y != y) {  // NaN: only an element with an infinite bound may be one
    v.error = v.ulps = kInf;
    v.over = bound != kInf;
    v.improbable = !v.over && (pbound != kInf || sampled_judges);
    v.unbounded = bound == kInf && pbound == kInf && !sampled_judges;
    v.ratio = v.over ? kInf : 0;
    v.pratio = v.over || v.improbable ? kInf : 0;
    return v;
  }
  const double distance = y > s.hi ? y - s.hi : y < s.lo ? s.lo - y : 0;
  auto over_bound = [&](double b) { return distance == 0 ? 0 : b == 0 ? kInf : distance / b; };
  v.ratio = bound == kInf ? 0 : over_bound(bound);
  v.pratio = pbound == kInf ? 0 : over_bound(pbound);
  if (s.flags & kBranchGap) {  // between two branches: near neither
    v.ratio = std::max(v.ratio, into_gap(y, s.st.lo, s.st.hi, bound));
    v.pratio = std::max(v.pratio, into_gap(y, s.st.plo, s.st.phi, pbound));
  }
  v.pratio = std::max(v.pratio, sampled_ratio);
  v.over = v.ratio > 1;
  v.improbable = !v.over && v.pratio > 1;
  // Where the sound tier has no bound (its float evaluation may overflow), the statistical tier
  // still judges while its own bound is finite; only where both are infinite is there no verdict.
  const bool statistical = pbound != kInf || sampled_judges;
  v.unbounded = bound == kInf && !statistical && !v.improbable;
  v.statistical_only = bound == kInf && statistical && !v.improbable;
  return v;
}

std::vector<std::string> ratio_bin_labels() {
  std::vector<std::string> l = {"0", "<=2^-16"};
  for (int k = -15; k <= 0; ++k) l.push_back(k == 0 ? "<=1" : "<=2^" + std::to_string(k));
  l.push_back(">1");
  return l;
}

std::vector<std::string> ulps_bin_labels() {
  std::vector<std::string> l = {"0", "<=0.5"};
  for (int v = 1; v <= 1024; v *= 2) l.push_back("<=" + std::to_string(v));
  l.push_back(">1024");
  return l;
}

Verdict OutputCheck::verdict() const {
  if (over) return Verdict::Fail;
  if (improbable) return Verdict::Improbable;
  if (unbounded) return Verdict::NoVerdict;
  return Verdict::Pass;
}

Verdict CheckReport::verdict() const {
  Verdict v = Verdict::Pass;
  for (const auto& o : outputs) v = worse(v, o.verdict());
  return v;
}

double sum_events(const Module& m, int replicas) {
  // Every scalar an instruction makes (its result, and what a region makes per operand
  // element and window position) may use a statistical bound once; each output element is
  // judged once.
  double n = 0;
  for (const Instruction* inst : instructions(m.function())) {
    double made = static_cast<double>(num_elements(inst->result_type.shape));
    const bool folds = inst->op == Op::Reduce || inst->op == Op::ReduceWindow || inst->op == Op::SelectAndScatter || inst->op == Op::AllReduce;
    if (folds || !inst->regions.empty()) {
      double window = 1;
      for (auto w : inst->attributes.window_dimensions) window *= static_cast<double>(w);
      for (const auto& t : inst->operand_types) made += static_cast<double>(num_elements(t.shape)) * window;
    }
    n += made;
  }
  for (const auto& t : m.function().return_types) n += static_cast<double>(num_elements(t.shape));
  return n * replicas;
}

namespace {

// The report's head: the statistical tier's lambda for this program and delta.
CheckReport report_head(const Module& m, const FloatProfile& profile, int replicas, const CheckOptions& options) {
  if (!(options.delta > 0 && options.delta < 1)) throw std::invalid_argument("delta must lie in (0, 1)");
  CheckReport report;
  report.file = m.file;
  report.profile = profile.name;
  report.allowances = allowances_text(profile);
  report.replicas = replicas;
  report.delta = options.delta;
  report.events = std::max(1.0, sum_events(m, replicas));
  // With the sampled tier, each statistical bound gets half of delta.
  report.lambda = BoundDomain::lambda_for(options.sampled ? options.delta / 2 : options.delta, report.events);
  report.sampled = options.sampled;
  return report;
}

// One output set judged against an analysis made with the head's lambda.
CheckReport judged_report(CheckReport report, const Module& m, const BoundDomain& d, const Analysis& analysis,
                          const Sampled* sampled, const std::vector<std::vector<NpyArray>>& outputs, int replicas) {
  report.event_risk = d.event_risk();
  if (sampled) {
    report.sampled_factor = sampled->factors.K;
    report.sampled_sketch_factor = sampled->factors.Q;
    report.sampled_seconds = sampled->seconds;
    report.sampled_error = sampled->error;
  }
  report.seconds = analysis.seconds;
  report.first_unbounded = analysis.first_unbounded;
  std::vector<double> ratios, pratios;
  double aggregate_sum = 0;
  report.outputs = judge_outputs(m, d, analysis, outputs, replicas, report.delta, sampled, &ratios, &pratios, &aggregate_sum);
  if (sampled && sampled->error.empty()) report.aggregate = aggregate_fit(sampled->gram, aggregate_sum);
  for (const auto& o : report.outputs) {
    if (o.predicate) continue;
    report.worst_ratio = std::max(report.worst_ratio, o.worst_ratio);
    report.worst_pratio = std::max(report.worst_pratio, o.worst_pratio);
  }
  report.median_ratio = median(ratios);
  report.median_pratio = median(pratios);
  return report;
}

}  // namespace

std::vector<CheckReport> check_float_output_sets(const Module& m, const FloatProfile& profile,
                                                 const std::vector<std::vector<NpyArray>>& inputs,
                                                 const std::vector<std::vector<std::vector<NpyArray>>>& output_sets, int replicas,
                                                 const CheckOptions& options) {
  const CheckReport head = report_head(m, profile, replicas, options);
  const BoundDomain d(profile, head.lambda);
  const Analysis analysis = analyse(m, d, inputs, replicas, {});
  std::optional<Sampled> sampled;
  if (options.sampled) sampled = sample(m, profile, inputs, replicas, options.delta / 2, head.events, options.sampled_memory, {});
  std::vector<CheckReport> reports;
  for (const auto& outputs : output_sets) {
    reports.push_back(judged_report(head, m, d, analysis, sampled ? &*sampled : nullptr, outputs, replicas));
    reports.back().wider_profiles_tried = false;
    if (consistent(reports.back().outputs)) {
      reports.back().consistent_profiles = {profile.name};
      if (!reports.back().aggregate.unlikely()) reports.back().fitting_profile = profile.name;
    }
  }
  return reports;
}

CheckReport check_float_outputs(const Module& m, const FloatProfile& profile, const std::vector<std::vector<NpyArray>>& inputs,
                                const std::vector<std::vector<NpyArray>>& outputs, int replicas,
                                const std::function<void(const std::string&)>& progress, const CheckOptions& options) {
  CheckReport report = report_head(m, profile, replicas, options);
  const BoundDomain d(profile, report.lambda);
  auto sampled_for = [&](const FloatProfile& p) {
    return options.sampled ? std::optional<Sampled>(sample(m, p, inputs, replicas, options.delta / 2, report.events, options.sampled_memory, progress))
                           : std::nullopt;
  };
  const auto analysis = analyse(m, d, inputs, replicas, progress);
  const auto sampled = sampled_for(profile);
  report = judged_report(std::move(report), m, d, analysis, sampled ? &*sampled : nullptr, outputs, replicas);

  // Which of ieee, tf32, bf16 (narrowest first) the outputs are consistent with.
  const auto* begin = std::begin(kMatmulProfiles);
  const auto* end = std::end(kMatmulProfiles);
  const auto* at = std::find_if(begin, end, [&](const char* p) { return profile.name == p; });
  if (at == end) {
    if (consistent(report.outputs)) {
      report.consistent_profiles.push_back(profile.name);
      if (!report.aggregate.unlikely()) report.fitting_profile = profile.name;
    }
    return report;
  }
  if (judged_elements(report.outputs) == 0) return report;  // wider profiles' bounds are no narrower
  const auto insts = instructions(m.function());
  const bool matmuls = std::any_of(insts.begin(), insts.end(), [](const Instruction* i) {
    return i->op == Op::DotGeneral || i->op == Op::Convolution;
  });
  // The first consistent profile makes every wider one consistent (their bounds are no
  // narrower); the search goes on past it only while the errors together are unlikely under it,
  // to name the profile they fit.
  for (const auto* p = at; p != end; ++p) {
    bool ok = consistent(report.outputs);  // the same bounds when there is no matmul
    AggregateFit fit = report.aggregate;
    if (p != at && matmuls) {
      if (!options.find_consistent_profiles) break;
      const FloatProfile wider_profile = with_allowances_of(float_profile(*p), profile);
      const BoundDomain wider(wider_profile, report.lambda);
      const auto wider_sampled = sampled_for(wider_profile);
      double aggregate_sum = 0;
      ok = consistent(judge_outputs(m, wider, analyse(m, wider, inputs, replicas, progress), outputs, replicas, options.delta,
                                    wider_sampled ? &*wider_sampled : nullptr, nullptr, nullptr, &aggregate_sum));
      fit = wider_sampled && wider_sampled->error.empty() ? aggregate_fit(wider_sampled->gram, aggregate_sum) : AggregateFit{};
      if (ok || !report.consistent_profiles.empty()) report.wider_fits.push_back({*p, fit});
    }
    if (ok && report.consistent_profiles.empty()) report.consistent_profiles.assign(p, end);
    if (!report.consistent_profiles.empty() && !fit.unlikely()) {
      report.fitting_profile = *p;
      break;
    }
  }
  return report;
}

}  // namespace shlo
