module @calls {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0:2 = func.call @pair(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %1 = stablehlo.add %0#0, %0#1 : tensor<4xf32>
    %2 = call @relu(%1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = func.call @relu(%2) : (tensor<4xf32>) -> tensor<4xf32>
    %a, %b = func.call @pair(%3) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    return %b : tensor<4xf32>
  }
  func.func private @pair(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %n = stablehlo.negate %x : tensor<4xf32>
    return %x, %n : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @relu(%arg0: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<4xf32>
    %m = stablehlo.maximum %arg0, %z : tensor<4xf32>
    func.return %m : tensor<4xf32>
  }
}
