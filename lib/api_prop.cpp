// The library's prop: the property catalogue for a time budget, as `shlo prop` runs it. In a
// file of its own so that a program that does not call prop() links none of the catalogue and
// none of RapidCheck (whose Debian archive is not position-independent: the Python module,
// a shared object, cannot contain it and runs `shlo prop` instead).
#include "fuzz/runner.hpp"
#include "lib/api_internal.hpp"

namespace shlo_oracle {

using detail::bad_input;

Expected<PropResult> prop(double seconds, const std::vector<std::string>& only, std::uint64_t seed, const std::string& corpus) {
  using shlo::fuzz::catalogue;
  auto in_selection = [](const std::string& name, const std::string& o) { return name == o || name.rfind(o + ".", 0) == 0; };
  std::vector<const shlo::fuzz::Property*> props;
  for (const auto& o : only) {
    bool known = false;
    for (const auto& p : catalogue()) known = known || in_selection(p.name, o);
    if (!known) return bad_input("unknown property '" + o + "' (see shlo prop --list)");
  }
  for (const auto& p : catalogue()) {
    bool take = only.empty();
    for (const auto& o : only) take = take || in_selection(p.name, o);
    if (take) props.push_back(&p);
  }
  PropResult out;
  const double share = seconds / static_cast<double>(props.size());
  for (const auto* p : props) {
    const shlo::fuzz::PropertyRun r = shlo::fuzz::run_property_for(*p, seed, 20, share);
    PropRow row{p->name, r.runs, r.passed, r.failed, r.discarded, r.seconds, ""};
    if (r.failed) {
      try {
        row.saved_to = shlo::fuzz::save_case(corpus, *p, r, r.seed);
      } catch (const std::exception& e) {
        row.saved_to = std::string("(not saved: ") + e.what() + ")";
      }
    }
    out.failed += r.failed;
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace shlo_oracle
