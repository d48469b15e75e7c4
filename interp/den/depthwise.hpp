// den of depthwise convolution (rows: ast/ctors/depthwise.def), the formulas of docs/lean/conv-families-conv.md:
// every row is the one generic kernel of interp/den/conv_kernels.hpp at its stride, phase and
// grouping; batched rows (N) map it over the examples or sum the gradients over them.
#pragma once

#include "interp/den/conv_kernels.hpp"

namespace shlo::den_detail {

template <class D>
Vec<D> den(Of<Ctor::depthwiseF>, const Node<D>& nd) { return conv_forward_den(nd, kDepthwise, "b"); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_depthwise>, const Node<D>& nd) { return conv_forward_den(nd, kDepthwise, "bias"); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedF>, const Node<D>& nd) { return conv_forward_den(nd, kDepthwiseStride2, "b"); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_depthwiseStrided>, const Node<D>& nd) { return conv_forward_den(nd, kDepthwiseStride2, "bias"); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaF>, const Node<D>& nd) { return conv_forward_den(nd, kDepthwiseStride2Xla, "b"); }
template <class D>
Vec<D> den(Of<Ctor::batchOp_depthwiseStridedXla>, const Node<D>& nd) { return conv_forward_den(nd, kDepthwiseStride2Xla, "bias"); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseBack>, const Node<D>& nd) { return conv_input_vjp_den(nd, kDepthwise); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseBackBatched>, const Node<D>& nd) { return conv_input_vjp_den(nd, kDepthwise); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedBack>, const Node<D>& nd) { return conv_input_vjp_den(nd, kDepthwiseStride2); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedBackBatched>, const Node<D>& nd) { return conv_input_vjp_den(nd, kDepthwiseStride2); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaBack>, const Node<D>& nd) { return conv_input_vjp_den(nd, kDepthwiseStride2Xla); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaBackBatched>, const Node<D>& nd) { return conv_input_vjp_den(nd, kDepthwiseStride2Xla); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseWeightGrad>, const Node<D>& nd) { return conv_weight_grad_den(nd, kDepthwise); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseWeightGradB>, const Node<D>& nd) { return conv_weight_grad_den(nd, kDepthwise); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedWeightGradB>, const Node<D>& nd) { return conv_weight_grad_den(nd, kDepthwiseStride2); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaWeightGradB>, const Node<D>& nd) { return conv_weight_grad_den(nd, kDepthwiseStride2Xla); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseWeightSgd>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kDepthwise)); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseWeightSgdB>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kDepthwise)); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedWeightSgd>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kDepthwiseStride2)); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedWeightSgdB>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kDepthwiseStride2)); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaWeightSgd>, const Node<D>& nd) { return sgd_step(nd, "W", conv_weight_grad_den(nd, kDepthwiseStride2Xla)); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseBiasGrad>, const Node<D>& nd) { return conv_bias_grad_den(nd, kDepthwise); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseBiasGradB>, const Node<D>& nd) { return conv_bias_grad_den(nd, kDepthwise); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedBiasGradB>, const Node<D>& nd) { return conv_bias_grad_den(nd, kDepthwiseStride2); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaBiasGradB>, const Node<D>& nd) { return conv_bias_grad_den(nd, kDepthwiseStride2Xla); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseBiasSgd>, const Node<D>& nd) { return sgd_step(nd, "b", conv_bias_grad_den(nd, kDepthwise)); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedBiasSgd>, const Node<D>& nd) { return sgd_step(nd, "b", conv_bias_grad_den(nd, kDepthwiseStride2)); }
template <class D>
Vec<D> den(Of<Ctor::depthwiseStridedXlaBiasSgd>, const Node<D>& nd) { return sgd_step(nd, "b", conv_bias_grad_den(nd, kDepthwiseStride2Xla)); }

}  // namespace shlo::den_detail
