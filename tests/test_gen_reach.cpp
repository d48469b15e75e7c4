// The generator reaches the rows that `shlo prop --coverage` showed empty or nearly so: the
// stride-4 stems (flatConvStride4F, batchOp/convStride4 and its bf16 peer) and the batched
// stride-2 forwards (fuzz/gen.cpp's strided_forward), and the text, skeleton and meaning
// properties pass on the stems while their controls fail. patchEmbedBack, which the printer
// writes as a comment, is drawn by the VJP property alone (docs/lean/transformer-families-2.md 8.1).
#include "fuzz/coverage.hpp"
#include "fuzz/gen.hpp"
#include "fuzz/runner.hpp"
#include "tests/support.hpp"

using namespace shlo;
using namespace shlo::fuzz;

namespace {

constexpr std::uint64_t kSeed = 20261201;

bool contains(const Expr& e, const std::string& ctor) {
  if (e.spec->name == ctor) return true;
  return std::any_of(e.children.begin(), e.children.end(), [&](const ExprPtr& c) { return contains(*c, ctor); });
}

// `property` on cases of `gen` that contain `ctor`: drawn at full size (RapidCheck's small sizes
// draw the least depth and shapes) until one does, a few thousand tries at most; not shrunk (a
// shrink would redraw the whole search).
Property on_cases_with(const std::string& property, const std::string& ctor, std::function<rc::Gen<ExprPtr>()> gen) {
  Property p = *find_property(property);
  p.gen = [ctor, gen] {
    return rc::gen::noShrink(rc::gen::exec([ctor, gen] {
      for (int tries = 0; tries < 5000; ++tries)
        if (ExprPtr e = *rc::gen::resize(100, gen()); contains(*e, ctor)) return Instance{e, nlohmann::json::object()};
      throw rc::GenerationFailure("no case with " + ctor + " in 5000 draws");
      return Instance{};
    }));
  };
  return p;
}

const ConstructorRow& row_of(const std::vector<ConstructorRow>& rows, const std::string& name) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const ConstructorRow& r) { return r.name == name; });
  REQUIRE(it != rows.end());
  return *it;
}

std::int64_t cases_of(const ConstructorRow& r, const std::string& property) {
  const auto it = r.per_property.find(property);
  return it == r.per_property.end() ? 0 : it->second;
}

}  // namespace

TEST_CASE("the stride-4 stems pass the text, skeleton and meaning properties, and the controls fail", "[gen-reach]") {
  struct Target {
    const char* ctor;
    const char* property;
    std::function<rc::Gen<ExprPtr>()> gen;
  };
  const auto batched_text = [] { return gen_batched_expr(true, true); };
  const auto batched = [] { return gen_batched_expr(true); };
  const auto per_example_text = [] { return gen_expr(true, true); };
  const auto per_example = [] { return gen_expr(true); };
  // The batched rows print like their per-example peer (not canonical), so only the per-example
  // stem is lifted back to itself; skeleton.lift draws per-example expressions only.
  for (const Target& t : std::vector<Target>{{"batchOp/convStride4", "text.round_trip", batched_text},
                                             {"batchOp/convStride4", "meaning.den_equals_text", batched},
                                             {"batchOp/convStride4Bf16", "meaning.den_equals_text", batched},
                                             {"flatConvStride4F", "text.round_trip", per_example_text},
                                             {"flatConvStride4F", "skeleton.lift", per_example_text},
                                             {"flatConvStride4F", "meaning.den_equals_text", per_example}}) {
    INFO(t.ctor << " in " << t.property);
    const Property p = on_cases_with(t.property, t.ctor, t.gen);
    const PropertyRun r = run_property(p, kSeed, 30);
    INFO(r.detail);
    CHECK(r.failed == 0);
    CHECK(r.passed >= 25);
    Property control = p;
    control.check = p.control;
    CHECK(run_property(control, kSeed, 30).failed == 1);
  }
}

TEST_CASE("a short run of the text and meaning properties reaches the strided forwards", "[gen-reach][coverage]") {
  clear_coverage();
  set_coverage(true);
  // About what the default `shlo prop --time 60` gives each of these on a loaded machine.
  for (const char* name : {"text.round_trip", "meaning.den_equals_text", "skeleton.lift"}) {
    INFO(name);
    CHECK(run_property(*find_property(name), kSeed, 800).failed == 0);
  }
  set_coverage(false);
  const auto rows = constructor_rows();
  clear_coverage();
  for (const char* ctor : {"batchOp/convStride4", "batchOp/convStride4Bf16"}) {
    INFO(ctor);
    CHECK(cases_of(row_of(rows, ctor), "text.round_trip") > 0);
    CHECK(cases_of(row_of(rows, ctor), "meaning.den_equals_text") > 0);
  }
  // The batched stride-2 forwards, drawn on even grids as often as the stems.
  for (const char* ctor : {"batchOp/convStrided", "batchOp/convStridedXla", "batchOp/depthwiseStrided", "batchOp/depthwiseStridedXla",
                           "batchOp/convStridedBf16", "batchOp/convStridedXlaBf16", "batchOp/depthwiseStridedBf16", "batchOp/depthwiseStridedXlaBf16"}) {
    INFO(ctor);
    CHECK(cases_of(row_of(rows, ctor), "text.round_trip") + cases_of(row_of(rows, ctor), "meaning.den_equals_text") > 0);
  }
  const auto& stem = row_of(rows, "flatConvStride4F");
  for (const char* property : {"text.round_trip", "meaning.den_equals_text", "skeleton.lift"}) CHECK(cases_of(stem, property) > 0);
  // Controls: constructors these properties never draw: geluF (its decimal sqrt(2/pi) keeps it
  // out of meaning) and patchEmbedBack (its text is a comment that computes nothing).
  CHECK(cases_of(row_of(rows, "geluF"), "meaning.den_equals_text") == 0);
  for (const char* property : {"text.round_trip", "meaning.den_equals_text", "skeleton.lift"})
    CHECK(cases_of(row_of(rows, "patchEmbedBack"), property) == 0);
}
