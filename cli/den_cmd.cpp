#include "cli/den_cmd.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "ast/expr_json.hpp"
#include "interp/den.hpp"
#include "interp/domain/domain_spec.hpp"
#include "interp/npy.hpp"

namespace shlo::cli {

namespace {

// den computes on real numbers (SHlo has no element types), so the element-typed ieee domain,
// which is f64 with each tensor rounded to its element type, means nothing here.
constexpr const char* kDenDomainForms = "exact | interval:P | mpfr:P | f64 | f32  (P: bits from 2 to 16384, e.g. 256)";

bool is_element_typed(const AnyDomain& d) {
  const auto* ieee = std::get_if<F64Domain>(&d);
  return ieee && ieee->element_typed();
}

}  // namespace

void add_den_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("den", "The denotation den(e) of an SHlo expression (JSON) in one domain, from the\n"
                                        "constructor formulas. Lean's totalities (x/0 = 0, sqrt of a negative = 0) are\n"
                                        "followed and reported as events.");
  auto file = std::make_shared<std::string>(), domain = std::make_shared<std::string>("exact"), out = std::make_shared<std::string>();
  cmd->add_option("file", *file, "expression JSON (bare, or {\"expr\": ...})")->required();
  cmd->add_option("--domain,-d", *domain, std::string("arithmetic: ") + kDenDomainForms)->capture_default_str();
  cmd->add_option("--out,-o", *out, "folder for result.npy (nearest doubles) and result.txt (exact values or enclosures)");
  cmd->callback([file, domain, out]() {
    ExprPtr e;
    AnyDomain d;
    try {
      const auto j = parse_json_file(*file);
      e = expr_from_json(j.contains("expr") ? j["expr"] : j, j.contains("expr") ? "/expr" : "");
      d = parse_domain(*domain);
    } catch (const std::exception& err) {
      std::cerr << *file << ": " << err.what() << "\n";
      throw CLI::RuntimeError(2);
    }
    if (is_element_typed(d)) {
      std::cerr << "shlo den: --domain " << *domain << " computes each tensor in its element type's arithmetic, and an "
                << "SHlo expression has no element types; den takes " << kDenDomainForms << "\n";
      throw CLI::RuntimeError(2);
    }
    with_domain(d, [&](const auto& dom) {
      using D = std::decay_t<decltype(dom)>;
      DenResult<D> r;
      try {
        r = denote(dom, *e);
      } catch (const std::exception& err) {
        std::cerr << *file << ": " << err.what() << "\n";
        throw CLI::RuntimeError(1);
      }
      std::printf("den(%s) in %s: %zu values\n", e->spec->name, dom.name().c_str(), r.value.size());
      const std::size_t shown = std::min<std::size_t>(r.value.size(), 16);
      for (std::size_t i = 0; i < shown; ++i) std::printf("  [%zu] %s\n", i, dom.to_string(r.value[i]).c_str());
      if (shown < r.value.size()) std::printf("  ... (%zu more; --out writes them all)\n", r.value.size() - shown);
      for (const auto& ev : r.events)
        std::printf("event: %s at %s (%s), index %lld: Lean's total value used\n", ev.kind.c_str(), ev.node.c_str(),
                    ev.constructor.c_str(), static_cast<long long>(ev.index));
      if (!out->empty()) {
        std::filesystem::create_directories(*out);
        std::vector<double> v;
        std::ofstream txt(std::filesystem::path(*out) / "result.txt");
        txt << "# den(" << e->spec->name << ") in " << dom.name() << ", one element per line\n";
        for (const auto& x : r.value) {
          v.push_back(dom.to_double(x));
          txt << dom.to_string(x) << "\n";
        }
        write_npy((std::filesystem::path(*out) / "result.npy").string(), {{static_cast<std::int64_t>(v.size())}, v});
      }
    });
  });
}

}  // namespace shlo::cli
