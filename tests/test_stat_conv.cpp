// TF32 and bf16 on convolutions and train steps: outputs computed with every convolution's and
// dot_general's operands rounded to TF32 (10 stored mantissa bits) or bf16 (7), by routes
// independent of the bound analysis (tests/stat_support.hpp: a plain loop, or the f32 run of
// the text with the rounding written into it), are IMPROBABLE or FAIL under the ieee profile,
// PASS under their own, and are consistent with exactly the profiles that hold. Draws whose
// float32 evaluation may overflow are counted, not judged. linear_train_step runs at full
// size (a third of a second per draw): its TF32 outputs with inputs in [-1, 1) passed under
// ieee (0.29 of the statistical bound) until the tier kept the softmax's random parts
// (interp/bound/bound.hpp; docs/measurements.md, "What each tier of `shlo check` catches").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

#include "ast/mlir_parse.hpp"
#include "interp/run.hpp"
#include "oracle/float_check.hpp"
#include "tests/stat_support.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

const char* const kProfiles[] = {"ieee", "tf32", "bf16"};
const int kOperandBits[] = {10, 7, 23};  // the outputs judged: TF32, bf16, float32 itself
const char* const kOutputNames[] = {"tf32", "bf16", "f32"};

// A program's outputs on `in` with matmul operands reduced to `bits` (23: not reduced).
using Route = std::function<Arrays(const Arrays& in, int bits)>;

Route text_route(const std::string& text) {
  return [text](const Arrays& in, int bits) { return f32_outputs(with_rounded_operands(text, bits), in); };
}

// What the check said of one draw: verdicts and worst error / statistical bound per profile
// (ieee, tf32, bf16) and outputs (tf32, bf16, f32), one bound analysis per profile.
struct Draw {
  Verdict verdict[3][3];
  double pratio[3][3];
  // Every judged element of the float32 outputs under ieee is an inf or NaN that every float
  // evaluation gives (an overflow in the program itself): no profile can be told apart there.
  bool only_certain_nonfinite = false;
  // The TF32 outputs are the float32 outputs bit for bit (NaN where they are NaN): where the
  // softmax overflows in every evaluation and the finite elements do not depend on a matmul
  // (a weight whose gradient is exactly 0), no check can tell the two apart.
  bool tf32_is_f32 = false;
  // The profiles whose verdict on outputs o is PASS, narrowest first.
  std::vector<std::string> consistent(int o) const {
    std::vector<std::string> out;
    for (int p = 0; p < 3; ++p)
      if (verdict[p][o] == Verdict::Pass) out.push_back(kProfiles[p]);
    return out;
  }
};

// Whether two sets of float32 outputs hold the same bits in every element.
bool same_bits(const Arrays& a, const Arrays& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!test::same_bits(data(a[i]), data(b[i]))) return false;
  }
  return true;
}

Draw judge_draw(const Module& m, const Arrays& in, const Route& route) {
  std::vector<std::vector<Arrays>> sets;
  for (int bits : kOperandBits) sets.push_back({route(in, bits)});
  Draw d{};
  d.tf32_is_f32 = same_bits(sets[0][0], sets[2][0]);
  for (int p = 0; p < 3; ++p) {
    const auto reports = check_float_output_sets(m, float_profile(kProfiles[p]), {in}, sets, 1);
    for (int o = 0; o < 3; ++o) {
      d.verdict[p][o] = reports[static_cast<std::size_t>(o)].verdict();
      d.pratio[p][o] = reports[static_cast<std::size_t>(o)].worst_pratio;
    }
    if (p == 0) {
      std::int64_t certain = 0;
      for (const auto& out : reports[2].outputs) certain += out.certain_nonfinite;
      d.only_certain_nonfinite = certain > 0 && certain == judged_elements(reports[2].outputs);
    }
  }
  return d;
}

// Over the draws: the narrowest margin by which TF32 and bf16 outputs were caught under ieee
// (their worst error over the statistical bound), the widest honest ratio under each own
// profile, and how often bf16 outputs also passed as TF32. Draws are left out where even the
// float32 outputs have NO VERDICT under ieee, or are judged only as infinities or NaN that every
// float evaluation gives (`overflowed`: the float evaluation may or must overflow, as the train
// steps' softmax does with inputs in [-1, 1), or an Adam step's first float32 step
// overflowed), from the profile checks where a reduced profile's wider operands reach an
// overflow (`wide_overflowed`: NO VERDICT there), and where the uniform draw leaves the
// program's domain (`outside_domain`: the analysis stops with an error; an Adam step's state,
// which would, is a real run's: adam_second_step).
struct Figures {
  double tf32_caught_at = INFINITY, bf16_caught_at = INFINITY, own_worst = 0;
  int draws = 0, overflowed = 0, wide_overflowed = 0, outside_domain = 0, bf16_passing_tf32 = 0, tf32_indistinguishable = 0;
};

// The printer's Adam steps take each parameter P with its first and second moments, named P + "m"
// and P + "v", the learning rate and the two bias corrections as scalar arguments (%lr, %bc1,
// %bc2: the betas, epsilon and the weight decay are constants of the text), and return the updated
// parameters, then the first moments, then the second, in the order of their arguments. A uniform
// draw of that state is nothing a run ever holds: second moments of both signs leave the sqrt's
// domain, and drawn near 0 beside epsilon 1e-8, sqrt(v) + eps may reach 0 under both bounds. So
// the state is the one a real run has at its second step: the program's first step, run in
// float32 on the same draw from m = v = 0 with lr = 1e-3, bc1 = 1 - 0.9 and bc2 = 1 - 0.999,
// leaves the parameters and moments that become the inputs, with bc1 = 1 - 0.9^2 and
// bc2 = 1 - 0.999^2. The first step's outputs are checked to be where the order above puts them
// (each v = 0.001 g^2 and m = 0.1 g, so m^2 = 10 v; each parameter moved by about lr at most).
// Returns the number of parameters (0: not an Adam step, `in` unchanged; -1: the first step's
// float32 run overflowed, as the train steps' softmax may with inputs in [-1, 1)).
int adam_second_step(const Module& m, const Route& route, Arrays& in) {
  const auto& args = m.function().arguments;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < args.size(); ++i) index[args[i].name] = i;
  std::vector<std::size_t> parameters, firsts, seconds;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& name = args[i].name;
    if (index.count(name + "m") && index.count(name + "v")) {
      parameters.push_back(i);
      firsts.push_back(index[name + "m"]);
      seconds.push_back(index[name + "v"]);
    }
  }
  if (parameters.empty()) return 0;
  // The printer's momentum step has the same slots (P, Pm, Pv, bc1, bc2) and returns its unused
  // first moments as they came: not an Adam step.
  for (const auto& r : m.function().return_values)
    if (index.count(r)) return 0;
  auto scalar = [&](const std::string& name) -> float& {  // argument names keep their '%'
    if (!index.count(name) || !args[index[name]].type.shape.empty())
      throw std::logic_error("an Adam step without the scalar argument " + name);
    return std::get<std::vector<float>>(in[index[name]].data)[0];
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& name = args[i].name;
    if (args[i].type.shape.empty() && name != "%lr" && name != "%bc1" && name != "%bc2")
      throw std::logic_error("an Adam step with an unknown scalar argument " + name);
  }
  // The first step.
  for (std::size_t k = 0; k < parameters.size(); ++k)
    for (std::size_t i : {firsts[k], seconds[k]})
      std::fill(std::get<std::vector<float>>(in[i].data).begin(), std::get<std::vector<float>>(in[i].data).end(), 0.0f);
  scalar("%lr") = 1e-3f;
  scalar("%bc1") = 0.1f;
  scalar("%bc2") = 0.001f;
  const Arrays out = route(in, 23);
  const std::size_t n = parameters.size();
  if (out.size() < 3 * n) throw std::logic_error("an Adam step with fewer outputs than its parameters and moments");
  for (std::size_t k = 0; k < 3 * n; ++k)
    for (float x : data(out[k]))
      if (!std::isfinite(x)) return -1;
  for (std::size_t k = 0; k < n; ++k) {
    const std::vector<float>& p = data(in[parameters[k]]), &p1 = data(out[k]), &m1 = data(out[n + k]), &v1 = data(out[2 * n + k]);
    if (p1.size() != p.size() || m1.size() != p.size() || v1.size() != p.size())
      throw std::logic_error("an Adam step whose outputs are not its parameters and moments in order: " +
                             args[parameters[k]].name);
    for (std::size_t j = 0; j < p.size(); ++j) {
      const double mm = static_cast<double>(m1[j]) * m1[j], ten_v = 10.0 * v1[j];
      if (v1[j] < 0 || std::fabs(mm - ten_v) > 1e-5 * ten_v + 1e-35 ||
          std::fabs(static_cast<double>(p1[j]) - p[j]) > 2e-3 * (1 + std::fabs(p[j])))
        throw std::logic_error("an Adam step whose outputs are not its parameters and moments in order: " +
                               args[parameters[k]].name);
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    in[parameters[k]] = out[k];
    in[firsts[k]] = out[n + k];
    in[seconds[k]] = out[2 * n + k];
  }
  scalar("%bc1") = 0.19f;
  scalar("%bc2") = 0.001999f;
  return static_cast<int>(n);
}

// With SHLO_STAT_SAVE=DIR, a draw's inputs and its three outputs (TF32, bf16, float32) are
// written as `shlo run` writes them, DIR/<program>_<lo>_<hi>_seed<s>/{inputs,tf32,bf16,f32},
// so that `shlo check` can say which op a NO VERDICT stopped at.
void save_draw(const std::string& name, const Module& m, const Range& range, std::uint64_t seed, const Arrays& in,
               const Route& route) {
  const char* dir = std::getenv("SHLO_STAT_SAVE");
  if (!dir) return;
  std::ostringstream stem;
  stem << dir << "/" << name << "_" << range.lo << "_" << range.hi << "_seed" << seed;
  const std::filesystem::path base(stem.str());
  std::filesystem::create_directories(base / "inputs");
  const auto& args = m.function().arguments;
  for (std::size_t i = 0; i < in.size(); ++i) write_npy((base / "inputs" / (args[i].name.substr(1) + ".npy")).string(), in[i]);
  for (int o = 0; o < 3; ++o) {
    const Arrays out = route(in, kOperandBits[o]);
    std::filesystem::create_directories(base / kOutputNames[o]);
    for (std::size_t i = 0; i < out.size(); ++i)
      write_npy((base / kOutputNames[o] / ("result" + std::to_string(i) + ".npy")).string(), out[i]);
  }
}

// Every draw (3 ranges x `seeds`) of `name`: TF32 and bf16 outputs IMPROBABLE or FAIL under
// ieee and never under their own profile; where no profile is NO VERDICT, TF32 outputs PASS
// under tf32 and bf16 and are consistent with exactly {tf32, bf16}, bf16 outputs PASS under
// bf16 and are consistent with bf16 and not ieee, float32 with all three. With `reported`,
// the report's own consistent_profiles (check_float_outputs, which searches the wider
// profiles itself) is checked too on every draw.
Figures detection_sweep(const std::string& name, const Module& m, const Route& route, const std::vector<std::uint64_t>& seeds,
                        bool reported) {
  Figures f;
  for (const Range range : kRanges)
    for (std::uint64_t seed : seeds) {
      Arrays in = random_inputs(m, seed, range.lo, range.hi);
      ++f.draws;
      std::ostringstream draw;
      draw << name << " inputs in [" << range.lo << ", " << range.hi << "), seed " << seed;
      if (adam_second_step(m, route, in) < 0) {
        WARN(draw.str() << ": the first Adam step overflowed in float32");
        ++f.overflowed;
        continue;
      }
      save_draw(name.substr(0, name.find(' ')), m, range, seed, in, route);
      Draw d{};
      try {
        d = judge_draw(m, in, route);
      } catch (const RunError& e) {
        WARN(draw.str() << ": " << e.what());
        ++f.outside_domain;
        continue;
      }
      INFO(draw.str());
      if (d.verdict[0][2] == Verdict::NoVerdict) {
        WARN(draw.str() << ": float32 outputs NO VERDICT under ieee");
        ++f.overflowed;
        continue;
      }
      if (d.only_certain_nonfinite) {
        WARN(draw.str() << ": every float32 evaluation overflows (all judged elements inf or NaN in every evaluation)");
        ++f.overflowed;
        continue;
      }
      std::ostringstream verdicts;
      bool no_verdict = false;
      for (int p = 0; p < 3; ++p)
        for (int o = 0; o < 3; ++o) {
          verdicts << "\n" << kOutputNames[o] << " outputs under " << kProfiles[p] << ": " << verdict_name(d.verdict[p][o])
                   << ", worst error / statistical bound " << d.pratio[p][o];
          no_verdict |= d.verdict[p][o] == Verdict::NoVerdict;
        }
      INFO(verdicts.str());
      if (d.tf32_is_f32) {
        WARN(draw.str() << ": the TF32 outputs are the float32 outputs bit for bit (nothing to catch)");
        ++f.tf32_indistinguishable;
      } else {
        CHECK(caught(d.verdict[0][0]));
      }
      CHECK(caught(d.verdict[0][1]));
      CHECK(d.verdict[0][2] == Verdict::Pass);  // control: honest float32
      CHECK_FALSE(caught(d.verdict[1][0]));
      CHECK_FALSE(caught(d.verdict[2][1]));
      if (!d.tf32_is_f32) f.tf32_caught_at = std::min(f.tf32_caught_at, d.pratio[0][0]);
      f.bf16_caught_at = std::min(f.bf16_caught_at, d.pratio[0][1]);
      f.own_worst = std::max({f.own_worst, d.pratio[1][0], d.pratio[2][1]});
      if (no_verdict) {
        WARN(draw.str() << ": NO VERDICT under a reduced profile" << verdicts.str());
        ++f.wide_overflowed;
        continue;
      }
      if (!d.tf32_is_f32) CHECK(d.consistent(0) == std::vector<std::string>{"tf32", "bf16"});
      const std::vector<std::string> bf16_consistent = d.consistent(1);
      CHECK(std::count(bf16_consistent.begin(), bf16_consistent.end(), "bf16") == 1);
      CHECK(std::count(bf16_consistent.begin(), bf16_consistent.end(), "ieee") == 0);
      CHECK(d.consistent(2) == std::vector<std::string>{"ieee", "tf32", "bf16"});
      if (reported) {
        const CheckReport t = check_float_outputs(m, float_profile("ieee"), {in}, {route(in, 10)}, 1);
        const CheckReport b = check_float_outputs(m, float_profile("ieee"), {in}, {route(in, 7)}, 1);
        CHECK(t.consistent_profiles == d.consistent(0));
        CHECK(b.consistent_profiles == d.consistent(1));
      }
      f.bf16_passing_tf32 += d.verdict[1][1] == Verdict::Pass;
    }
  CHECK(f.overflowed + f.wide_overflowed + f.outside_domain < f.draws);  // some draws judged in full
  WARN(name << ": " << f.draws << " draws, " << f.overflowed << " NO VERDICT (or overflowing in every evaluation) in float32 under ieee, " << f.wide_overflowed
            << " NO VERDICT under a reduced profile, " << f.outside_domain << " outside the program's domain; under ieee TF32 outputs at >= " << f.tf32_caught_at << " and bf16 at >= "
            << f.bf16_caught_at << " of the statistical bound; under their own profile at most " << f.own_worst
            << "; bf16 outputs passing as tf32 in " << f.bf16_passing_tf32 << "; TF32 outputs equal to float32 in " << f.tf32_indistinguishable);
  return f;
}

// The artifact's text at the given scale, or "" (with a warning) when the artifacts are absent.
std::string artifact_text(const char* name, const std::map<std::int64_t, std::int64_t>& sizes = {}) {
  const std::string text = read_file(artifact(name));
  if (text.empty()) WARN("skipped: " << artifact(name) << " is absent");
  return text.empty() ? text : with_sizes(text, sizes);
}

}  // namespace

TEST_CASE("stat conv: the text route rounds a matmul's operands to nearest even like the plain loop", "[stat][conv]") {
  // y = x I (64 x 64 identity): y[j] is x[j] rounded, since every other product is an exact 0.
  std::string identity;
  for (int r = 0; r < 64; ++r) {
    identity += r ? ", [" : "[";
    for (int c = 0; c < 64; ++c) identity += std::string(c ? ", " : "") + (r == c ? "1.0" : "0.0");
    identity += "]";
  }
  const std::string text = R"(module @m {
  func.func @f(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
    %i = stablehlo.constant dense<[)" + identity + R"(]> : tensor<64x64xf32>
    %y = stablehlo.dot_general %x, %i, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
    return %y : tensor<1x64xf32>
  }
})";
  std::vector<float> x = data(random_inputs(parse_module(text, "id.mlir"), 3, -2, 2)[0]);
  x[0] = 1 + 0x1p-11f;              // a tie on TF32's 11 significant bits: to even, 1
  x[1] = 1 + 0x1p-11f + 0x1p-10f;   // a tie: to even, 1 + 2^-9
  x[2] = -(1 + 0x1p-8f);            // a tie on bf16's 8 bits: to even, -1
  x[3] = 1 + 0x1p-11f + 0x1p-23f;   // just above a tie: up
  for (int bits : {10, 7}) {
    const Arrays y = f32_outputs(with_rounded_operands(text, bits), {f32_array({1, 64}, x)});
    int changed = 0;
    for (std::size_t j = 0; j < 64; ++j) {
      INFO("bits " << bits << ", x[" << j << "] = " << x[j]);
      CHECK(data(y[0])[j] == reduced(x[j], bits));
      changed += data(y[0])[j] != x[j];
    }
    CHECK(changed > 50);  // control: the rounding did something
  }
  CHECK(reduced(x[0], 10) == 1.0f);
  CHECK(reduced(x[1], 10) == 1 + 0x1p-9f);
  CHECK(reduced(x[2], 7) == -1.0f);
  CHECK(reduced(x[3], 10) == 1 + 0x1p-10f);
  CHECK(with_rounded_operands(text, 23) == text);
}

TEST_CASE("stat conv: the plain loop and the text route agree on the small convolutional program", "[stat][conv]") {
  const Module m = parse_module(kSmallConv, "small_conv.mlir");
  for (const Range range : kRanges) {
    const Arrays in = random_inputs(m, 11, range.lo, range.hi);
    double scale = 0;
    for (float v : small_conv_forward(in, 23)) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    // The same rounded operands and exact products (11- or 8-bit significands): the routes
    // differ only in how the sums are taken (double rounded once against a float32 left fold).
    double worst[3] = {0, 0, 0}, tf32_from_f32 = 0;
    for (int k = 0; k < 3; ++k) {
      const std::vector<float> loop = small_conv_forward(in, kOperandBits[k]);
      const std::vector<float> text = data(f32_outputs(with_rounded_operands(kSmallConv, kOperandBits[k]), in)[0]);
      REQUIRE(loop.size() == text.size());
      for (std::size_t j = 0; j < loop.size(); ++j) worst[k] = std::max(worst[k], std::fabs(static_cast<double>(loop[j]) - text[j]) / scale);
    }
    const std::vector<float> tf32 = small_conv_forward(in, 10), f32 = small_conv_forward(in, 23);
    for (std::size_t j = 0; j < tf32.size(); ++j) tf32_from_f32 = std::max(tf32_from_f32, std::fabs(static_cast<double>(tf32[j]) - f32[j]) / scale);
    INFO("inputs in [" << range.lo << ", " << range.hi << "): routes apart by " << worst[0] << ", " << worst[1] << ", " << worst[2]
                       << " of the largest output; TF32 from float32 " << tf32_from_f32);
    for (double w : worst) CHECK(w < 1e-5);
    CHECK(tf32_from_f32 > 1e-5);  // control: the tolerance tells TF32 from float32
  }
}

TEST_CASE("stat conv: TF32 and bf16 outputs of the small convolutional program are caught under ieee and pass under their own profile",
          "[bound][stat][conv]") {
  const Module m = parse_module(kSmallConv, "small_conv.mlir");
  const Route loop = [](const Arrays& in, int bits) { return Arrays{f32_array({4, 10}, small_conv_forward(in, bits))}; };
  detection_sweep("small_conv (plain loop)", m, loop, {1, 2, 3}, true);
}

TEST_CASE("stat conv: TF32 and bf16 outputs of a small convolutional train step are caught under ieee and pass under their own profile",
          "[bound][stat][conv][artifacts]") {
  const std::string text = artifact_text("cnn_train_step", kSmallCnn);
  if (text.empty()) return;
  const Module m = parse_module(text, "small_cnn_train_step.mlir");
  REQUIRE(m.function().arguments[0].type.shape == Shape{4, 64});
  detection_sweep("cnn_train_step at 4 x 8 x 8 (text route)", m, text_route(text), {1, 2, 3}, false);
}

// mlp_train_step at a test's scale.
TEST_CASE("stat conv: TF32 and bf16 outputs of a small dense train step are caught under ieee and pass under their own profile",
          "[bound][stat][artifacts]") {
  const std::string text = artifact_text("mlp_train_step", kSmallMlp);
  if (text.empty()) return;
  detection_sweep("mlp_train_step at 8 x 64 x 32 (text route)", parse_module(text, "small_mlp_train_step.mlir"), text_route(text), {1, 2, 3}, false);
}

TEST_CASE("stat conv: TF32 and bf16 outputs of the linear train step at full size are caught under ieee and pass under their own profile",
          "[stat][conv]") {
  const std::string text = artifact_text("linear_train_step");
  if (text.empty()) return;
  const Figures f = detection_sweep("linear_train_step (text route)", parse_module(text, "linear_train_step.mlir"), text_route(text),
                                    {1, 2, 3}, false);
  CHECK(f.tf32_caught_at > 1);  // every draw, the narrowest included
}

// cnn_fwd with its layers at full size and a batch of 8 (the batch changes no sum): its
// convolutions, relus and max-pool, then three dense layers of 6272, 512 and 512 terms whose
// relus may flip, where the statistical tier keeps the random parts (relu kinks, the bias
// adds' roundings, partial sums from the statistical bounds: docs/measurements.md).
TEST_CASE("stat conv: TF32 and bf16 outputs of cnn_fwd at batch 8 are caught under ieee and pass under their own profile",
          "[stat][conv]") {
  const std::string text = artifact_text("cnn_fwd", {{128, 8}});
  if (text.empty()) return;
  const Module m = parse_module(text, "cnn_fwd_batch8.mlir");
  REQUIRE(m.function().arguments[0].type.shape == Shape{8, 784});
  const Figures f = detection_sweep("cnn_fwd at batch 8 (text route)", m, text_route(text), {1}, false);
  CHECK(f.tf32_caught_at > 1);
}

// The printer's programs at full size, one seed per range: minutes each on a loaded machine.
TEST_CASE("stat conv: TF32 and bf16 on the printer's programs at full size", "[.stat_conv_full]") {
  const char* names = std::getenv("SHLO_STAT_CONV_PROGRAMS");
  std::istringstream list(names ? names : "cnn_fwd cifar8_fwd mlp_train_step linear_train_step");
  for (std::string name; list >> name;) {
    const std::string text = artifact_text(name.c_str());
    if (text.empty()) continue;
    detection_sweep(name + " (text route)", parse_module(text, name + ".mlir"), text_route(text), {1}, false);
  }
}

namespace {

// One parameter's Adam step in the printer's form, its gradient W * x.
std::string tiny_adam(const char* returned) {
  return std::string(R"(module @m {
  func.func @adam(%x: tensor<4xf32>, %W: tensor<4xf32>, %Wm: tensor<4xf32>, %Wv: tensor<4xf32>, %lr: tensor<f32>, %bc1: tensor<f32>, %bc2: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %b1 = stablehlo.constant dense<0.9> : tensor<4xf32>
    %ob1 = stablehlo.constant dense<0.1> : tensor<4xf32>
    %b2 = stablehlo.constant dense<0.999> : tensor<4xf32>
    %ob2 = stablehlo.constant dense<0.001> : tensor<4xf32>
    %eps = stablehlo.constant dense<1.0e-8> : tensor<4xf32>
    %g = stablehlo.multiply %W, %x : tensor<4xf32>
    %m1 = stablehlo.multiply %b1, %Wm : tensor<4xf32>
    %m2 = stablehlo.multiply %ob1, %g : tensor<4xf32>
    %m = stablehlo.add %m1, %m2 : tensor<4xf32>
    %v1 = stablehlo.multiply %b2, %Wv : tensor<4xf32>
    %gg = stablehlo.multiply %g, %g : tensor<4xf32>
    %v2 = stablehlo.multiply %ob2, %gg : tensor<4xf32>
    %v = stablehlo.add %v1, %v2 : tensor<4xf32>
    %c1 = stablehlo.broadcast_in_dim %bc1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %c2 = stablehlo.broadcast_in_dim %bc2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %mh = stablehlo.divide %m, %c1 : tensor<4xf32>
    %vh = stablehlo.divide %v, %c2 : tensor<4xf32>
    %r = stablehlo.sqrt %vh : tensor<4xf32>
    %d = stablehlo.add %r, %eps : tensor<4xf32>
    %u = stablehlo.divide %mh, %d : tensor<4xf32>
    %l = stablehlo.broadcast_in_dim %lr, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %s = stablehlo.multiply %l, %u : tensor<4xf32>
    %W1 = stablehlo.subtract %W, %s : tensor<4xf32>
    return )") +
         returned + R"( : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
})";
}

}  // namespace

TEST_CASE("stat conv: an Adam step's state is the one its first float32 step leaves, its scalars those of the second step",
          "[stat][conv]") {
  const std::string text = tiny_adam("%W1, %m, %v");
  const Module m = parse_module(text, "tiny_adam.mlir");
  Arrays in = random_inputs(m, 5, -1, 1);
  const Arrays drawn = in;
  REQUIRE(adam_second_step(m, text_route(text), in) == 1);
  CHECK(data(in[0]) == data(drawn[0]));  // x as drawn
  for (std::size_t j = 0; j < 4; ++j) {
    const float w = data(drawn[1])[j], g = w * data(drawn[0])[j];
    INFO("element " << j << ": W " << w << ", gradient " << g);
    CHECK(data(in[2])[j] == 0.1f * g);                                          // m after one step from 0
    CHECK(data(in[3])[j] == 0.001f * (g * g));                                  // v
    const double step = 1e-3 * g / (std::fabs(static_cast<double>(g)) + 1e-8);  // bias-corrected: lr g / (|g| + eps)
    CHECK(data(in[1])[j] == Approx(w - step).epsilon(1e-6));
    CHECK(data(in[1])[j] != w);  // control: the parameter moved
  }
  CHECK(data(in[4])[0] == 1e-3f);
  CHECK(data(in[5])[0] == 0.19f);
  CHECK(data(in[6])[0] == 0.001999f);
  // Controls: outputs in another order are refused (m and v swapped: m^2 is not 10 v), a first
  // step that overflows is reported, and a program without moments is left as drawn.
  const std::string swapped = tiny_adam("%W1, %v, %m");
  Arrays again = drawn;
  CHECK_THROWS_AS(adam_second_step(parse_module(swapped, "swapped.mlir"), text_route(swapped), again), std::logic_error);
  Arrays huge = random_inputs(m, 5, 1e30f, 2e30f);
  CHECK(adam_second_step(m, text_route(text), huge) == -1);
  // A step that returns a moment slot as it came (the printer's momentum step) is not Adam's.
  const std::string passed = tiny_adam("%W1, %Wm, %v");
  Arrays kept = drawn;
  CHECK(adam_second_step(parse_module(passed, "passed.mlir"), text_route(passed), kept) == 0);
  for (std::size_t i = 0; i < kept.size(); ++i) CHECK(data(kept[i]) == data(drawn[i]));
  const std::string sgd = R"(module @m {
  func.func @f(%W: tensor<4xf32>, %Wv: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
    return %W : tensor<4xf32>
  }
})";
  const Module plain = parse_module(sgd, "sgd_names.mlir");
  Arrays p = random_inputs(plain, 5, -1, 1);
  const Arrays p_drawn = p;
  CHECK(adam_second_step(plain, text_route(sgd), p) == 0);
  for (std::size_t i = 0; i < p.size(); ++i) CHECK(data(p[i]) == data(p_drawn[i]));
}
