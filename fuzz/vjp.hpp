// The VJP property family (issues 11 and 12): every backward constructor is the
// transpose-Jacobian product of its forward constructor (the Lean project's `*_has_vjp`
// theorems). For a drawn backward node with cotangent dy (its child) and a direction v,
//     <den(back)(dy), v>  ==  <dy, J_forward v>,
// where J v is computed by an independent route: den of the forward over dual numbers
// (interp/domain/dual.hpp), so no derivative of ours is written per constructor. Exact where
// both sides are rational; where they are not (exp, sqrt, rsqrt, tanh), the same identity in
// interval:128, where the two enclosures must overlap and each be narrow (relative width below
// 2^-80) for the case to count.
//
// The pairs come from fuzz/vjp_pairs.def alone (its header defines the columns); a row added
// there is checked with no other line of code.
#pragma once

#include <string>
#include <vector>

#include "fuzz/property.hpp"

namespace shlo::fuzz {

/// One line of fuzz/vjp_pairs.def, names resolved to the registry's ("batchOp/relu").
struct VjpPair {
  std::string backward, forward;
  std::string wrt;    // "" for the forward's child, else one of its real fields
  std::string saved;  // the backward's field holding the forward's child value, or ""
};

/// The table, in file order.
const std::vector<VjpPair>& vjp_pairs();
/// What is wrong with a line (unknown constructor, a wrt or saved field its row lacks, a
/// forward that is not unary); empty when nothing.
std::string vjp_pair_problem(const VjpPair& pair);

/// One case of one line: the backward node (child: the operand dy; saved field: the point),
/// the forward node and the direction v in the instance's data.
rc::Gen<Instance> gen_vjp_case(const VjpPair& pair);
/// One case of a line drawn uniformly from the table.
rc::Gen<Instance> gen_vjp_case();

/// How the check computes the backward side: as den says, or deliberately wrong (the control):
/// den of the backward at the other phase (its saved point negated) applied to the cotangent
/// in reverse order (a transpose missing); or den of the backward times 2 (a backward off by a
/// constant factor, which a check of shapes or signs alone would pass).
enum class VjpSide { Den, WrongPhaseAndTranspose, Doubled };
Verdict check_vjp(const Instance& inst, VjpSide side = VjpSide::Den);

/// A fault hook for the runner's tests (as ast/emit's g_fault_allreduce_divisor_offset): when
/// true, the check dies by SIGSEGV, as a den that reads through a transposed index may.
extern bool g_fault_vjp_crash;

/// The family's properties for the catalogue: "vjp.transpose_jacobian".
std::vector<Property> vjp_properties();

}  // namespace shlo::fuzz
