// den of strided convolution (rows: ast/ctors/strided_conv.def), the formulas of docs/lean/conv-families-conv.md:
// every row is the one generic kernel of interp/den/conv_kernels.hpp at its stride, phase and
// grouping; batched rows (N) map it over the examples or sum the gradients over them.
#pragma once

#include "interp/den/conv_kernels.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> den(Of<Ctor::flatConvStridedF>, const Node<D>& nd) { return conv_forward_den(nd, kConvStride2, "b"); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convStrided>, const Node<D>& nd) { return conv_forward_den(nd, kConvStride2, "bias"); }
template <class D>
Vec<D> den(Of<Ctor::convStridedBack>, const Node<D>& nd) { return conv_input_vjp_den(nd, kConvStride2); }
template <class D>
Vec<D> den(Of<Ctor::convStridedBackBatched>, const Node<D>& nd) { return conv_input_vjp_den(nd, kConvStride2); }
template <class D>
Vec<D> den(Of<Ctor::convStridedWeightGrad>, const Node<D>& nd) { return conv_weight_grad_den(nd, kConvStride2); }
template <class D>
Vec<D> den(Of<Ctor::convStridedWeightSgd>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kConvStride2)); }
template <class D>
Vec<D> den(Of<Ctor::convStridedWeightGradB>, const Node<D>& nd) { return conv_weight_grad_den(nd, kConvStride2); }
template <class D>
Vec<D> den(Of<Ctor::convStridedWeightSgdB>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kConvStride2)); }
template <class D>
Vec<D> den(Of<Ctor::convStridedBiasGrad>, const Node<D>& nd) { return conv_bias_grad_den(nd, kConvStride2); }
template <class D>
Vec<D> den(Of<Ctor::convStridedBiasSgd>, const Node<D>& nd) { return sgd_step(nd, "b", conv_bias_grad_den(nd, kConvStride2)); }
template <class D>
Vec<D> den(Of<Ctor::convStridedBiasGradB>, const Node<D>& nd) { return conv_bias_grad_den(nd, kConvStride2); }
template <class D>
Vec<D> den(Of<Ctor::convStridedBiasSgdB>, const Node<D>& nd) { return sgd_step(nd, "b", conv_bias_grad_den(nd, kConvStride2)); }
template <class D>
Vec<D> den(Of<Ctor::flatConvStridedXlaF>, const Node<D>& nd) { return conv_forward_den(nd, kConvStride2Xla, "b"); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convStridedXla>, const Node<D>& nd) { return conv_forward_den(nd, kConvStride2Xla, "bias"); }
template <class D>
Vec<D> den(Of<Ctor::convStridedXlaWeightSgd>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kConvStride2Xla)); }
template <class D>
Vec<D> den(Of<Ctor::convStridedXlaWeightGradB>, const Node<D>& nd) { return conv_weight_grad_den(nd, kConvStride2Xla); }
template <class D>
Vec<D> den(Of<Ctor::convStridedXlaWeightSgdB>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kConvStride2Xla)); }
template <class D>
Vec<D> den(Of<Ctor::convStridedXlaBiasSgd>, const Node<D>& nd) { return sgd_step(nd, "b", conv_bias_grad_den(nd, kConvStride2Xla)); }
template <class D>
Vec<D> den(Of<Ctor::convStridedXlaBiasGradB>, const Node<D>& nd) { return conv_bias_grad_den(nd, kConvStride2Xla); }
template <class D>
Vec<D> den(Of<Ctor::convWeightSgdB>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kConvStride1)); }
template <class D>
Vec<D> den(Of<Ctor::convBiasSgdB>, const Node<D>& nd) { return sgd_step(nd, "b", conv_bias_grad_den(nd, kConvStride1)); }
template <class D>
Vec<D> den(Of<Ctor::flatConvStride4F>, const Node<D>& nd) { return conv_forward_den(nd, kConvStride4, "b"); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_convStride4>, const Node<D>& nd) { return conv_forward_den(nd, kConvStride4, "bias"); }
template <class D>
Vec<D> den(Of<Ctor::convStride4WeightGrad>, const Node<D>& nd) { return conv_weight_grad_den(nd, kConvStride4); }
template <class D>
Vec<D> den(Of<Ctor::convStride4WeightGradB>, const Node<D>& nd) { return conv_weight_grad_den(nd, kConvStride4); }

}  // namespace shlo::den_detail
