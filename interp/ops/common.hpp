// Shared pieces of the op kernels: values, index arithmetic, errors with an element index,
// and the scalar combiners that region bodies reduce to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "ast/program.hpp"
#include "interp/domain/domain.hpp"
#include "interp/tensor.hpp"

namespace shlo {

/// An i1 element: 0 or 1.
using Pred = std::uint8_t;
using PredTensor = Tensor<Pred>;

/// An integer element (i8 ... ui64): its bit pattern in 64 bits, sign-extended for signed
/// types and zero-extended for unsigned ones (num/integer_literal.hpp). The element type is
/// the instruction's; integer values are exact and the same in every domain.
using IntTensor = Tensor<std::uint64_t>;

/// A run-time value in domain D: a tensor of the domain's scalars, of predicates, or of integers.
template <class D>
using Value = std::variant<Tensor<typename D::Scalar>, PredTensor, IntTensor>;

/// A failure inside an op kernel, with the element index where it happened.
class OpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "[3, 4]" for the row-major multi-index of `flat` in `shape`.
std::string index_string(const Shape& shape, std::int64_t flat);
/// The multi-index of a flat row-major offset.
std::vector<std::int64_t> unravel(const Shape& shape, std::int64_t flat);

/// Calls f(flat) for every element, with errors located at the element.
template <class F>
void for_each_element(const Shape& shape, std::int64_t n, F&& f) {
  std::int64_t i = 0;
  try {
    for (; i < n; ++i) f(i);
  } catch (const DomainError& e) {
    throw OpError(std::string(e.what()) + " (at index " + index_string(shape, i) + ")");
  }
}

/// The threads that large ops split their output elements over (OpenMP; 1 when built without
/// it). Every element is still computed by one thread in its documented order, so results do
/// not depend on the count.
int thread_count();
/// Sets it (n >= 1); shlo's --threads. The default is every core.
void set_thread_count(int n);

/// CPU seconds the calling thread has used so far (CLOCK_THREAD_CPUTIME_ID).
double thread_cpu_seconds();

/// The serial-fraction meter: a SplitWork(true) in scope counts the calling thread's CPU time
/// as work that splits over the threads (or would, given two or more). With one thread,
/// `shlo run --timing` reports the rest of each op's CPU time as serial: the part that no
/// thread count speeds up. Meters inside a counting meter, or inside a parallel region, count
/// once; meters inside one that does not count still count.
class SplitWork {
 public:
  explicit SplitWork(bool splits);
  ~SplitWork();
  SplitWork(const SplitWork&) = delete;
  SplitWork& operator=(const SplitWork&) = delete;
  /// CPU seconds this thread has spent under a counting meter so far.
  static double seconds();

 private:
  bool counting_ = false;
  double start_ = 0;
};

/// Offsets (in elements of `shape`) of every row-major multi-index over `dims`, in order.
std::vector<std::int64_t> offsets_over(const Shape& shape, const std::vector<std::int64_t>& dims);

/// Calls f(i) for every element i < n like for_each_element, split over the threads when there
/// are at least `min_elements` (f(i) must write element i's output only). An error is the one
/// the serial loop would report: the least failing element's.
template <class F>
void parallel_for_elements(const Shape& shape, std::int64_t n, F&& f, std::int64_t min_elements = 1024) {
  const SplitWork meter(n >= min_elements);
  if (n < min_elements || thread_count() == 1) return for_each_element(shape, n, f);
  std::int64_t first_failing = n;
  std::exception_ptr error;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    try {
      f(i);
    } catch (...) {
#pragma omp critical(shlo_element_error)
      if (i < first_failing) {
        first_failing = i;
        error = std::current_exception();
      }
    }
  }
  if (!error) return;
  try {
    std::rethrow_exception(error);
  } catch (const DomainError& e) {
    throw OpError(std::string(e.what()) + " (at index " + index_string(shape, first_failing) + ")");
  }
}

/// Elements below which an elementwise op of scalar type S stays on one thread: a float op
/// costs nanoseconds, an arbitrary-precision one microseconds.
template <class S>
inline constexpr std::int64_t kElementwiseGrain = std::is_floating_point_v<S> ? (1 << 15) : 256;

/// Elements below which a copy or fill of element type E stays on one thread: a machine word
/// copies in a nanosecond, an arbitrary-precision number allocates.
template <class E>
inline constexpr std::int64_t kCopyGrain = std::is_trivially_copyable_v<E> ? (1 << 15) : 256;

/// Calls f(begin, end) on contiguous ranges that together cover [0, n) once, one range per
/// thread when n is at least `min_elements` (else f(0, n) on this thread). For copies, fills
/// and gathers whose elements are independent and cannot fail: each element is written by
/// exactly one call, so the result does not depend on the thread count.
template <class F>
void parallel_for_ranges(std::int64_t n, F&& f, std::int64_t min_elements) {
  if (n <= 0) return;
  const SplitWork meter(n >= min_elements && n > 1);
  const std::int64_t ranges = n < min_elements ? 1 : std::min<std::int64_t>(thread_count(), n);
  if (ranges == 1) return f(std::int64_t{0}, n);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < ranges; ++r) f(n * r / ranges, n * (r + 1) / ranges);
}

/// n elements that the caller assigns, every one, before any is read. float and double are
/// left indeterminate (Storage), so that the threads that assign them are the first to touch
/// their pages and no thread zero-fills them first; scalars with a placeholder state
/// (BigInterval) start as placeholders, so that the limbs are allocated by the threads that
/// assign them rather than here, one at a time; other types as in a vector.
template <class E>
Storage<E> storage_for_writing(std::int64_t n) {
  if constexpr (requires { E::placeholder(); })
    return Storage<E>(static_cast<std::size_t>(n), E::placeholder());
  else
    return Storage<E>(static_cast<std::size_t>(n));
}

/// Frees the limbs of a large tensor's multiple-precision elements on the threads, before the
/// vector's own (then cheap) destructor runs; for other types, nothing.
template <class E, class A>
void release_in_parallel(std::vector<E, A>& v) {
  if constexpr (requires(E& x) { x.release(); }) {
    const auto n = static_cast<std::int64_t>(v.size());
    if (n < kCopyGrain<E>) return;  // the destructor frees a small one
    parallel_for_ranges(n, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) v[static_cast<std::size_t>(i)].release();
    }, kCopyGrain<E>);
  } else {
    (void)v;
  }
}

/// n copies of `value`, written by the threads when n is large.
template <class E>
Storage<E> filled(std::int64_t n, const E& value) {
  const SplitWork meter(n >= kCopyGrain<E>);
  if (n < kCopyGrain<E> || thread_count() == 1) return Storage<E>(static_cast<std::size_t>(n), value);
  Storage<E> out = storage_for_writing<E>(n);
  parallel_for_ranges(n, [&](std::int64_t b, std::int64_t e) { std::fill(out.begin() + b, out.begin() + e, value); }, kCopyGrain<E>);
  return out;
}

/// Working storage whose every element is written before it is read (a convolution's patch
/// and packed-weight buffers): a Storage. float and double are left uninitialised, so that the
/// threads that write the buffer are the ones that first touch its pages, and no thread
/// zero-fills it first; scalars with a placeholder state start as placeholders
/// (storage_for_writing); other scalars (multiple precision) are copies of `init`. A large buffer of
/// multiple-precision scalars is freed by the threads.
template <class S>
class Scratch {
 public:
  Scratch(std::size_t n, const S& init) {
    if constexpr (kStorageFromPool<S>)
      storage_ = storage_for_writing<S>(static_cast<std::int64_t>(n));  // indeterminate (or placeholders) until written
    else
      storage_.assign(n, init);
  }
  ~Scratch() { release_in_parallel(storage_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  S* data() { return storage_.data(); }
  S& operator[](std::size_t i) { return storage_[i]; }
  S* begin() { return storage_.data(); }
  S* end() { return storage_.data() + storage_.size(); }

 private:
  Storage<S> storage_;
};

/// A copy of `in`, written by the threads when it is large.
template <class E>
Storage<E> copied(const Storage<E>& in) {
  const auto n = static_cast<std::int64_t>(in.size());
  const SplitWork meter(n >= kCopyGrain<E>);
  if (n < kCopyGrain<E> || thread_count() == 1) return in;
  Storage<E> out = storage_for_writing<E>(n);
  parallel_for_ranges(n, [&](std::int64_t b, std::int64_t e) { std::copy(in.begin() + b, in.begin() + e, out.begin() + b); }, kCopyGrain<E>);
  return out;
}

/// The scalar function a region computes, when it is one binary op of its two arguments in
/// order (`^bb0(%a, %b): %c = stablehlo.add %a, %b; return %c`): every region the printer
/// writes. Anything else is an OpError that says what is supported.
Op region_binary_op(const Region& r, const char* what);
/// The comparison a select region computes (`compare DIR, %a, %b; return`).
CompareDirection region_compare(const Region& r);

/// acc = op(acc, x) for the combiners reduce, reduce_window, select_and_scatter and all_reduce use.
template <class D>
typename D::Scalar combine(const D& d, Op op, const typename D::Scalar& acc, const typename D::Scalar& x) {
  switch (op) {
    case Op::Add:
      // A fold's sum may be evaluated in any order: domains that track that (bound) say so.
      if constexpr (requires { d.accumulate(acc, x); }) return d.accumulate(acc, x);
      else return d.add(acc, x);
    case Op::Subtract: if constexpr (requires { d.sub(acc, x); }) return d.sub(acc, x); else break;  // not on i1
    case Op::Multiply: return d.mul(acc, x);
    case Op::Divide: if constexpr (requires { d.div(acc, x); }) return d.div(acc, x); else break;
    case Op::Maximum: return d.max(acc, x);
    case Op::Minimum: return d.min(acc, x);
    // Integer and boolean folds (reduce with an and/or/xor body: JAX's all/any).
    case Op::And: if constexpr (requires { d.bit_and(acc, x); }) return d.bit_and(acc, x); else break;
    case Op::Or: if constexpr (requires { d.bit_or(acc, x); }) return d.bit_or(acc, x); else break;
    case Op::Xor: if constexpr (requires { d.bit_xor(acc, x); }) return d.bit_xor(acc, x); else break;
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
  throw OpError(std::string("unsupported combiner stablehlo.") + op_name(op) + " on " + d.name() + " values");
}

/// Decides a comparison; an undecidable one (interval enclosures that overlap) is an error.
template <class D>
bool decide(const D& d, CompareDirection dir, const typename D::Scalar& a, const typename D::Scalar& b) {
  const Tri t = d.compare(dir, a, b);
  if (t == Tri::Undecided)
    throw DomainError(d.name() + ": comparison " + to_string(dir) + " of " + d.to_string(a) + " and " + d.to_string(b) +
                      " is undecided (the enclosures overlap; try a higher precision)");
  return t == Tri::True;
}

}  // namespace shlo
