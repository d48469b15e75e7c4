// How a CheckReport is shown: a table for the terminal, JSON for programs, HTML for people.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "interp/ops/common.hpp"
#include "interp/sampled/sampled.hpp"
#include "oracle/float_check.hpp"

namespace shlo {

namespace {

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string shape_text(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string t;
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

std::string worst_at(const OutputCheck& o) { return o.worst_flat < 0 ? "-" : index_string(o.shape, o.worst_flat); }

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

// A bar chart of counts, log-scaled heights so that a few bad elements still show.
std::string svg_histogram(const std::vector<std::int64_t>& counts, const std::vector<std::string>& labels, const std::string& title,
                          std::size_t first_bad_bin) {
  const int bar = 34, height = 120, top = 24, bottom = 48, width = static_cast<int>(counts.size()) * bar + 20;
  std::int64_t most = 1;
  for (auto c : counts) most = std::max(most, c);
  std::string s = "<svg xmlns='http://www.w3.org/2000/svg' width='" + std::to_string(width) + "' height='" +
                  std::to_string(height + top + bottom) + "' font-family='sans-serif' font-size='9'>";
  s += "<text x='4' y='14' font-size='12'>" + html_escape(title) + "</text>";
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double h = counts[i] == 0 ? 0 : height * std::log1p(static_cast<double>(counts[i])) / std::log1p(static_cast<double>(most));
    const int x = 10 + static_cast<int>(i) * bar;
    const char* colour = i >= first_bad_bin ? "#c0392b" : "#2e86c1";
    s += "<rect x='" + std::to_string(x) + "' y='" + fmt("%.1f", top + height - h) + "' width='" + std::to_string(bar - 4) +
         "' height='" + fmt("%.1f", h) + "' fill='" + colour + "'><title>" + html_escape(labels[i]) + ": " + std::to_string(counts[i]) +
         "</title></rect>";
    if (counts[i]) s += "<text x='" + std::to_string(x) + "' y='" + fmt("%.1f", top + height - h - 2) + "'>" + std::to_string(counts[i]) + "</text>";
    s += "<text transform='translate(" + std::to_string(x + 4) + "," + std::to_string(top + height + 6) + ") rotate(60)'>" +
         html_escape(labels[i]) + "</text>";
  }
  return s + "</svg>";
}

std::string verdict_class(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Improbable: return "IMPROBABLE";
    case Verdict::NoVerdict: return "NOVERDICT";
  }
  return "";
}

std::string profiles_text(const CheckReport& r) {
  if (judged_elements(r.outputs) == 0) return "not judged (every element's bounds are infinite)";
  if (r.consistent_profiles.empty()) {  // none of the checked profile and the wider ones
    std::string tried;
    bool on = false;
    for (const char* p : kMatmulProfiles) {
      on = on || r.profile == p;
      if (on && (r.wider_profiles_tried || tried.empty())) tried += (tried.empty() ? "" : ", ") + std::string(p);
    }
    return "none (tried " + (tried.empty() ? r.profile : tried) + ")";
  }
  std::string s;
  for (const auto& p : r.consistent_profiles) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// When the outputs fail a float32 profile but fit a reduced-precision one, the likely cause in
// a user's words (the one measured: XLA's DEFAULT precision on an H200 is TF32).
std::string reduced_precision_hint(const CheckReport& r) {
  if (r.profile != "ieee" && r.profile != "cuda") return "";
  if (r.consistent_profiles.empty() || judged_elements(r.outputs) == 0) return "";
  // The profile the errors together fit, where the sampled tier tells (a bf16 computation often
  // stays within tf32's bounds element by element); else the narrowest consistent one.
  const std::string& widest_needed = r.fitting_profile.empty() ? r.consistent_profiles.front() : r.fitting_profile;
  if (widest_needed != "tf32" && widest_needed != "bf16") return "";
  // Outputs within the checked profile's bounds whose errors together fit a wider one only.
  const std::string head = r.consistent_profiles.front() == r.profile
                               ? "hint: the outputs pass " + r.profile + " element by element, but their errors together fit " + widest_needed
                           : widest_needed == "tf32"                  ? "hint: the outputs fit tf32, not " + r.profile
                           : r.consistent_profiles.front() == "bf16" ? std::string("hint: the outputs fit bf16 only")
                                                                      : std::string("hint: the outputs fit bf16");
  if (widest_needed == "tf32")
    return head +
           ": their products look computed from TF32 operands (10 stored mantissa bits), as XLA computed dot_general and "
           "convolution at precision DEFAULT on an H200 (docs/measurements.md); precision HIGHEST in the text asks for float32";
  return head + ": their products look computed from bf16 operands (7 stored mantissa bits)";
}

// All outputs together under one profile's model, in words (oracle/sampled_aggregate.hpp).
std::string aggregate_text(const AggregateFit& f) {
  return "root mean square " + fmt("%.3g", f.rms) + " sigma_hat over " + std::to_string(f.elements) +
         " elements, where honest errors exceed " + fmt("%.3g", f.limit) + " with probability <= " + fmt("%.2g", kAggregateLevel);
}

// Which profile the errors together fit, where the sampled tier tried more than the checked one.
std::string fitting_text(const CheckReport& r) {
  if (r.wider_fits.empty()) return "";
  std::string s = r.fitting_profile.empty() ? "the errors together fit none of them"
                                            : "the errors together fit " + r.fitting_profile;
  std::string why;
  if (r.aggregate.unlikely() && !r.consistent_profiles.empty() && r.consistent_profiles.front() == r.profile)
    why = "under " + r.profile + " their " + aggregate_text(r.aggregate);
  for (const auto& w : r.wider_fits)
    if (w.fit.unlikely()) why += (why.empty() ? "under " : "; under ") + w.profile + " their " + aggregate_text(w.fit);
  return s + (why.empty() ? "" : " (" + why + ")");
}

// The lines under the table: the statistical tier's terms, then what each verdict rests on.
std::vector<std::string> explanations(const CheckReport& r) {
  std::vector<std::string> lines;
  lines.push_back("statistical tier: lambda " + fmt("%.3g", r.lambda) + " over at most " + fmt("%.0f", r.events) +
                  " events (a statistical bound relied on), each failing with probability <= " + fmt("%.2g", r.event_risk) +
                  "; the whole check holds with probability >= 1 - " + fmt("%.2g", r.delta) +
                  (r.sampled ? " (half of it for the bound analysis, half for the sampled tier)" : ""));
  if (r.sampled && r.sampled_error.empty())
    lines.push_back("sampled tier: " + std::to_string(kSampledPasses) + " tangent passes in " + fmt("%.1f", r.sampled_seconds) +
                    " s; an element is also IMPROBABLE farther than " + fmt("%.3g", r.sampled_factor) + " sigma_hat + " +
                    fmt("%.3g", r.sampled_sketch_factor) + " |sketch|_(" + std::to_string(kSketchRank) +
                    ") from that run's value (every correlation between rounding errors kept)");
  else if (r.sampled)
    lines.push_back("sampled tier: judged nothing (" + r.sampled_error + "); the statistical bound is the analysis' alone");
  if (r.aggregate.tested)
    lines.push_back("all outputs together: errors beyond the sketch's share, " + aggregate_text(r.aggregate) + " under the model: " +
                    (r.aggregate.unlikely() ? "UNLIKELY under " + r.profile + " (a statement at that probability, not a verdict)"
                                            : "they fit " + r.profile));
  for (const auto& o : r.outputs) {
    const std::string who = o.name + (r.replicas > 1 ? " (replica " + std::to_string(o.replica) + ")" : "");
    if (o.improbable)
      lines.push_back(who + ": " + std::to_string(o.improbable) + " element(s) outside the statistical bound (worst at " +
                      index_string(o.shape, o.worst_pflat) + "); rounding alone puts them there with probability <= " +
                      fmt("%.2g", o.improbable_probability));
    if (o.statistical_only)
      lines.push_back(who + ": " + std::to_string(o.statistical_only) +
                      " element(s) with no finite sound bound (the float evaluation may overflow under it), judged by the "
                      "statistical tier alone");
    if (o.certain_nonfinite)
      lines.push_back(who + ": " + std::to_string(o.certain_nonfinite) +
                      " element(s) that every float evaluation makes infinite or NaN (an overflow no evaluation avoids, or "
                      "what follows from one), judged as such" +
                      (o.probable_nonfinite ? " (" + std::to_string(o.probable_nonfinite) +
                                                  " of them but for an improbable event: decided by the statistical tier)"
                                            : std::string()));
    if (o.nan_alternative)
      lines.push_back(who + ": " + std::to_string(o.nan_alternative) +
                      " NaN element(s) where a comparison upstream may take a branch that every float evaluation makes "
                      "NaN (the exact one takes the other), or an overflow upstream may happen, judged as such");
    if (o.inf_alternative)
      lines.push_back(who + ": " + std::to_string(o.inf_alternative) +
                      " infinite element(s) where an overflow upstream may or may not happen (the sampled tier bounds "
                      "the evaluations without it), judged as such");
    if (o.unbounded)
      lines.push_back(who + ": " + std::to_string(o.unbounded) + " element(s) with both bounds infinite, NO VERDICT; first at " +
                      index_string(o.shape, o.first_unbounded_flat) + ": exact " +
                      (std::isfinite(o.unbounded_exact) ? fmt("%.9g", o.unbounded_exact) : std::string("not enclosed at double precision")) +
                      ", float " + fmt("%.9g", o.unbounded_float));
  }
  if (!r.first_unbounded.empty()) lines.push_back("the sound bound first became infinite at " + r.first_unbounded);
  const bool statistical_only =
      std::any_of(r.outputs.begin(), r.outputs.end(), [](const OutputCheck& o) { return o.statistical_only > 0; });
  lines.push_back("consistent with profiles: " + profiles_text(r));
  if (const std::string fitting = fitting_text(r); !fitting.empty()) lines.push_back(fitting);
  if (const std::string hint = reduced_precision_hint(r); !hint.empty()) lines.push_back(hint);
  switch (r.verdict()) {
    case Verdict::Pass:
      lines.push_back(statistical_only ? "PASS: every element lies within its statistical bound, and within its sound bound where that is finite"
                                       : "PASS: every element lies within its sound and its statistical bound");
      if (std::any_of(r.outputs.begin(), r.outputs.end(), [](const OutputCheck& o) { return o.certain_nonfinite > 0; }))
        lines.back() += ", or is the inf or NaN that every float evaluation gives";
      break;
    case Verdict::Fail: lines.push_back("FAIL: elements outside their sound bound cannot be rounding"); break;
    case Verdict::Improbable:
      lines.push_back("IMPROBABLE: elements outside their statistical bound: a bug unless rounding behaved far worse than random");
      break;
    case Verdict::NoVerdict:
      lines.push_back("NO VERDICT: elements whose bounds are both infinite (the float evaluation may overflow) are not checked");
      break;
  }
  return lines;
}

}  // namespace

std::string format_table_header() {
  char line[600];
  std::snprintf(line, sizeof line, "%-12s %4s %-16s %10s %10s %9s %12s %12s %-16s %8s %8s %8s %8s  %s\n", "output", "rep", "shape",
                "max abs", "max rel", "max ulps", "worst e/bnd", "worst e/stat", "at", "over", "improb", "flips", "unbnd", "verdict");
  return line;
}

std::string format_table_row(const OutputCheck& o) {
  char line[600];
  if (o.predicate) {
    std::snprintf(line, sizeof line, "%-12s %4d %-16s %10s %10s %9s %12s %12s %-16s %8lld %8lld %8lld %8s  %s\n", o.name.c_str(),
                  o.replica, (shape_text(o.shape) + " i1").c_str(), "-", "-", "-", "-", "-", worst_at(o).c_str(),
                  static_cast<long long>(o.over), static_cast<long long>(o.improbable), static_cast<long long>(o.flips), "-",
                  verdict_name(o.verdict()));
  } else {
    std::snprintf(line, sizeof line, "%-12s %4d %-16s %10.3g %10.3g %9.3g %12.4g %12.4g %-16s %8lld %8lld %8lld %8lld  %s\n",
                  o.name.c_str(), o.replica, shape_text(o.shape).c_str(), o.max_abs, o.max_rel, o.max_ulps, o.worst_ratio,
                  o.worst_pratio, worst_at(o).c_str(), static_cast<long long>(o.over), static_cast<long long>(o.improbable),
                  static_cast<long long>(o.flips), static_cast<long long>(o.unbounded), verdict_name(o.verdict()));
  }
  return line;
}

std::string format_table(const CheckReport& r) {
  std::string s = "shlo check: " + r.file + ", profile " + r.profile + (r.allowances.empty() ? "" : " with " + r.allowances) + ", " +
                  std::to_string(r.replicas) + " replica(s); bound analysis " +
                  fmt("%.2f s", r.seconds) + "\n";
  s += format_table_header();
  for (const auto& o : r.outputs) s += format_table_row(o);
  s += "error/bound over all elements: sound median " + fmt("%.3g", r.median_ratio) + ", worst " + fmt("%.3g", r.worst_ratio) +
       "; statistical median " + fmt("%.3g", r.median_pratio) + ", worst " + fmt("%.3g", r.worst_pratio) + "\n";
  for (const auto& l : explanations(r)) s += l + "\n";
  return s;
}

std::string format_json(const CheckReport& r) {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(x > 0 ? "inf" : "nan"); };
  nlohmann::json j;
  j["file"] = r.file;
  j["profile"] = r.profile;
  j["allowances"] = r.allowances;
  j["replicas"] = r.replicas;
  j["analysis_seconds"] = r.seconds;
  j["verdict"] = verdict_name(r.verdict());
  j["pass"] = r.pass();
  j["median_error_over_bound"] = r.median_ratio;
  j["worst_error_over_bound"] = num(r.worst_ratio);
  j["median_error_over_statistical_bound"] = r.median_pratio;
  j["worst_error_over_statistical_bound"] = num(r.worst_pratio);
  j["statistical"] = {{"delta", r.delta}, {"lambda", r.lambda}, {"sums", r.events}, {"risk_per_sum", r.event_risk}};
  if (r.sampled)
    j["sampled"] = {{"passes", kSampledPasses},
                    {"factor", r.sampled_factor},
                    {"sketch_factor", r.sampled_sketch_factor},
                    {"seconds", r.sampled_seconds},
                    {"error", r.sampled_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sampled_error)}};
  j["first_unbounded_op"] = r.first_unbounded.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.first_unbounded);
  j["consistent_profiles"] = r.consistent_profiles;
  auto fit_json = [](const AggregateFit& f) {
    return f.tested ? nlohmann::json{{"elements", f.elements}, {"rms", f.rms}, {"limit", f.limit}, {"level", kAggregateLevel},
                                     {"largest_correlation", f.correlation}, {"unlikely", f.unlikely()}}
                    : nlohmann::json(nullptr);
  };
  j["aggregate"] = fit_json(r.aggregate);
  j["wider_aggregates"] = nlohmann::json::object();
  for (const auto& w : r.wider_fits) j["wider_aggregates"][w.profile] = fit_json(w.fit);
  j["fitting_profile"] = r.fitting_profile.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.fitting_profile);
  j["judged_elements"] = judged_elements(r.outputs);
  j["outputs"] = nlohmann::json::array();
  for (const auto& o : r.outputs) {
    nlohmann::json e;
    e["name"] = o.name;
    e["result"] = o.index;
    e["replica"] = o.replica;
    e["shape"] = o.shape;
    e["i1"] = o.predicate;
    e["elements"] = o.elements;
    e["max_abs_error"] = num(o.max_abs);
    e["max_rel_error"] = num(o.max_rel);
    e["max_ulps"] = num(o.max_ulps);
    e["worst_error_over_bound"] = num(o.worst_ratio);
    e["median_error_over_bound"] = num(o.median_ratio);
    e["worst_error_over_statistical_bound"] = num(o.worst_pratio);
    e["median_error_over_statistical_bound"] = num(o.median_pratio);
    e["worst_index"] = o.worst_flat < 0 ? nlohmann::json(nullptr) : nlohmann::json(unravel(o.shape, o.worst_flat));
    e["worst_statistical_index"] = o.worst_pflat < 0 ? nlohmann::json(nullptr) : nlohmann::json(unravel(o.shape, o.worst_pflat));
    e["over_bound"] = o.over;
    e["improbable"] = o.improbable;
    if (o.improbable) e["improbable_probability"] = o.improbable_probability;
    e["branch_may_flip"] = o.flips;
    e["unbounded"] = o.unbounded;
    e["statistical_only"] = o.statistical_only;
    e["certain_nonfinite"] = o.certain_nonfinite;
    e["probable_nonfinite"] = o.probable_nonfinite;
    e["nan_alternative"] = o.nan_alternative;
    e["inf_alternative"] = o.inf_alternative;
    if (o.unbounded)
      e["first_unbounded"] = {{"index", unravel(o.shape, o.first_unbounded_flat)}, {"exact", num(o.unbounded_exact)},
                              {"float", num(o.unbounded_float)}};
    e["verdict"] = verdict_name(o.verdict());
    e["error_over_bound_histogram"] = o.ratio_histogram;
    e["error_over_statistical_bound_histogram"] = o.pratio_histogram;
    e["ulps_histogram"] = o.ulps_histogram;
    j["outputs"].push_back(e);
  }
  j["error_over_bound_bins"] = ratio_bin_labels();
  j["ulps_bins"] = ulps_bin_labels();
  return j.dump(2) + "\n";
}

std::string format_html(const CheckReport& r) {
  const Verdict verdict = r.verdict();
  std::string s =
      "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>shlo check: " + html_escape(r.file) +
      "</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
      "border-bottom:1px solid #ddd;text-align:right}.PASS{color:#1e8449;font-weight:bold}.FAIL{color:#c0392b;font-weight:bold}"
      ".IMPROBABLE{color:#d35400;font-weight:bold}.NOVERDICT{color:#7f8c8d;font-weight:bold}"
      "section{margin-top:1.5em}</style></head><body>\n";
  s += "<h1>shlo check: " + html_escape(r.file) + "</h1>\n<p>Profile <b>" + html_escape(r.profile) + "</b>" +
       (r.allowances.empty() ? "" : " with " + html_escape(r.allowances)) + ", " + std::to_string(r.replicas) +
       " replica(s). Verdict: <span class='" + verdict_class(verdict) + "'>" + verdict_name(verdict) +
       "</span>.</p>\n<p>Two tiers. <b>Sound</b>: an element FAILs when it lies farther from the exact value than the bound on any "
       "float32 evaluation allows (every summation order): that is never rounding. <b>Statistical</b>: an element is IMPROBABLE "
       "when it lies outside the bound that holds, for the whole check, with probability at least 1 - " +
       fmt("%.2g", r.delta) + " when rounding errors behave as independent mean-zero random variables (lambda " + fmt("%.3g", r.lambda) +
       "). An element whose sound bound is infinite (its float evaluation may overflow under it) is judged by the statistical "
       "tier alone, and gets NO VERDICT where that bound is infinite too.</p>\n<ul>";
  for (const auto& l : explanations(r)) s += "<li>" + html_escape(l) + "</li>";
  s += "</ul>\n<table><tr><th>output</th><th>replica</th><th>shape</th><th>max abs</th><th>max rel</th><th>max ulps</th>"
       "<th>median error/bound</th><th>worst error/bound</th><th>at</th><th>median error/statistical</th>"
       "<th>worst error/statistical</th><th>at</th><th>over bound (FAIL)</th><th>IMPROBABLE</th><th>NO VERDICT</th>"
       "<th>branch may flip</th><th>verdict</th></tr>\n";
  for (const auto& o : r.outputs) {
    const std::string pat = o.worst_pflat < 0 ? "-" : index_string(o.shape, o.worst_pflat);
    s += "<tr><td>" + html_escape(o.name) + "</td><td>" + std::to_string(o.replica) + "</td><td>" + shape_text(o.shape) + "</td><td>" +
         fmt("%.3g", o.max_abs) + "</td><td>" + fmt("%.3g", o.max_rel) + "</td><td>" + fmt("%.3g", o.max_ulps) + "</td><td>" +
         fmt("%.3g", o.median_ratio) + "</td><td>" + fmt("%.4g", o.worst_ratio) + "</td><td>" + worst_at(o) + "</td><td>" +
         fmt("%.3g", o.median_pratio) + "</td><td>" + fmt("%.4g", o.worst_pratio) + "</td><td>" + pat + "</td><td class='" +
         (o.over ? "FAIL" : "") + "'>" + std::to_string(o.over) + "</td><td class='" + (o.improbable ? "IMPROBABLE" : "") + "'>" +
         std::to_string(o.improbable) + "</td><td class='" + (o.unbounded ? "NOVERDICT" : "") + "'>" + std::to_string(o.unbounded) +
         "</td><td>" + std::to_string(o.flips) + "</td><td class='" + verdict_class(o.verdict()) + "'>" + verdict_name(o.verdict()) +
         "</td></tr>\n";
  }
  s += "</table>\n";
  for (const auto& o : r.outputs) {
    if (o.predicate) continue;
    s += "<section><h2>" + html_escape(o.name) + " (replica " + std::to_string(o.replica) + "): " + verdict_name(o.verdict()) + "</h2>\n";
    s += svg_histogram(o.ratio_histogram, ratio_bin_labels(), "error / sound bound (elements per bin; red: FAIL)",
                       o.ratio_histogram.size() - 1);
    s += "\n" + svg_histogram(o.pratio_histogram, ratio_bin_labels(), "error / statistical bound (red: IMPROBABLE or FAIL)",
                              o.pratio_histogram.size() - 1);
    s += "\n" + svg_histogram(o.ulps_histogram, ulps_bin_labels(), "error in float32 ulps of the exact value", o.ulps_histogram.size()) +
         "\n</section>\n";
  }
  return s + "</body></html>\n";
}

}  // namespace shlo
