#include "interp/ops/common.hpp"

#include <ctime>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace shlo {

#ifdef _OPENMP
// Inside an active parallel region nested regions run on one thread (OpenMP's default), so an
// op called there (a convolution's per-image product) must not split its work into pieces
// that the one thread then runs one after another: a matmul split into row blocks copies
// each strip of its right operand once per block. omp_get_max_threads() would still say
// the outer count there.
int thread_count() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }
void set_thread_count(int n) { omp_set_num_threads(n < 1 ? 1 : n); }
#else
int thread_count() { return 1; }
void set_thread_count(int) {}
#endif

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

namespace {
thread_local int split_depth = 0;         // counting meters open on this thread
thread_local double split_seconds = 0;    // CPU time under the outermost counting meters
bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}
}  // namespace

SplitWork::SplitWork(bool splits) : counting_(splits && split_depth == 0 && !in_parallel_region()) {
  // Only a counting meter hides the ones inside it: a meter that does not split (a convolution
  // of too few images to split them) leaves its inner loops, which may split, to count.
  if (!counting_) return;
  start_ = thread_cpu_seconds();
  ++split_depth;
}

SplitWork::~SplitWork() {
  if (!counting_) return;
  --split_depth;
  split_seconds += thread_cpu_seconds() - start_;
}

double SplitWork::seconds() { return split_seconds; }

std::vector<std::int64_t> offsets_over(const Shape& shape, const std::vector<std::int64_t>& dims) {
  const auto strides = row_major_strides(shape);
  std::vector<std::int64_t> out = {0};
  for (auto d : dims) {
    std::vector<std::int64_t> next;
    next.reserve(out.size() * static_cast<std::size_t>(shape[static_cast<std::size_t>(d)]));
    for (auto o : out)
      for (std::int64_t i = 0; i < shape[static_cast<std::size_t>(d)]; ++i) next.push_back(o + i * strides[static_cast<std::size_t>(d)]);
    out.swap(next);
  }
  return out;
}

std::vector<std::int64_t> unravel(const Shape& shape, std::int64_t flat) {
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 0) {
      index[d] = flat % shape[d];
      flat /= shape[d];
    }
  }
  return index;
}

std::string index_string(const Shape& shape, std::int64_t flat) {
  const auto index = unravel(shape, flat);
  std::string s = "[";
  for (std::size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
  return s + "]";
}

namespace {

const Instruction& single_instruction(const Region& r, const char* what) {
  if (r.arguments.size() != 2 || r.body.size() != 1 || r.results.size() != 1 || r.results[0] != r.body[0].result ||
      r.body[0].operands.size() != 2 || r.body[0].operands[0] != r.arguments[0].first ||
      r.body[0].operands[1] != r.arguments[1].first)
    throw OpError(std::string("unsupported ") + what +
                  " region: the interpreter reads regions of one op applied to the two block arguments in order, "
                  "returned (as the printer writes them)");
  return r.body[0];
}

}  // namespace

Op region_binary_op(const Region& r, const char* what) {
  const Instruction& inst = single_instruction(r, what);
  switch (inst.op) {
    case Op::Add: case Op::Subtract: case Op::Multiply: case Op::Divide: case Op::Maximum: case Op::Minimum:
    case Op::And: case Op::Or: case Op::Xor:
      return inst.op;
    case Op::Negate: case Op::Abs: case Op::Exponential: case Op::Log:
    case Op::Sqrt: case Op::Rsqrt: case Op::Tanh: case Op::Logistic: case Op::Compare: case Op::Select:
    case Op::Convert: case Op::Constant: case Op::Iota: case Op::BroadcastInDim: case Op::Reshape:
    case Op::Transpose: case Op::Reverse: case Op::Slice: case Op::Pad: case Op::Concatenate:
    case Op::DotGeneral: case Op::Convolution: case Op::Reduce: case Op::ReduceWindow:
    case Op::SelectAndScatter: case Op::AllReduce: case Op::Not: case Op::Power: case Op::Remainder: case Op::Sign:
    case Op::Floor: case Op::Ceil: case Op::RoundNearestEven: case Op::RoundNearestAfz: case Op::Sine: case Op::Cosine:
    case Op::LogPlusOne: case Op::ExponentialMinusOne: case Op::Clamp: case Op::BitcastConvert: SHLO_CASES_INDEXING_OPS:
    case Op::Sort: case Op::While: case Op::If: case Op::Case:
      break;
  }
  throw OpError(std::string("unsupported ") + what + " region op stablehlo." + op_name(inst.op));
}

CompareDirection region_compare(const Region& r) {
  const Instruction& inst = single_instruction(r, "select");
  if (inst.op != Op::Compare) throw OpError("the select region must be one stablehlo.compare of its two arguments");
  return parse_compare_direction(inst.attributes.comparison_direction);
}

}  // namespace shlo

#include "interp/ops/movement.hpp"

namespace shlo::ops {

PredTensor pred_constant(const DenseLiteral& literal, const TensorType& type) {
  auto value = [](const std::string& text) -> Pred {
    if (text == "true" || text == "1") return 1;
    if (text == "false" || text == "0") return 0;
    throw OpError("an i1 constant must be true or false, found '" + text + "'");
  };
  if (literal.splat) return PredTensor(type.shape, value(literal.elements.at(0)));
  std::vector<Pred> values;
  for (const auto& e : literal.elements) values.push_back(value(e));
  return PredTensor(type.shape, std::move(values));
}

}  // namespace shlo::ops
