// The verdict on float32 numbers computed elsewhere (a GPU, another compiler): each output
// element against the bound analysis of the same program on the same inputs. An element
// fails only when it lies outside [exact - bound, exact + bound] for every point of the
// exact value's enclosure: a FAIL is never rounding.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ast/program.hpp"
#include "interp/bound/bound.hpp"
#include "interp/npy.hpp"

namespace shlo {

/// One element: where y lies against the value's enclosure and bound.
struct ElementVerdict {
  double error = 0;  // |y - midpoint of the exact enclosure|
  double ratio = 0;  // distance from y to the enclosure / bound (0 when inside it)
  double ulps = 0;   // error in float32 ulps of the exact value
  bool over = false; // outside the bound: impossible for a float evaluation under the profile
};
ElementVerdict judge_element(const BoundDomain& d, const BoundScalar& s, double y);

/// Log2 histograms: error/bound in bins  0 | (0, 2^-16] | (2^-16, 2^-15] ... (1/2, 1] | > 1,
/// ulps in bins  0 | (0, 1/2] | (1/2, 1] | (1, 2] ... (512, 1024] | > 1024.
std::vector<std::string> ratio_bin_labels();
std::vector<std::string> ulps_bin_labels();

struct OutputCheck {
  std::string name;  // the returned value, "%v2"
  int replica = 0;
  std::size_t index = 0;  // result index
  std::string file;
  Shape shape;
  bool predicate = false;
  std::int64_t elements = 0;
  double max_abs = 0, max_rel = 0, max_ulps = 0;
  double worst_ratio = 0, median_ratio = 0;
  std::int64_t worst_flat = -1;  // element of the worst ratio (-1: none)
  std::int64_t over = 0, flips = 0, unbounded = 0, nonfinite = 0;
  std::vector<std::int64_t> ratio_histogram, ulps_histogram;
  bool pass() const { return over == 0; }
};

struct CheckReport {
  std::string file, profile;
  int replicas = 1;
  double seconds = 0;  // the bound analysis
  std::vector<OutputCheck> outputs;
  double median_ratio = 0, worst_ratio = 0;  // over every float element of every output
  bool pass() const;
};

/// Runs the bound analysis of `m` on inputs[replica][argument] and judges
/// outputs[replica][result] (each must match the result's shape; f32 or f64 data, bool for
/// i1). Throws RunError for a program the analysis cannot run, std::invalid_argument for a
/// misshaped output (naming it).
CheckReport check_float_outputs(const Module& m, const FloatProfile& profile, const std::vector<std::vector<NpyArray>>& inputs,
                                const std::vector<std::vector<NpyArray>>& outputs, int replicas,
                                const std::function<void(const std::string&)>& progress = {});

/// The report as a table (one row per output), as JSON, and as a self-contained HTML page
/// with inline SVG histograms.
std::string format_table(const CheckReport& r);
std::string format_json(const CheckReport& r);
std::string format_html(const CheckReport& r);

}  // namespace shlo
