// How a CheckReport is shown: a table for the terminal, JSON for programs, HTML for people.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "interp/ops/common.hpp"
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

}  // namespace

std::string format_table(const CheckReport& r) {
  std::string s = "shlo check: " + r.file + ", profile " + r.profile + ", " + std::to_string(r.replicas) + " replica(s); bound analysis " +
                  fmt("%.2f s", r.seconds) + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-12s %4s %-16s %10s %10s %9s %12s %-16s %8s %8s  %s\n", "output", "rep", "shape", "max abs",
                "max rel", "max ulps", "worst e/bnd", "at", "over", "flips", "verdict");
  s += line;
  for (const auto& o : r.outputs) {
    if (o.predicate) {
      std::snprintf(line, sizeof line, "%-12s %4d %-16s %10s %10s %9s %12s %-16s %8lld %8lld  %s\n", o.name.c_str(), o.replica,
                    (shape_text(o.shape) + " i1").c_str(), "-", "-", "-", "-", worst_at(o).c_str(), static_cast<long long>(o.over),
                    static_cast<long long>(o.flips), o.pass() ? "PASS" : "FAIL");
    } else {
      std::snprintf(line, sizeof line, "%-12s %4d %-16s %10.3g %10.3g %9.3g %12.4g %-16s %8lld %8lld  %s%s\n", o.name.c_str(), o.replica,
                    shape_text(o.shape).c_str(), o.max_abs, o.max_rel, o.max_ulps, o.worst_ratio, worst_at(o).c_str(),
                    static_cast<long long>(o.over), static_cast<long long>(o.flips), o.pass() ? "PASS" : "FAIL",
                    o.unbounded ? (" (" + std::to_string(o.unbounded) + " unbounded)").c_str() : "");
    }
    s += line;
  }
  s += "error/bound over all elements: median " + fmt("%.3g", r.median_ratio) + ", worst " + fmt("%.3g", r.worst_ratio) + "\n";
  s += r.pass() ? "PASS: every element lies within its bound\n" : "FAIL: elements outside their bound cannot be rounding\n";
  return s;
}

std::string format_json(const CheckReport& r) {
  nlohmann::json j;
  j["file"] = r.file;
  j["profile"] = r.profile;
  j["replicas"] = r.replicas;
  j["analysis_seconds"] = r.seconds;
  j["pass"] = r.pass();
  j["median_error_over_bound"] = r.median_ratio;
  j["worst_error_over_bound"] = std::isfinite(r.worst_ratio) ? nlohmann::json(r.worst_ratio) : nlohmann::json("inf");
  j["outputs"] = nlohmann::json::array();
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(x > 0 ? "inf" : "nan"); };
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
    e["worst_index"] = o.worst_flat < 0 ? nlohmann::json(nullptr) : nlohmann::json(unravel(o.shape, o.worst_flat));
    e["over_bound"] = o.over;
    e["branch_may_flip"] = o.flips;
    e["unbounded"] = o.unbounded;
    e["verdict"] = o.pass() ? "PASS" : "FAIL";
    e["error_over_bound_histogram"] = o.ratio_histogram;
    e["ulps_histogram"] = o.ulps_histogram;
    j["outputs"].push_back(e);
  }
  j["error_over_bound_bins"] = ratio_bin_labels();
  j["ulps_bins"] = ulps_bin_labels();
  return j.dump(2) + "\n";
}

std::string format_html(const CheckReport& r) {
  std::string s =
      "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>shlo check: " + html_escape(r.file) +
      "</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:2px 8px;"
      "border-bottom:1px solid #ddd;text-align:right}.PASS{color:#1e8449;font-weight:bold}.FAIL{color:#c0392b;font-weight:bold}"
      "section{margin-top:1.5em}</style></head><body>\n";
  s += "<h1>shlo check: " + html_escape(r.file) + "</h1>\n<p>Profile <b>" + html_escape(r.profile) + "</b>, " + std::to_string(r.replicas) +
       " replica(s). Verdict: <span class='" + (r.pass() ? "PASS'>PASS" : "FAIL'>FAIL") +
       "</span>. An element fails when it lies farther from the exact value than the sound bound on any float32 "
       "evaluation allows: that is never rounding.</p>\n<table><tr><th>output</th><th>replica</th><th>shape</th><th>max abs</th>"
       "<th>max rel</th><th>max ulps</th><th>median error/bound</th><th>worst error/bound</th><th>at</th><th>over bound</th>"
       "<th>branch may flip</th><th>verdict</th></tr>\n";
  for (const auto& o : r.outputs)
    s += "<tr><td>" + html_escape(o.name) + "</td><td>" + std::to_string(o.replica) + "</td><td>" + shape_text(o.shape) + "</td><td>" +
         fmt("%.3g", o.max_abs) + "</td><td>" + fmt("%.3g", o.max_rel) + "</td><td>" + fmt("%.3g", o.max_ulps) + "</td><td>" +
         fmt("%.3g", o.median_ratio) + "</td><td>" + fmt("%.4g", o.worst_ratio) + "</td><td>" + worst_at(o) + "</td><td>" +
         std::to_string(o.over) + "</td><td>" + std::to_string(o.flips) + "</td><td class='" + (o.pass() ? "PASS'>PASS" : "FAIL'>FAIL") +
         "</td></tr>\n";
  s += "</table>\n";
  for (const auto& o : r.outputs) {
    if (o.predicate) continue;
    s += "<section><h2>" + html_escape(o.name) + " (replica " + std::to_string(o.replica) + ")</h2>\n";
    s += svg_histogram(o.ratio_histogram, ratio_bin_labels(), "error / bound (elements per bin)", o.ratio_histogram.size() - 1);
    s += "\n" + svg_histogram(o.ulps_histogram, ulps_bin_labels(), "error in float32 ulps of the exact value", o.ulps_histogram.size()) +
         "\n</section>\n";
  }
  return s + "</body></html>\n";
}

}  // namespace shlo
