// shlo_oracle._core: the library (include/shlo_oracle/shlo_oracle.hpp) for Python. Every call
// returns (True, value) or (False, error dict); shlo_oracle/__init__.py turns the error into a
// located exception and the raw pieces into NumPy arrays, Fractions and enclosures, so that
// this file only moves data across.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <shlo_oracle/shlo_oracle.hpp>
#include <xtensor/xbuilder.hpp>

namespace py = pybind11;
using namespace shlo_oracle;

namespace {

py::dict error_dict(const Error& e) {
  static const char* const kinds[] = {"parse", "input", "run"};
  py::dict d;
  d["kind"] = kinds[static_cast<int>(e.kind)];
  d["message"] = e.message;
  d["file"] = e.file;
  d["line"] = e.line;
  d["column"] = e.column;
  return d;
}

template <class T, class F>
py::tuple answer(const Expected<T>& r, F&& convert) {
  if (!r) return py::make_tuple(false, error_dict(r.error()));
  return py::make_tuple(true, convert(*r));
}

template <class T>
xt::xarray<T> from_numpy(const py::array& a) {
  const auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  std::vector<std::size_t> shape(c.shape(), c.shape() + c.ndim());
  xt::xarray<T> out = xt::zeros<T>(shape);
  std::copy(c.data(), c.data() + c.size(), out.data());
  return out;
}

// A NumPy array as the library's Array: every dtype keeps its type (the library checks it
// against the argument's, as the command's .npy reader does). float16 crosses as its bits.
Array to_array(const py::array& a) {
  const char kind = a.dtype().kind();
  const auto size = a.itemsize();
  if (kind == 'b') return from_numpy<bool>(a);
  if (kind == 'f' && size == 2) return Float16Bits{from_numpy<std::uint16_t>(a.attr("view")("uint16").cast<py::array>())};
  if (kind == 'f' && size == 4) return from_numpy<float>(a);
  if (kind == 'f' && size == 8) return from_numpy<double>(a);
  if (kind == 'i' && size == 1) return from_numpy<std::int8_t>(a);
  if (kind == 'i' && size == 2) return from_numpy<std::int16_t>(a);
  if (kind == 'i' && size == 4) return from_numpy<std::int32_t>(a);
  if (kind == 'i' && size == 8) return from_numpy<std::int64_t>(a);
  if (kind == 'u' && size == 1) return from_numpy<std::uint8_t>(a);
  if (kind == 'u' && size == 2) return from_numpy<std::uint16_t>(a);
  if (kind == 'u' && size == 4) return from_numpy<std::uint32_t>(a);
  if (kind == 'u' && size == 8) return from_numpy<std::uint64_t>(a);
  throw py::type_error(std::string("shlo_oracle: arrays must be bool, int8..int64, uint8..uint64, float16, float32 or float64, got dtype ") +
                       py::str(a.dtype()).cast<std::string>());
}

Inputs to_inputs(const std::vector<std::vector<py::array>>& lists) {
  Inputs out;
  for (const auto& list : lists) {
    auto& row = out.emplace_back();
    for (const auto& a : list) row.push_back(to_array(a));
  }
  return out;
}

template <class T>
py::array_t<T> to_numpy(const xt::xarray<T>& x) {
  std::vector<py::ssize_t> shape(x.shape().begin(), x.shape().end());
  py::array_t<T> out(shape);
  std::copy(x.begin(), x.end(), out.mutable_data());
  return out;
}

py::dict output_dict(const Output& o, bool f32_domain) {
  py::dict d;
  d["name"] = o.name;
  d["shape"] = py::tuple(py::cast(o.shape));
  d["element_type"] = o.element_type;
  if (o.is_integer) {
    d["integer"] = std::visit(
        [](const auto& x) -> py::object {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, Float16Bits>) return py::none();  // never an integer result
          else return to_numpy(x);
        },
        o.integer);
    return d;
  }
  if (o.is_predicate) {
    d["predicate"] = to_numpy(o.predicate);
    return d;
  }
  if (f32_domain) d["f32"] = to_numpy(o.f32);
  else d["f64"] = to_numpy(o.f64);
  if (!o.text.empty()) d["text"] = o.text;
  if (!o.exact.empty()) {
    std::vector<std::string> q;
    for (const auto& x : o.exact) q.push_back(x.str());
    d["exact"] = q;
    d["exact_infinity"] = o.exact_infinity;
  }
  if (!o.enclosures.empty()) {
    std::vector<std::string> lo, hi;
    std::vector<double> lo_down, hi_up;
    for (const auto& e : o.enclosures) {
      lo.push_back(e.lo);
      hi.push_back(e.hi);
      lo_down.push_back(e.lo_down);
      hi_up.push_back(e.hi_up);
    }
    d["lo"] = lo;
    d["hi"] = hi;
    d["lo_down"] = lo_down;
    d["hi_up"] = hi_up;
  }
  return d;
}

// run() and den() with inputs: [replica][result] output dicts.
py::list run_lists(const RunResult& res) {
  py::list replicas;
  for (const auto& outs : res.outputs) {
    py::list row;
    for (const auto& o : outs) row.append(output_dict(o, res.domain == "f32"));
    replicas.append(row);
  }
  return replicas;
}

py::dict check_dict(const CheckResult& c) {
  py::dict d;
  d["verdict"] = to_string(c.verdict);
  d["table"] = c.table;
  d["json"] = c.json;
  d["consistent_profiles"] = c.consistent_profiles;
  d["fitting_profile"] = c.fitting_profile;
  py::list rows;
  for (const auto& r : c.rows) {
    py::dict row;
    row["name"] = r.name;
    row["replica"] = r.replica;
    row["elements"] = r.elements;
    row["max_abs"] = r.max_abs;
    row["max_rel"] = r.max_rel;
    row["max_ulps"] = r.max_ulps;
    row["worst_ratio"] = r.worst_ratio;
    row["worst_pratio"] = r.worst_pratio;
    row["over"] = r.over;
    row["improbable"] = r.improbable;
    row["flips"] = r.flips;
    row["unbounded"] = r.unbounded;
    row["statistical_only"] = r.statistical_only;
    row["certain_nonfinite"] = r.certain_nonfinite;
    row["probable_nonfinite"] = r.probable_nonfinite;
    row["nan_alternative"] = r.nan_alternative;
    row["inf_alternative"] = r.inf_alternative;
    row["improbable_probability"] = r.improbable_probability;
    row["verdict"] = to_string(r.verdict);
    row["line"] = r.line;  // the row as the table prints it (the oracle's row formatter)
    rows.append(row);
  }
  d["rows"] = rows;
  return d;
}

py::list tensor_infos(const std::vector<TensorInfo>& infos) {
  py::list out;
  for (const auto& t : infos) out.append(py::make_tuple(t.name, t.type));
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "shlo-oracle's library; use the shlo_oracle package, which wraps this module";
  py::class_<Program>(m, "Program")
      .def_property_readonly("file", &Program::file)
      .def_property_readonly("entry", &Program::entry_name)
      .def_property_readonly("arguments", [](const Program& p) { return tensor_infos(p.arguments()); })
      .def_property_readonly("results", [](const Program& p) { return tensor_infos(p.results()); })
      .def("print", &Program::print);
  m.def("parse", [](const std::string& text, const std::string& file) {
    return answer(parse(text, file), [](const Program& p) { return py::cast(p); });
  });
  m.def("run", [](const Program& p, const std::vector<std::vector<py::array>>& inputs, const std::string& domain, int replicas) {
    const Inputs in = to_inputs(inputs);
    Expected<RunResult> r = [&] {
      py::gil_scoped_release unlocked;  // a long run lets other Python threads go on
      return run(p, in, domain, replicas);
    }();
    return answer(r, run_lists);
  });
  m.def("den_program", [](const Program& p, const std::vector<std::vector<py::array>>& inputs, const std::string& domain,
                          int replicas) {
    const Inputs in = to_inputs(inputs);
    Expected<RunResult> r = [&] {
      py::gil_scoped_release unlocked;
      return den(p, in, domain, replicas);
    }();
    return answer(r, run_lists);
  });
  m.def("check", [](const Program& p, const std::vector<std::vector<py::array>>& inputs,
                    const std::vector<std::vector<py::array>>& outputs, const std::string& profile, int replicas, double delta,
                    const std::map<std::string, double>& allow, bool sampled) {
    const Inputs in = to_inputs(inputs), out = to_inputs(outputs);
    Expected<CheckResult> r = [&] {
      py::gil_scoped_release unlocked;
      return check(p, in, out, profile, replicas, delta, allow, sampled);
    }();
    return answer(r, check_dict);
  });
  m.def("lift", [](const Program& p) {
    return answer(lift(p), [](const LiftResult& l) {
      py::dict d;
      d["render_json"] = l.render_json;
      d["emitted"] = l.emitted;
      d["instructions"] = l.instructions;
      d["as_nodes"] = l.as_nodes;
      d["verbatim"] = l.verbatim;
      d["constructors"] = l.constructors;
      return d;
    });
  });
  // prop() through the command (the catalogue's RapidCheck cannot live in this module).
  m.def("prop_with_command", [](const std::string& command, double seconds, const std::vector<std::string>& only,
                                std::uint64_t seed, const std::string& corpus) {
    return answer(prop_with_command(command, seconds, only, seed, corpus), [](const PropResult& r) {
      py::list rows;
      for (const PropRow& row : r.rows) {
        py::dict d;
        d["property"] = row.property;
        d["runs"] = row.runs;
        d["passed"] = row.passed;
        d["failed"] = row.failed;
        d["discarded"] = row.discarded;
        d["seconds"] = row.seconds;
        d["saved_to"] = row.saved_to;
        rows.append(d);
      }
      return py::make_tuple(rows, r.failed);
    });
  });
  m.def("den", [](const std::string& json, const std::string& domain) {
    return answer(den(json, domain), [](const DenValues& v) {
      py::dict d;
      d["text"] = v.text;
      d["nearest"] = v.nearest;
      d["events"] = v.events;
      return d;
    });
  });
}
