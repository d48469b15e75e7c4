// The verdict on float32 numbers computed elsewhere (a GPU, another compiler): each output
// element against the bound analysis of the same program on the same inputs, in two tiers.
//   sound:        an element FAILs only when it lies outside [exact - bound, exact + bound]
//                 for every point of the exact value's enclosure (or between the two
//                 branches of a select that may flip): a FAIL is never rounding.
//   statistical:  an element is IMPROBABLE when it lies outside the statistical bound, which
//                 holds with probability at least 1 - delta for the whole check under the
//                 model of rounding errors as mean-zero random variables.
// An element whose sound bound is infinite (its float evaluation may overflow) gets NO
// VERDICT unless the statistical tier finds it improbable: it is never a PASS.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ast/program.hpp"
#include "interp/bound/bound.hpp"
#include "interp/npy.hpp"
#include "oracle/sampled_aggregate.hpp"

namespace shlo {

/// Verdicts, most severe first where they combine; the numbers are `shlo check`'s exit statuses
/// (2 is bad input).
enum class Verdict { Pass = 0, Fail = 1, Improbable = 3, NoVerdict = 4 };
const char* verdict_name(Verdict v);  // "PASS", "FAIL", "IMPROBABLE", "NO VERDICT"
/// The more severe of two: FAIL, then IMPROBABLE, then NO VERDICT, then PASS.
Verdict worse(Verdict a, Verdict b);

/// One element: where y lies against the value's enclosure and its two bounds.
struct ElementVerdict {
  double error = 0;   // |y - midpoint of the exact enclosure|
  double ratio = 0;   // distance from y to the enclosure / bound (0 when inside it)
  double pratio = 0;  // the same over the statistical bound
  double ulps = 0;    // error in float32 ulps of the exact value
  bool over = false;        // outside the sound bound: impossible for a float evaluation under the profile
  bool improbable = false;  // inside the sound bound, outside the statistical one
  bool unbounded = false;   // both bounds are infinite (the float evaluation may overflow): no verdict
  /// The sound bound is infinite, the statistical one finite and not exceeded: a PASS that rests
  /// on the statistical tier alone (never under tf32 or bf16: judge_element says why).
  bool statistical_only = false;
  /// Every float evaluation gives an infinity or NaN here (interp/bound/bound.hpp, "certain
  /// non-finite values"; or every one but for an improbable event, "probable non-finite values":
  /// then a different y is improbable, not over): y must be that value.
  bool certain_nonfinite = false;
  /// ... decided by a statistical tier (the analysis' or the sampled one's): every evaluation but
  /// for an improbable event.
  bool probable_nonfinite = false;
  /// y is NaN, one of the element's values (interp/bound/bound.hpp, "values that may be NaN": a
  /// comparison upstream may take a branch that is NaN in every evaluation).
  bool nan_alternative = false;
  /// y is +inf or -inf, one of the element's values in the sampled tier (interp/sampled/sampled.hpp,
  /// "Alternatives": an overflow upstream that may or may not happen).
  bool inf_alternative = false;
  Verdict verdict() const;
};
/// The sampled tier's judgement of one element (interp/sampled): |y - value| <= bound but for an
/// improbable event, value its double reference; an infinite bound says nothing.
struct SampledElement {
  double value = 0, bound = std::numeric_limits<double>::infinity();
  bool may_nan = false;  // NaN is one of its values (a branch that is NaN in every evaluation)
  std::uint8_t may_inf = 0;  // +inf (bit 1), -inf (bit 2) is one of its values (an overflow that may happen)
  // For the test of all outputs together (oracle/sampled_aggregate.hpp): sigma_hat (0 where the
  // element is not in it) and the sketch's share of the bound, Q |sketch|_(k).
  double sigma_hat = 0, rest = 0;
};
/// The statistical tier calls y IMPROBABLE when it lies outside the analysis' statistical bound
/// or outside the sampled one.
ElementVerdict judge_element(const BoundDomain& d, const BoundScalar& s, double y, SampledElement sampled = {});

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
  double worst_ratio = 0, median_ratio = 0;    // error / sound bound
  double worst_pratio = 0, median_pratio = 0;  // error / statistical bound
  std::int64_t worst_flat = -1, worst_pflat = -1;  // elements of the worst ratios (-1: none)
  std::int64_t over = 0, improbable = 0, flips = 0, unbounded = 0, nonfinite = 0;
  std::int64_t statistical_only = 0;  // elements judged by the statistical tier alone (ElementVerdict)
  std::int64_t certain_nonfinite = 0;  // elements that are inf or NaN in every float evaluation (ElementVerdict)
  std::int64_t probable_nonfinite = 0;  // of those, the ones decided by the statistical tier (but for an improbable event)
  std::int64_t nan_alternative = 0;     // NaN where a comparison upstream may take a branch that is NaN (ElementVerdict)
  std::int64_t inf_alternative = 0;     // +-inf where an overflow upstream may or may not happen (ElementVerdict)
  /// IMPROBABLE: the probability that rounding alone put every improbable element where it is
  /// (each needs its own bound to have failed: the smallest of their failure probabilities).
  double improbable_probability = 1;
  /// NO VERDICT: the first element with an infinite bound, its exact value and the float's.
  std::int64_t first_unbounded_flat = -1;
  double unbounded_exact = 0, unbounded_float = 0;
  std::vector<std::int64_t> ratio_histogram, pratio_histogram, ulps_histogram;
  Verdict verdict() const;
  bool pass() const { return verdict() == Verdict::Pass; }
};

struct CheckOptions {
  /// The statistical tier's failure probability for the whole check.
  double delta = 1e-9;
  /// When the outputs are not consistent with the profile, try the wider matmul profiles
  /// (tf32, bf16: one more analysis each) to say which they are consistent with.
  bool find_consistent_profiles = true;
  /// Also run the sampled tier (interp/sampled/sampled.hpp: P tangent passes, every correlation
  /// kept): an element outside either statistical bound is then IMPROBABLE, the failure
  /// probability delta split evenly between the two.
  bool sampled = false;
  /// The memory the sampled tier may take (0: the machine's available memory); where its live
  /// values would take more, it does not run and says so (CheckReport::sampled_error).
  std::uint64_t sampled_memory = 0;
};

struct CheckReport {
  std::string file, profile;
  std::string allowances;  // the profile's allowances set by hand, as allowances_text says them ("" when none)
  int replicas = 1;
  double seconds = 0;  // the bound analysis
  std::vector<OutputCheck> outputs;
  double median_ratio = 0, worst_ratio = 0;    // over every float element of every output
  double median_pratio = 0, worst_pratio = 0;
  // The statistical tier: lambda, its events (at most `events`, each failing with probability
  // at most event_risk), and the whole check's failure probability delta.
  double delta = 0, lambda = 0, events = 0, event_risk = 0;
  /// The sampled tier (CheckOptions::sampled): whether it ran, its factors K and Q (the verdict's
  /// bound is K sigma_hat + Q |sketch|_(k)), its seconds, and why it said nothing ("" when it judged).
  bool sampled = false;
  double sampled_factor = 0, sampled_sketch_factor = 0, sampled_seconds = 0;
  std::string sampled_error;
  /// The first instruction whose result had an infinite bound ("" when none did).
  std::string first_unbounded;
  /// Profiles among ieee, tf32, bf16 (or the one checked, if another) that the outputs are
  /// consistent with (some element judged, none FAIL or IMPROBABLE); empty when none of those
  /// tried, or when no element was judged (every element's bounds infinite).
  std::vector<std::string> consistent_profiles;
  /// Whether profiles wider than the checked one were tried (check_float_output_sets tries none:
  /// its consistent_profiles holds at most the checked one).
  bool wider_profiles_tried = true;
  /// With the sampled tier: all outputs together under the checked profile's model
  /// (oracle/sampled_aggregate.hpp), a statement at kAggregateLevel that changes no verdict.
  AggregateFit aggregate;
  /// The same for each consistent profile wider than the checked one that was tried.
  struct ProfileFit {
    std::string profile;
    AggregateFit fit;
  };
  std::vector<ProfileFit> wider_fits;
  /// The narrowest consistent profile under which the errors together are not unlikely ("" when
  /// none; without the sampled tier, the narrowest consistent one).
  std::string fitting_profile;
  Verdict verdict() const;
  bool pass() const { return verdict() == Verdict::Pass; }
};

/// The elements with a finite bound in some tier, i.e. judged (not NO VERDICT for an infinite bound).
std::int64_t judged_elements(const std::vector<OutputCheck>& outputs);

/// A bound on the statistical events of a check of `m`: the uses of a statistical bound as a
/// plain one (each scalar an instruction or its region makes may use one) and the verdicts.
double sum_events(const Module& m, int replicas);

/// Runs the bound analysis of `m` on inputs[replica][argument] and judges
/// outputs[replica][result] (each must match the result's shape; f32 or f64 data, bool for
/// i1). Throws RunError for a program the analysis cannot run, std::invalid_argument for a
/// misshaped output or a NaN input (naming it).
CheckReport check_float_outputs(const Module& m, const FloatProfile& profile, const std::vector<std::vector<NpyArray>>& inputs,
                                const std::vector<std::vector<NpyArray>>& outputs, int replicas,
                                const std::function<void(const std::string&)>& progress = {}, const CheckOptions& options = {});

/// The same check of several output sets of one program on the same inputs, with one bound
/// analysis for all of them (and no search of wider profiles: each report's consistent_profiles
/// holds the checked one where the outputs are consistent with it): e.g. one program evaluated
/// in several summation orders.
std::vector<CheckReport> check_float_output_sets(const Module& m, const FloatProfile& profile,
                                                 const std::vector<std::vector<NpyArray>>& inputs,
                                                 const std::vector<std::vector<std::vector<NpyArray>>>& output_sets, int replicas,
                                                 const CheckOptions& options = {});

/// The report as a table (one row per output), as JSON, and as a self-contained HTML page
/// with inline SVG histograms.
std::string format_table(const CheckReport& r);
/// The table's column header and one output's row (each a line): format_table is the header,
/// then one row per output; the library gives each CheckRow its row through these.
std::string format_table_header();
std::string format_table_row(const OutputCheck& o);
std::string format_json(const CheckReport& r);
std::string format_html(const CheckReport& r);

}  // namespace shlo
