// shlo-oracle as a library: parse and verify StableHLO text, run it in an exact, certified or
// float domain on R replicas, check float32 numbers computed elsewhere against the sound and
// statistical bounds, lift text back to SHlo expressions and evaluate den. The one public
// header: it includes nothing of the project's internals, so that an installed package needs
// only this file, xtensor and Boost.Multiprecision's GMP rationals.
//
//   find_package(shlo_oracle REQUIRED)
//   target_link_libraries(app PRIVATE shlo_oracle::shlo_oracle)
//
// Errors are values: every call returns Expected<T>, holding either the result or an Error
// with the message the `shlo` command would print and, for text, file:line:column.
//
//   auto program = shlo_oracle::parse(text, "model.mlir");
//   if (!program) { std::cerr << program.error().message << "\n"; return 1; }
//   xt::xarray<float> x = {{1.0f, 2.0f}};
//   auto run = shlo_oracle::run(*program, {{x}}, "exact");        // one replica, one input
//   if (!run) { ... run.error().message ... }
//   const shlo_oracle::Output& y = run->outputs[0][0];             // replica 0, result 0
//   boost::multiprecision::mpq_rational first = y.exact[0];       // exact values, row-major
//
//   auto f32 = shlo_oracle::run(*program, {{x}}, "f32");
//   auto verdict = shlo_oracle::check(*program, {{x}}, {{f32->outputs[0][0].f32}}, "ieee");
//   if (verdict->verdict != shlo_oracle::Verdict::Pass) std::cout << verdict->table;
//
// examples/ holds a complete consumer project (CMake) built and run against the installed package.
#pragma once

#include <boost/multiprecision/gmp.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>
#include <xtensor/xarray.hpp>

namespace shlo {
struct Module;  // the project's program type (ast/program.hpp), kept out of this header
}

namespace shlo_oracle {

using Rational = boost::multiprecision::mpq_rational;

/// What went wrong, located where it can be: a parse or verify error has the file, line and
/// column of the text (line 0 when the file could not be read); a run error names the
/// instruction in its message; bad inputs name the argument.
struct Error {
  enum class Kind { Parse, BadInput, Run };
  Kind kind = Kind::BadInput;
  std::string message;  // the full text, "model.mlir:3:14: expected ..., found ..."
  std::string file;     // Parse only
  int line = 0, column = 0;
};

/// A result or an error (std::expected is C++23). `*e` and `e->` read the value, and throw
/// std::logic_error when there is none: test `if (e)` or `e.ok()` first.
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}            // NOLINT: implicit, as std::expected
  Expected(Error error) : v_(std::move(error)) {}        // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const { return ok() ? std::get<0>(v_) : throw_error(); }
  T& value() { return ok() ? std::get<0>(v_) : throw_error(); }
  const T& operator*() const { return value(); }
  T& operator*() { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  /// The error; an empty one when ok().
  const Error& error() const {
    static const Error none;
    return ok() ? none : std::get<1>(v_);
  }

 private:
  [[noreturn]] T& throw_error() const { throw std::logic_error("shlo_oracle: no value: " + std::get<1>(v_).message); }
  std::variant<T, Error> v_;
};

/// An argument or result of the entry function: its name ("%arg0", "%v12") and its type.
struct TensorInfo {
  std::string name;
  std::vector<std::size_t> shape;  // empty: a scalar
  std::string element;             // "f32", "f64", "i1", ...
  std::string type;                // "tensor<2x3xf32>"
};

/// A parsed and verified program. Cheap to copy (shared, immutable).
class Program {
 public:
  const std::string& file() const;
  std::string entry_name() const;  // the entry function, "@main"
  std::vector<TensorInfo> arguments() const;
  std::vector<TensorInfo> results() const;
  std::string print() const;  // the normalised text; print(parse(t)) == t for the printer's text
  const shlo::Module& module() const { return *module_; }
  explicit Program(std::shared_ptr<const shlo::Module> m) : module_(std::move(m)) {}

 private:
  std::shared_ptr<const shlo::Module> module_;
};

/// Parses and verifies StableHLO text; `file` names it in errors.
///   auto p = parse("func.func @main(...", "model.mlir");  // p.error().line, .column on failure
Expected<Program> parse(std::string_view text, const std::string& file = "<input>");
Expected<Program> parse_file(const std::string& path);

/// IEEE binary16 data as its bit patterns (NumPy's float16 viewed as uint16).
struct Float16Bits {
  xt::xarray<std::uint16_t> bits;
};
/// One input array. Float arguments take float data (f64 data only for f64 arguments, as the
/// command's .npy reader; f16 arguments also take Float16Bits); i1 arguments take bool data;
/// an integer argument takes the array of its own width and signedness (i32: std::int32_t,
/// ui8: std::uint8_t), never another.
using Array = std::variant<xt::xarray<float>, xt::xarray<double>, xt::xarray<bool>, xt::xarray<std::int8_t>,
                           xt::xarray<std::int16_t>, xt::xarray<std::int32_t>, xt::xarray<std::int64_t>, xt::xarray<std::uint8_t>,
                           xt::xarray<std::uint16_t>, xt::xarray<std::uint32_t>, xt::xarray<std::uint64_t>, Float16Bits>;
/// inputs[replica][argument]; a single replica's list is shared by every replica.
using Inputs = std::vector<std::vector<Array>>;

/// An enclosure [lo, hi] of a real value (interval:P): endpoints exact (dyadic rationals), or
/// infinite. The doubles round outward: lo_down <= lo, hi <= hi_up.
struct Enclosure {
  std::string lo, hi;      // exact decimals ("0.375", "-inf")
  Rational lo_q, hi_q;     // the same exactly, when finite (0 for an infinite endpoint)
  double lo_down = 0, hi_up = 0;
};

/// One result of one replica. Which fields are filled depends on the domain:
///   f32                 f32 (the run's float32 values, bit for bit as `shlo run -d f32`)
///   f64, mpfr:P         f64 (nearest doubles; the f64 run's own values)
///   exact               exact (rationals, row-major; +-inf as is_infinite), f64 (nearest)
///   interval:P          enclosures (row-major), f64 (midpoints, rounded to nearest)
///   any, an i1 result   predicate
///   any, an integer     integer (the values in the result's own dtype: exact in every domain)
/// `text` holds, for exact, interval and mpfr runs, each element as `shlo run --out` writes it
/// in result<i>.txt ("3/4", "[0.33, 0.34]").
struct Output {
  std::string name;
  std::vector<std::size_t> shape;
  xt::xarray<float> f32;
  xt::xarray<double> f64;
  xt::xarray<bool> predicate;
  std::vector<Rational> exact;
  std::vector<int> exact_infinity;  // per element of `exact`: 0 finite, +1 / -1 for +-inf
  std::vector<Enclosure> enclosures;
  std::vector<std::string> text;
  bool is_predicate = false;
  bool is_integer = false;
  Array integer;              // with is_integer: xt::xarray<std::int32_t> for i32, <std::uint8_t> for ui8, ...
  std::string element_type;   // as the text writes it: "f32", "f16", "i32", "ui8", "i1"
};

struct RunResult {
  std::string domain;  // "interval:256"
  int replicas = 1;
  std::vector<std::vector<Output>> outputs;  // [replica][result]
  double seconds = 0;
};

/// Runs the program in `domain` ("exact", "interval:P", "mpfr:P", "f64", "f32") on `replicas`
/// replicas; all_reduce folds each replica group in increasing replica id.
///   auto r = run(p, {{xt::xarray<float>{1, 2}}}, "interval:256", 2);
Expected<RunResult> run(const Program& p, const Inputs& inputs, const std::string& domain = "interval:256", int replicas = 1);

/// Verdicts of a float check; the numbers are `shlo check`'s exit statuses.
enum class Verdict { Pass = 0, Fail = 1, Improbable = 3, NoVerdict = 4 };
const char* to_string(Verdict v);  // "PASS", "FAIL", "IMPROBABLE", "NO VERDICT"

/// One row of the check table: one output of one replica.
struct CheckRow {
  std::string name;
  int replica = 0;
  std::int64_t elements = 0;
  double max_abs = 0, max_rel = 0, max_ulps = 0;
  double worst_ratio = 0;   // error / sound bound (over 1: FAIL)
  double worst_pratio = 0;  // error / statistical bound (over 1: IMPROBABLE)
  std::int64_t over = 0, improbable = 0, flips = 0, unbounded = 0;
  double improbable_probability = 1;
  std::int64_t statistical_only = 0;  // elements with no finite sound bound, judged by the statistical tier alone
  std::int64_t certain_nonfinite = 0;  // elements every float evaluation makes inf or NaN, judged on that value
  std::int64_t probable_nonfinite = 0;  // of those, the ones only but for an improbable event (another value: IMPROBABLE)
  std::int64_t nan_alternative = 0;     // NaN elements where a comparison upstream may take a branch that is NaN
  std::int64_t inf_alternative = 0;     // infinite elements where an overflow upstream may or may not happen (check's sampled tier)
  Verdict verdict = Verdict::Pass;
  std::string line;  // this row as `shlo check` prints it in its table
};

struct CheckResult {
  Verdict verdict = Verdict::Pass;  // the worst row
  std::vector<CheckRow> rows;
  std::vector<std::string> consistent_profiles;  // of ieee, tf32, bf16 (empty when no element was judged)
  /// The narrowest consistent profile under which the errors together are not unlikely (with
  /// `sampled`: `shlo check --sampled`'s test of all outputs together; without it, the narrowest
  /// consistent one); "" when none.
  std::string fitting_profile;
  std::string table, json;                       // as `shlo check` and `shlo check --json` print them
};

/// Checks float32 outputs[replica][result] (computed elsewhere) against the bound analysis of
/// the program on the same inputs, both tiers: sound (FAIL: impossible for any float32
/// evaluation under `profile`) and statistical (IMPROBABLE at failure probability `delta`).
/// Profiles: ieee, cuda, tf32, bf16.
///   auto c = check(p, inputs, {{gpu_result0, gpu_result1}}, "cuda");
Expected<CheckResult> check(const Program& p, const Inputs& inputs, const Inputs& outputs, const std::string& profile = "ieee",
                            int replicas = 1, double delta = 1e-9);
/// The same with allowances set by hand, as `shlo check --allow`: function (div sqrt rsqrt exp
/// log tanh logistic) -> the largest error of its float result against the exact value, in ulps
/// of the result (at least 0.5), for a library less accurate than the profile says. `sampled`:
/// also run the sampled statistical tier, as `shlo check --sampled` (docs/sampled_tier.md).
///   auto c = check(p, inputs, {{y}}, "ieee", 1, 1e-9, {{"exp", 2.5}, {"log", 4}});
Expected<CheckResult> check(const Program& p, const Inputs& inputs, const Inputs& outputs, const std::string& profile,
                            int replicas, double delta, const std::map<std::string, double>& allowances, bool sampled = false);

/// The program read back into SHlo expressions (skeletons: their values are the text's).
struct LiftResult {
  std::string render_json;  // as `shlo lift` writes it; `shlo emit` prints it back byte for byte
  int instructions = 0, as_nodes = 0, verbatim = 0;
  std::map<std::string, int> constructors;  // node counts
  std::string emitted;  // the render printed back as text
};
Expected<LiftResult> lift(const Program& p);

/// den(e) of an SHlo expression with values (JSON, as `shlo den` reads it: bare or {"expr": ...})
/// in `domain`: each element as text ("3/4", "[lo, hi]") and as the nearest double, with the
/// events where Lean's total value was used (x/0 = 0).
struct DenValues {
  std::vector<std::string> text;
  std::vector<double> nearest;
  std::vector<std::string> events;  // "div-by-zero at root/0 (softmaxDiv), index 3"
};
Expected<DenValues> den(const std::string& expression_json, const std::string& domain = "exact");

/// den of the lifted program on inputs (as run reads them): lift(p), then den of every
/// result's expression with its argument leaves taken from the inputs, held as the text
/// holds the result (B rows of a per-example value). The results come in the same forms as
/// run's (exact rationals, enclosures, floats); in exact, where the text means what its lift
/// says, they equal run(p, inputs, "exact") element for element. Domains: exact, interval:P,
/// f64, f32 (as `shlo agree`). A run error names the instruction the lift kept verbatim (den
/// needs every instruction in an SHlo node) or the node den cannot evaluate, with its line.
///   auto d = den(p, {{x, w, b}}, "exact");     // d->outputs[0][0].exact == run(...)->outputs[0][0].exact
Expected<RunResult> den(const Program& p, const Inputs& inputs, const std::string& domain = "exact", int replicas = 1);

/// The property catalogue for a time budget, as `shlo prop --time`: one row per property.
struct PropRow {
  std::string property;
  int runs = 0, passed = 0, failed = 0;
  std::int64_t discarded = 0;
  double seconds = 0;
  std::string saved_to;  // a failure's corpus folder
};
struct PropResult {
  std::vector<PropRow> rows;
  int failed = 0;
};
/// `only`: property names or families (text, skeleton, meaning, domains, theorem); empty: all.
/// A property that fails is a result (its row's `failed` and `saved_to`, and `failed` > 0),
/// not an error; an unknown name is a BadInput error.
///
/// The static library (shlo_oracle::shlo_oracle) runs the catalogue in this process. The
/// shared one (shlo_oracle::shlo_oracle_shared, libshlo_oracle.so) cannot hold RapidCheck
/// (Debian's archive of it is not position-independent): its prop() is prop_with_command on
/// $SHLO if set, else the `shlo` installed with the library (<prefix>/bin/shlo), else `shlo`
/// on PATH. The results are the same rows; a command that cannot start or crashes is a Run
/// error.
Expected<PropResult> prop(double seconds = 60, const std::vector<std::string>& only = {}, std::uint64_t seed = 1,
                          const std::string& corpus = "corpus");
/// The catalogue through a `shlo` command (a path, or a name on PATH): `command prop --json`
/// in a child process, its table read back. The Python module's prop() is this.
///   auto r = prop_with_command("/usr/local/bin/shlo", 5, {"text"});
Expected<PropResult> prop_with_command(const std::string& command, double seconds = 60, const std::vector<std::string>& only = {},
                                       std::uint64_t seed = 1, const std::string& corpus = "corpus");

}  // namespace shlo_oracle
