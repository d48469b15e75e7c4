// den against the text on a whole program: the program is lifted (ast/lift), run op by op
// (interp/run), and every lifted node's den is compared with the text's value of that node,
// on every replica.
//
// Node by node: a node's den is evaluated on the text's own values of its inputs (its
// children's results, the SSA values its name fields read, its literal strings), so a
// disagreement names the node where it arises rather than everything downstream of it. In
// exact arithmetic this is the same statement as comparing whole expressions: den(f(g)) =
// den_f(den(g)), and den(g) equals the text's value of g by the check one level down.
// Verbatim lines (text the lifter did not turn into nodes) are simply run as text; their
// values feed the nodes that read them.
//
// The text types activations as B rows of the per-example width (SHLO_SEMANTICS.md 1.4), so
// a node is read against its text value in one of three ways, chosen from the sizes:
//   whole      the text's value has den's length (batched and parameter-shaped nodes);
//   per row    it has B times den's length: row b of the text is den on row b of every
//              batched input (per-example activations);
//   batch sum  it has den's length but the inputs are batched: the text sums per-example
//              gradients over the rows (weightGrad, weightSgd, ...), so it must equal
//              den_0 + sum_b (den_b - den_0), den_0 being den at a zero cotangent.
//
// Comparisons: exact equality in `exact`; overlapping enclosures in `interval:P` (den reads
// the text's enclosures themselves, through DenBindings); in f64 and f32, |den - text| within
// gamma_K (|den| + |text| + M) per element, gamma_K = K u / (1 - K u) with K the number of
// scalars the node reads (plus 2 B for a batch sum, plus 16), and M den's magnitude: den
// evaluated in the magnitude domain (interp/domain/magnitude.hpp), a running error bound that
// is den on the absolute values of the inputs for sums of products (the sum of the terms'
// magnitudes) and follows quotients, roots and exponentials of cancelled values beyond them;
// for a batch sum, the sum of |den_b|. The same form as the per-op allowance of sums in
// oracle/float_allowance.hpp, applied to a node's whole formula and to both evaluations.
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "ast/expr.hpp"
#include "ast/program.hpp"
#include "interp/domain/exact.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/domain/interval.hpp"
#include "interp/ops/common.hpp"
#include "interp/run.hpp"

namespace shlo {

enum class BatchReading { Whole, PerRow, BatchSum };
const char* to_string(BatchReading r);  // "whole", "per row", "batch sum"

/// One lifted node on one replica.
struct NodeAgreement {
  std::string result;       // the text's name of the node's value, "%v12"
  std::string constructor;  // "weightSgd"
  int line = 0;             // where the text defines `result`
  int replica = 0;
  BatchReading reading = BatchReading::Whole;
  bool compared = false;    // false: not comparable, `why_not` says why
  bool agree = true;
  std::int64_t elements = 0;
  double max_difference = 0;  // largest |den - text| (float domains)
  std::string why_not;
  std::string detail;  // the first differing element: index, den, text (and the allowance)
};

/// One returned value on one replica.
struct OutputAgreement {
  int replica = 0;
  std::string name;
  TensorType type;
  std::string constructor;  // empty when a verbatim line or an argument gives the value
  std::string verdict;      // PASS, FAIL, TEXT (no node gives it), N/C (not comparable)
  std::string detail;
};

struct ProgramAgreement {
  std::string file, domain;
  int replicas = 1;
  std::int64_t batch = 1;
  int instructions = 0, in_nodes = 0, verbatim = 0;  // from the lift
  std::vector<NodeAgreement> nodes;                  // every node on every replica, in text order
  std::vector<OutputAgreement> outputs;
  std::int64_t compared = 0, not_comparable = 0, elements = 0, failed = 0;
  std::size_t peak_live_bytes = 0;  // the run's largest total of live values (scalar storage)
  /// The first disagreeing node in text order (nullptr when none).
  const NodeAgreement* first_failure() const;
  /// No disagreement, and at least one value compared.
  bool pass() const { return failed == 0 && compared > 0; }
};

/// The domains agree runs in. mpfr:P is not one: a point value rounded at P bits says less
/// than interval:P, whose enclosures are certain, and would need its own allowance.
template <class D>
inline constexpr bool kAgreeDomain = std::is_same_v<D, ExactDomain> || std::is_same_v<D, F64Domain> || std::is_same_v<D, F32Domain> ||
                                     std::is_same_v<D, IntervalDomain>;

/// Whether the shape parameter `nat` of a row enters anything den reads from the text: the
/// result's or a child's length, or the length of a real field that the text gives (a name
/// field's value or a literal). A parameter the text does not print (template_prints is false;
/// the lift sets it to 0) that enters none of them sizes only fields no text gives
/// (convBiasSgd's ic, kH, kW: its kernel and input), which agree fills with zeros; agree then
/// evaluates den with it set to 1. Otherwise the node is not comparable. A 0 the text prints
/// (headSliceF's head 0) is a value like any other.
bool den_reads_parameter(const CtorSpec& spec, const std::string& nat);

/// Lifts `m`, runs it in d on inputs[replica][argument] and judges every lifted node. Throws
/// RunError when the text cannot run in d (an irrational value in `exact`, say).
/// `run_instead` (a control for testing the tester): run this text, with the same names,
/// against the lift of `m`; a text with one constant or one operand changed must then fail.
/// `progress`, when given, is called before each instruction of the run, with the nodes judged
/// and disagreeing so far (a run of a network's train step takes many minutes).
struct AgreeProgress {
  RunProgress run;
  std::int64_t judged = 0, failed = 0;
};
template <Domain D>
ProgramAgreement agree_program(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, int replicas,
                               const Module* run_instead = nullptr, const std::function<void(const AgreeProgress&)>& progress = {});

/// den of the lifted program on inputs[replica][argument] (the text's types, as run reads
/// them): every result as den gives it, shaped as the text holds it. Each node is evaluated
/// as agree_program reads it (whole, per row, batch sum), on den's own values of its inputs
/// (the arguments and the nodes before it), so a result is den of its whole expression.
/// Throws RunError (located) when the lift kept an instruction verbatim (naming it) or den
/// cannot evaluate a node (naming the node and its line).
template <Domain D>
std::vector<std::vector<Value<D>>> den_program(const Module& m, const D& d, std::vector<std::vector<Value<D>>> inputs, int replicas);

/// A table for a person: one row per output and replica, the counts, and the first
/// disagreement with its line.
std::string format_agreement(const ProgramAgreement& a);

}  // namespace shlo
