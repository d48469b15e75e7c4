#include "oracle/float_check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "interp/domain/ieee.hpp"
#include "interp/program_inputs.hpp"
#include "interp/run.hpp"

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

}  // namespace

ElementVerdict judge_element(const BoundDomain& d, const BoundScalar& open, double y) {
  const BoundScalar s = d.closed(open);
  ElementVerdict v;
  const double bound = d.bound(s);
  const double mid = d.to_double(s);
  if (std::isinf(s.lo) && s.lo == s.hi) {  // an exact infinity
    v.over = y != s.lo;
    v.ratio = v.over ? kInf : 0;
    v.error = v.over ? kInf : 0;
    return v;
  }
  v.error = std::fabs(y - mid);
  v.ulps = v.error / ieee_ulp<float>(mid);
  if (y != y) {  // NaN: only an unbounded element may be one
    v.error = v.ulps = kInf;
    v.over = bound != kInf;
    v.ratio = v.over ? kInf : 0;
    return v;
  }
  const double distance = y > s.hi ? y - s.hi : y < s.lo ? s.lo - y : 0;
  if (bound == kInf) return v;
  v.ratio = distance == 0 ? 0 : bound == 0 ? kInf : distance / bound;
  v.over = distance > bound;
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

bool CheckReport::pass() const {
  return std::all_of(outputs.begin(), outputs.end(), [](const OutputCheck& o) { return o.pass(); });
}

CheckReport check_float_outputs(const Module& m, const FloatProfile& profile, const std::vector<std::vector<NpyArray>>& inputs,
                                const std::vector<std::vector<NpyArray>>& outputs, int replicas,
                                const std::function<void(const std::string&)>& progress) {
  const BoundDomain d(profile);
  const Function& f = m.function;
  if (inputs.size() != static_cast<std::size_t>(replicas))
    throw std::invalid_argument(std::to_string(inputs.size()) + " input sets for " + std::to_string(replicas) + " replicas");
  std::vector<std::vector<Value<BoundDomain>>> values;
  try {
    values = npy_values(d, f, inputs);
  } catch (const InputError& e) {
    throw std::invalid_argument(e.what());
  }
  RunOptions options;
  options.replicas = replicas;
  if (progress)
    options.progress = [&](const RunProgress& p) {
      progress("[" + std::to_string(p.done + 1) + "/" + std::to_string(p.total) + "] " + p.current->result + " = stablehlo." +
               op_name(p.current->op));
    };
  CheckReport report;
  report.file = m.file;
  report.profile = profile.name;
  report.replicas = replicas;
  const auto t0 = std::chrono::steady_clock::now();
  const auto run = run_program(m, d, std::move(values), options);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<double> all_ratios;
  for (int r = 0; r < replicas; ++r)
    for (std::size_t i = 0; i < f.return_values.size(); ++i) {
      OutputCheck o;
      o.name = f.return_values[i];
      o.replica = r;
      o.index = i;
      o.shape = f.return_types[i].shape;
      o.ratio_histogram.assign(kRatioBins, 0);
      o.ulps_histogram.assign(kUlpsBins, 0);
      const NpyArray& y = outputs.at(static_cast<std::size_t>(r)).at(i);
      const std::string what = "output " + o.name + " (result " + std::to_string(i) + ", replica " + std::to_string(r) + ")";
      if (y.shape != o.shape)
        throw std::invalid_argument(what + " has shape " + shape_to_string(y.shape) + ", expected " + shape_to_string(o.shape));
      const auto& value = run.outputs[static_cast<std::size_t>(r)][i];
      if (const auto* p = std::get_if<PredTensor>(&value)) {
        o.predicate = true;
        if (y.dtype() != NpyDtype::Bool) throw std::invalid_argument(what + " must be bool");
        const auto& b = std::get<std::vector<std::uint8_t>>(y.data);
        o.elements = p->size();
        for (std::int64_t k = 0; k < p->size(); ++k) {
          const bool flip = (*p)[k] & (kPredFloatMayFlip | kPredExactUndecided);
          o.flips += flip;
          if (!flip && (b[static_cast<std::size_t>(k)] != 0) != (((*p)[k] & kPredValue) != 0)) {
            ++o.over;
            if (o.worst_flat < 0) o.worst_flat = k;
          }
        }
        report.outputs.push_back(std::move(o));
        continue;
      }
      const auto& t = std::get<Tensor<BoundScalar>>(value);
      const auto ys = as_doubles(y, what);
      o.elements = t.size();
      std::vector<double> ratios;
      ratios.reserve(ys.size());
      for (std::int64_t k = 0; k < t.size(); ++k) {
        const BoundScalar s = d.closed(t[k]);
        const ElementVerdict v = judge_element(d, s, ys[static_cast<std::size_t>(k)]);
        o.flips += (s.flags & kMayFlip) != 0;
        o.unbounded += d.bound(s) == kInf;
        o.nonfinite += !std::isfinite(ys[static_cast<std::size_t>(k)]);
        o.over += v.over;
        if (!std::isfinite(s.lo) || !std::isfinite(s.hi) || !std::isfinite(v.error)) {  // exact value unknown here
          ++o.ratio_histogram[static_cast<std::size_t>(ratio_bin(v.ratio))];
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
        ratios.push_back(v.ratio);
        ++o.ratio_histogram[static_cast<std::size_t>(ratio_bin(v.ratio))];
        ++o.ulps_histogram[static_cast<std::size_t>(ulps_bin(v.ulps))];
      }
      all_ratios.insert(all_ratios.end(), ratios.begin(), ratios.end());
      report.worst_ratio = std::max(report.worst_ratio, o.worst_ratio);
      if (!ratios.empty()) {
        auto mid = ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2);
        std::nth_element(ratios.begin(), mid, ratios.end());
        o.median_ratio = *mid;
      }
      report.outputs.push_back(std::move(o));
    }
  if (!all_ratios.empty()) {
    auto mid = all_ratios.begin() + static_cast<std::ptrdiff_t>(all_ratios.size() / 2);
    std::nth_element(all_ratios.begin(), mid, all_ratios.end());
    report.median_ratio = *mid;
  }
  return report;
}

}  // namespace shlo
