#loc = loc(unknown)
#loc1 = loc("scale.py":12:8)
#loc2 = loc("jit(f)/sin"(#loc1))
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{replicated}"} loc("x")) -> (tensor<4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.sine %arg0 : tensor<4xf32> loc(#loc2)
    %1 = stablehlo.multiply %0, %0 : tensor<4xf32> loc(callsite(#loc2 at #loc1))
    %2 = stablehlo.add %1, %arg0 : tensor<4xf32> loc(fused[#loc1, "other"])
    return %2 : tensor<4xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc3 = loc("f.py":4:2)
