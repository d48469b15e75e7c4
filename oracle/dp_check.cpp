#include "oracle/dp_check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "interp/bound/bound.hpp"
#include "interp/run.hpp"

namespace shlo {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string bare(const std::string& name) { return !name.empty() && name[0] == '%' ? name.substr(1) : name; }

// Values of DP that differ per replica: those that depend on a sharded argument other than
// through an all_reduce whose one group holds every replica.
std::set<std::string> replica_varying_values(const Module& dp, const std::set<std::string>& sharded, int replicas) {
  std::set<std::string> varying = sharded;
  for (const Instruction* inst : instructions(dp.function())) {
    if (inst->op == Op::AllReduce) {
      const auto& groups = inst->attributes.replica_groups;
      const bool whole = groups.size() == 1 && static_cast<int>(groups[0].size()) == replicas;
      if (whole) continue;
    }
    for (const auto& name : inst->operands)
      if (varying.count(name)) {
        varying.insert(inst->result);
        break;
      }
  }
  return varying;
}

std::vector<double> npy_doubles(const NpyArray& a, const std::string& what) {
  if (const auto* f = std::get_if<std::vector<float>>(&a.data)) return {f->begin(), f->end()};
  if (const auto* d = std::get_if<std::vector<double>>(&a.data)) return *d;
  throw DpCheckError(what + ": dtype is " + to_string(a.dtype()) + ", expected f32 or f64");
}

// An .npy array as a value of domain D (floats through from_double: exact for f32/f64 data).
template <class D>
Value<D> npy_value(const D& d, const NpyArray& a, const std::string& what) {
  if (a.dtype() == NpyDtype::Bool) return PredTensor(a.shape, std::get<std::vector<std::uint8_t>>(a.data));
  std::vector<typename D::Scalar> v;
  for (double x : npy_doubles(a, what)) v.push_back(d.from_double(x));
  return Tensor<typename D::Scalar>(a.shape, std::move(v));
}

template <class D>
std::vector<std::vector<Value<D>>> domain_inputs(const D& d, const Module& m, const std::vector<std::vector<NpyArray>>& per_replica) {
  std::vector<std::vector<Value<D>>> out(per_replica.size());
  for (std::size_t r = 0; r < per_replica.size(); ++r)
    for (std::size_t i = 0; i < per_replica[r].size(); ++i)
      out[r].push_back(npy_value(d, per_replica[r][i], "input " + m.function().arguments[i].name));
  return out;
}

template <class D>
RunResult<D> run_timed(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, double& seconds) {
  RunOptions options;
  options.replicas = static_cast<int>(inputs.size());
  const auto t0 = std::chrono::steady_clock::now();
  auto result = run_program(m, d, std::move(inputs), options);
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

// DP's outputs, [replica][result], from this process or the runner.
template <class D>
std::vector<std::vector<Value<D>>> run_replicas(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, double& seconds,
                                                ReplicaRunner* runner) {
  if (!runner) return run_timed(m, d, std::move(inputs), seconds).outputs;
  const auto t0 = std::chrono::steady_clock::now();
  auto outputs = runner->run(m, d, std::move(inputs));
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return outputs;
}

// Bitwise for IEEE scalars, by the domain's lossless text otherwise.
template <class D>
bool identical(const D& d, const typename D::Scalar& a, const typename D::Scalar& b) {
  if constexpr (std::is_floating_point_v<typename D::Scalar>) return std::memcmp(&a, &b, sizeof a) == 0;
  else return d.to_string(a) == d.to_string(b);
}

template <class D>
bool replicas_agree(const D& d, const std::vector<std::vector<Value<D>>>& dp, std::size_t i) {
  const auto& first = dp[0][i];
  for (std::size_t r = 1; r < dp.size(); ++r) {
    const auto& other = dp[r][i];
    if (const auto* p = std::get_if<PredTensor>(&first)) {
      if (p->data != std::get<PredTensor>(other).data) return false;
      continue;
    }
    const auto& a = std::get<Tensor<typename D::Scalar>>(first).data;
    const auto& b = std::get<Tensor<typename D::Scalar>>(other).data;
    for (std::size_t k = 0; k < a.size(); ++k)
      if (!identical(d, a[k], b[k])) return false;
  }
  return true;
}

void note_failure(DpOutputVerdict& v, std::int64_t k) {
  if (v.failing++ == 0) v.first_failing = k;
}

// Exact: equal; interval: the enclosures intersect. Predicates: equal bits in both.
template <class D>
void judge_domain_values(const D& d, const Value<D>& dp, const Value<D>& full, DpOutputVerdict& v) {
  if (const auto* p = std::get_if<PredTensor>(&dp)) {
    const auto& q = std::get<PredTensor>(full);
    for (std::int64_t k = 0; k < p->size(); ++k)
      if (((*p)[k] & 1) != (q[k] & 1)) note_failure(v, k);
    return;
  }
  const auto& a = std::get<Tensor<typename D::Scalar>>(dp);
  const auto& b = std::get<Tensor<typename D::Scalar>>(full);
  for (std::int64_t k = 0; k < a.size(); ++k) {
    const double gap = std::fabs(d.to_double(a[k]) - d.to_double(b[k]));
    if (gap == gap) v.max_gap = std::max(v.max_gap, gap);
    if constexpr (std::is_same_v<D, IntervalDomain>) {
      v.widest = std::max({v.widest, IntervalDomain::width(a[k]), IntervalDomain::width(b[k])});
      if (d.compare(CompareDirection::EQ, a[k], b[k]) == Tri::False) note_failure(v, k);  // disjoint
    } else {
      if (d.compare(CompareDirection::EQ, a[k], b[k]) != Tri::True) note_failure(v, k);
    }
  }
}

// The float verdict on one element: |y_dp - y_full| <= bound_dp + bound_full (both rounded
// against a FAIL), and the exact enclosures intersect.
void judge_float_element(const BoundDomain& bd, const BoundScalar& dp_open, const BoundScalar& full_open, double y_dp, double y_full,
                         std::int64_t k, DpOutputVerdict& v) {
  const BoundScalar a = bd.closed(dp_open), b = bd.closed(full_open);
  const double gap = std::fabs(y_dp - y_full);
  if (gap == gap) v.max_gap = std::max(v.max_gap, gap);
  if (a.hi < b.lo || b.hi < a.lo) return note_failure(v, k);  // the exact values differ
  const double allowed = bd.bound(a) + bd.bound(b);
  if (allowed == kInf) {
    ++v.unbounded;
    return;
  }
  if (gap != gap) return note_failure(v, k);  // NaN where the bound is finite
  if (gap == 0) return;
  v.worst_ratio = std::max(v.worst_ratio, allowed == 0 ? kInf : gap / allowed);
  if (std::nextafter(gap, 0.0) > std::nextafter(allowed, kInf)) note_failure(v, k);
}

template <class D>
std::vector<double> float_data(const Value<D>& v) {
  const auto& t = std::get<Tensor<typename D::Scalar>>(v);
  return {t.data.begin(), t.data.end()};
}

DpOutputVerdict new_verdict(const Module& dp, const DpPlan::Output& o) {
  DpOutputVerdict v;
  v.index = o.index;
  v.name = o.dp_name == o.full_name ? o.dp_name : o.dp_name + "/" + o.full_name;
  v.shape = dp.function().return_types[o.index].shape;
  v.elements = num_elements(v.shape);
  v.report_only = o.report_only;
  v.why = o.why;
  return v;
}

// Float outputs (run here in F, or given): the bound analysis of both programs judges them.
template <class F>
void float_verdicts(const Module& dp, const Module& full, const DpPlan& plan, const std::vector<std::vector<NpyArray>>& dp_in,
                    const std::vector<NpyArray>& full_in, const DpCheckOptions& options, DpReport& report) {
  std::vector<std::vector<std::vector<double>>> dp_out(dp_in.size());  // [replica][result][element]
  std::vector<std::vector<double>> full_out;
  std::vector<std::vector<std::uint8_t>> dp_pred0, full_pred;  // i1 results (replica 0)
  if (options.dp_outputs) {
    for (std::size_t r = 0; r < dp_in.size(); ++r)
      for (std::size_t i = 0; i < plan.outputs.size(); ++i) {
        const NpyArray& a = options.dp_outputs->at(r).at(i);
        dp_out[r].push_back(a.dtype() == NpyDtype::Bool ? std::vector<double>{} : npy_doubles(a, "DP output " + std::to_string(i)));
      }
    for (std::size_t i = 0; i < plan.outputs.size(); ++i) {
      const NpyArray& a = options.full_outputs->at(i);
      full_out.push_back(a.dtype() == NpyDtype::Bool ? std::vector<double>{} : npy_doubles(a, "FULL output " + std::to_string(i)));
    }
  } else {
    const F d;
    if (options.progress) options.progress("DP in " + d.name());
    const auto dp_run = run_replicas(dp, d, domain_inputs(d, dp, dp_in), report.dp_seconds, options.dp_runner);
    if (options.progress) options.progress("FULL in " + d.name());
    const auto full_run = run_timed(full, d, domain_inputs(d, full, {full_in}), report.full_seconds);
    for (std::size_t r = 0; r < dp_in.size(); ++r)
      for (const auto& v : dp_run[r]) dp_out[r].push_back(std::holds_alternative<PredTensor>(v) ? std::vector<double>{} : float_data<F>(v));
    for (const auto& v : full_run.outputs[0]) full_out.push_back(std::holds_alternative<PredTensor>(v) ? std::vector<double>{} : float_data<F>(v));
  }
  const BoundDomain bd(float_profile("ieee"));
  if (options.progress) options.progress("bound analysis of DP");
  const auto dp_bound = run_replicas(dp, bd, domain_inputs(bd, dp, dp_in), report.bound_seconds, options.dp_runner);
  if (options.progress) options.progress("bound analysis of FULL");
  const auto full_bound = run_timed(full, bd, domain_inputs(bd, full, {full_in}), report.bound_seconds);
  for (const auto& o : plan.outputs) {
    DpOutputVerdict v = new_verdict(dp, o);
    const std::size_t i = o.index;
    if (o.report_only) {
      report.outputs.push_back(std::move(v));
      continue;
    }
    for (std::size_t r = 1; r < dp_out.size(); ++r) v.replicas_agree = v.replicas_agree && dp_out[r][i] == dp_out[0][i];
    const auto& a = dp_bound[0][i];
    if (const auto* p = std::get_if<PredTensor>(&a)) {  // i1: the exact comparisons must agree
      const auto& q = std::get<PredTensor>(full_bound.outputs[0][i]);
      for (std::int64_t k = 0; k < p->size(); ++k)
        if (((*p)[k] & kPredValue) != (q[k] & kPredValue)) note_failure(v, k);
    } else {
      const auto& ta = std::get<Tensor<BoundScalar>>(a);
      const auto& tb = std::get<Tensor<BoundScalar>>(full_bound.outputs[0][i]);
      const auto& ya = dp_out[0][i];
      const auto& yb = full_out[i];
      if (static_cast<std::int64_t>(ya.size()) != ta.size() || static_cast<std::int64_t>(yb.size()) != tb.size())
        throw DpCheckError("output " + v.name + ": the float outputs have " + std::to_string(ya.size()) + " and " +
                           std::to_string(yb.size()) + " elements, expected " + std::to_string(ta.size()));
      for (std::int64_t k = 0; k < ta.size(); ++k)
        judge_float_element(bd, ta[k], tb[k], ya[static_cast<std::size_t>(k)], yb[static_cast<std::size_t>(k)], k, v);
    }
    report.outputs.push_back(std::move(v));
  }
}

template <class D>
void domain_verdicts(const D& d, const Module& dp, const Module& full, const DpPlan& plan, const std::vector<std::vector<NpyArray>>& dp_in,
                     const std::vector<NpyArray>& full_in, const DpCheckOptions& options, DpReport& report) {
  if (options.progress) options.progress("DP in " + d.name());
  const auto dp_run = run_replicas(dp, d, domain_inputs(d, dp, dp_in), report.dp_seconds, options.dp_runner);
  if (options.progress) options.progress("FULL in " + d.name());
  const auto full_run = run_timed(full, d, domain_inputs(d, full, {full_in}), report.full_seconds);
  for (const auto& o : plan.outputs) {
    DpOutputVerdict v = new_verdict(dp, o);
    if (!o.report_only) {
      v.replicas_agree = replicas_agree(d, dp_run, o.index);
      judge_domain_values(d, dp_run[0][o.index], full_run.outputs[0][o.index], v);
    }
    report.outputs.push_back(std::move(v));
  }
}

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

DpPlan plan_dp_check(const Module& dp, const Module& full, int replicas, const std::vector<std::string>& report_only) {
  if (replicas < 1) throw DpCheckError("the replica count must be at least 1");
  DpPlan plan;
  plan.replicas = replicas;
  const Function &df = dp.function(), &ff = full.function();
  std::map<std::string, std::size_t> dp_index;
  for (std::size_t i = 0; i < df.arguments.size(); ++i) dp_index[df.arguments[i].name] = i;
  std::set<std::string> sharded;
  for (const auto& fa : ff.arguments) {
    const auto it = dp_index.find(fa.name);
    if (it == dp_index.end()) throw DpCheckError(full.file + ": argument " + fa.name + " has no argument of that name in " + dp.file);
    const TensorType& dt = df.arguments[it->second].type;
    DpPlan::Argument a{fa.name, it->second, false};
    if (!(dt == fa.type)) {
      const bool row_shard = dt.element == fa.type.element && dt.shape.size() == fa.type.shape.size() && !dt.shape.empty() &&
                             std::equal(dt.shape.begin() + 1, dt.shape.end(), fa.type.shape.begin() + 1) &&
                             dt.shape[0] * replicas == fa.type.shape[0];
      if (!row_shard)
        throw DpCheckError("argument " + fa.name + " is " + to_string(dt) + " in " + dp.file + " and " + to_string(fa.type) + " in " +
                           full.file + ": neither the same type nor a shard of " + std::to_string(replicas) +
                           " (the leading dimension R times smaller)");
      a.sharded = true;
      sharded.insert(fa.name);
    }
    plan.arguments.push_back(a);
    dp_index.erase(it);
  }
  if (!dp_index.empty())
    throw DpCheckError(dp.file + ": argument " + dp_index.begin()->first + " has no argument of that name in " + full.file);
  if (df.return_types.size() != ff.return_types.size())
    throw DpCheckError(dp.file + " returns " + std::to_string(df.return_types.size()) + " values, " + full.file + " returns " +
                       std::to_string(ff.return_types.size()));
  const auto varying = replica_varying_values(dp, sharded, replicas);
  std::set<std::string> named;
  for (const auto& n : report_only) named.insert(bare(n));
  for (std::size_t i = 0; i < df.return_types.size(); ++i) {
    DpPlan::Output o{i, df.return_values[i], ff.return_values[i], false, ""};
    if (!(df.return_types[i] == ff.return_types[i]))
      throw DpCheckError("output " + std::to_string(i) + " (" + o.dp_name + ") is " + to_string(df.return_types[i]) + " in " + dp.file +
                         " and " + to_string(ff.return_types[i]) + " in " + full.file);
    if (varying.count(o.dp_name)) {
      o.report_only = true;
      o.why = "varies per replica";
    } else if (named.count(bare(o.dp_name)) || named.count(bare(o.full_name))) {
      o.report_only = true;
      o.why = "named report-only";
    }
    named.erase(bare(o.dp_name));
    named.erase(bare(o.full_name));
    plan.outputs.push_back(o);
  }
  if (!named.empty()) throw DpCheckError("--report-only " + *named.begin() + ": no output of that name in either program");
  return plan;
}

std::vector<std::vector<NpyArray>> shard_inputs(const DpPlan& plan, const Module& dp, const std::vector<NpyArray>& full_inputs) {
  const int R = plan.replicas;
  std::vector<std::vector<NpyArray>> out(static_cast<std::size_t>(R), std::vector<NpyArray>(dp.function().arguments.size()));
  for (std::size_t j = 0; j < plan.arguments.size(); ++j) {
    const auto& a = plan.arguments[j];
    const NpyArray& whole = full_inputs.at(j);
    for (int r = 0; r < R; ++r) {
      NpyArray& part = out[static_cast<std::size_t>(r)][a.dp_index];
      if (!a.sharded) {
        part = whole;
        continue;
      }
      // Replica r gets rows r*N .. r*N+N-1 (the Lean batchShard).
      part.shape = whole.shape;
      part.shape[0] /= R;
      const std::size_t row = static_cast<std::size_t>(num_elements(part.shape));
      std::visit([&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        const auto first = v.begin() + static_cast<std::ptrdiff_t>(row * static_cast<std::size_t>(r));
        part.data = V(first, first + static_cast<std::ptrdiff_t>(row));
      }, whole.data);
    }
  }
  return out;
}

bool DpReport::pass() const {
  return std::all_of(outputs.begin(), outputs.end(), [](const DpOutputVerdict& v) { return v.pass(); });
}

DpReport dp_check(const Module& dp, const Module& full, const DpPlan& plan, const AnyDomain& domain,
                  const std::vector<NpyArray>& full_inputs, const DpCheckOptions& options) {
  if (full_inputs.size() != full.function().arguments.size())
    throw DpCheckError("expected " + std::to_string(full.function().arguments.size()) + " inputs of " + full.file + ", got " +
                       std::to_string(full_inputs.size()));
  DpReport report;
  report.dp_file = dp.file;
  report.full_file = full.file;
  report.replicas = plan.replicas;
  const auto dp_inputs = shard_inputs(plan, dp, full_inputs);
  const bool given = options.dp_outputs.has_value();
  if (given != options.full_outputs.has_value()) throw DpCheckError("give the float outputs of both programs, or neither");
  with_domain(domain, [&](const auto& d) {
    using D = std::decay_t<decltype(d)>;
    report.domain = given ? "float outputs given" : d.name();
    if (given && !std::is_floating_point_v<typename D::Scalar>)
      throw DpCheckError("float outputs are judged in f32 or f64, not " + d.name());
    if constexpr (std::is_same_v<D, MpfrDomain>) {
      throw DpCheckError(d.name() + " has no verdict (its values carry no error bound): use interval:P, exact, f32 or f64");
    } else if constexpr (std::is_floating_point_v<typename D::Scalar>) {
      float_verdicts<D>(dp, full, plan, dp_inputs, full_inputs, options, report);
    } else {
      domain_verdicts(d, dp, full, plan, dp_inputs, full_inputs, options, report);
    }
  });
  return report;
}

std::string format_table(const DpReport& r) {
  std::ostringstream os;
  os << r.dp_file << " on " << r.replicas << " replica(s) against " << r.full_file << " in " << r.domain << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-4s %-22s %-16s %10s %10s %10s %9s %-12s\n", "#", "output", "shape", "max gap", "gap/bound",
                "widest", "failing", "verdict");
  os << line;
  for (const auto& v : r.outputs) {
    const std::string verdict = v.report_only ? "REPORT-ONLY" : v.pass() ? "PASS" : "FAIL";
    std::snprintf(line, sizeof line, "%-4zu %-22s %-16s %10s %10s %10s %9lld %-12s", v.index, v.name.c_str(), shape_to_string(v.shape).c_str(),
                  fmt(v.max_gap).c_str(), fmt(v.worst_ratio).c_str(), fmt(v.widest).c_str(), static_cast<long long>(v.failing),
                  verdict.c_str());
    os << line;
    if (v.report_only) os << " (" << v.why << ")";
    if (!v.report_only && v.failing) os << " first at index " << v.first_failing;
    if (!v.replicas_agree) os << " (the DP replicas disagree)";
    if (v.unbounded) os << " (" << v.unbounded << " unbounded)";
    os << "\n";
  }
  std::size_t judged = 0, failed = 0;
  for (const auto& v : r.outputs) {
    judged += !v.report_only;
    failed += !v.pass();
  }
  std::snprintf(line, sizeof line, "%zu outputs judged, %zu report-only, %zu FAIL; DP %.2f s, FULL %.2f s, bound analysis %.2f s\n", judged,
                r.outputs.size() - judged, failed, r.dp_seconds, r.full_seconds, r.bound_seconds);
  os << line << (r.pass() ? "PASS" : "FAIL") << "\n";
  return os.str();
}

std::string format_json(const DpReport& r) {
  nlohmann::json j;
  j["dp"] = r.dp_file;
  j["full"] = r.full_file;
  j["domain"] = r.domain;
  j["replicas"] = r.replicas;
  j["seconds"] = {{"dp", r.dp_seconds}, {"full", r.full_seconds}, {"bound", r.bound_seconds}};
  j["pass"] = r.pass();
  auto num = [](double x) -> nlohmann::json { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(x > 0 ? "inf" : "nan"); };
  for (const auto& v : r.outputs) {
    nlohmann::json o = {{"index", v.index},         {"name", v.name},         {"shape", v.shape},
                        {"elements", v.elements},   {"report_only", v.report_only}, {"failing", v.failing},
                        {"first_failing", v.first_failing}, {"unbounded", v.unbounded}, {"max_gap", num(v.max_gap)},
                        {"worst_ratio", num(v.worst_ratio)}, {"widest", num(v.widest)}, {"replicas_agree", v.replicas_agree},
                        {"verdict", v.report_only ? "REPORT-ONLY" : v.pass() ? "PASS" : "FAIL"}};
    if (v.report_only) o["why"] = v.why;
    j["outputs"].push_back(o);
  }
  return j.dump(2) + "\n";
}

}  // namespace shlo
