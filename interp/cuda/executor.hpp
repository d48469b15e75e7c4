// float32 execution of a parsed program on a Backend (a CUDA device, or the host path that
// runs the same kernel bodies): one kernel per op, R replicas in lockstep, all_reduce folded in
// increasing replica id. Values are the f32 domain's, so results compare directly with
// run_program<F32Domain>.
#pragma once

#include <vector>

#include "ast/program.hpp"
#include "interp/cuda/backend.hpp"
#include "interp/domain/ieee.hpp"
#include "interp/run.hpp"

namespace shlo::cuda {

struct BackendRun {
  std::vector<std::vector<Value<F32Domain>>> outputs;  // [replica][result]
  double seconds = 0;                                  // kernels and transfers, synchronised
};

/// Throws RunError (located at the instruction) for what the kernels do not support.
BackendRun run_on_backend(const Module& m, Backend& backend, const std::vector<std::vector<Value<F32Domain>>>& inputs, int replicas);

}  // namespace shlo::cuda
