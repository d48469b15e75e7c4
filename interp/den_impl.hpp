// The template body of denote(); included once per domain (den_<domain>.cpp). The den of each
// constructor is one function den(Of<Ctor::X>, node) in the family file of interp/den/ that
// mirrors its row's file in ast/ctors/; Denoter::node selects it with a switch over Ctor
// generated from the same row list, so a row without its den does not build (the ctest
// den_missing_case shows it).
#pragma once

#include "interp/den/activations.hpp"
#include "interp/den/batch_norm.hpp"
#include "interp/den/batched.hpp"
#include "interp/den/conv_pool.hpp"
#include "interp/den/core.hpp"
#include "interp/den/data_parallel.hpp"
#include "interp/den/optimizer.hpp"
#include "interp/den/sgd_gradients.hpp"
#include "interp/den/vit.hpp"
#include "interp/den/convnext.hpp"
#include "interp/den/regularisers.hpp"
#include "interp/den/strided_conv.hpp"
#include "interp/den/depthwise.hpp"
#include "interp/den/low_precision.hpp"
#include "interp/den/sync_bn.hpp"
#include "interp/den/bn_channel.hpp"
#include "interp/den/blocks.hpp"

namespace shlo {

namespace den_detail {

template <class D>
class Denoter {
 public:
  Denoter(const D& d, std::vector<DenEvent>& events, RoundingModel rounding, const DenBindings<D>* bound = nullptr)
      : d_(d), events_(events), rounding_(rounding), bound_(bound) {}

  Vec<D> eval(const Expr& e, const std::string& path) {
    std::vector<Vec<D>> kids;
    for (std::size_t i = 0; i < e.children.size(); ++i) kids.push_back(eval(*e.children[i], path + "/" + std::to_string(i)));
    const Site site{path, e.spec->name, &events_};
    const Node<D> node{d_, e, kids, site, e.length(), rounding_, bound_};
    switch (e.spec->id) {
#define SHLO_CTOR(ID, NAME, ...) \
  case Ctor::ID: return den(Of<Ctor::ID>{}, node);
#include "ast/ctors/all.def"
#undef SHLO_CTOR
    }
    throw ExprError(std::string("den: constructor '") + e.spec->name + "' has no denotation here");
  }

 private:
  const D& d_;
  std::vector<DenEvent>& events_;
  RoundingModel rounding_;
  const DenBindings<D>* bound_;
};

}  // namespace den_detail

template <class D>
DenResult<D> denote(const D& d, const Expr& e, const DenOptions& options) {
  return denote(d, e, DenBindings<D>{}, options);
}

template <class D>
DenResult<D> denote(const D& d, const Expr& e, const DenBindings<D>& bound, const DenOptions& options) {
  if (!e.has_values()) throw ExprError("den: the expression is a skeleton (no real fields); den needs values");
  DenResult<D> out;
  den_detail::Denoter<D> den(d, out.events, options.rounding, bound.fields.empty() ? nullptr : &bound);
  try {
    out.value = den.eval(e, "root");
  } catch (const DomainError& err) {
    throw DomainError(std::string("den: ") + err.what());
  }
  return out;
}

}  // namespace shlo
