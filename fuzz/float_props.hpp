// The float32 properties of the catalogue (fuzz/float_props.cpp).
#pragma once

#include <vector>

#include "fuzz/property.hpp"

namespace shlo::fuzz {
std::vector<Property> float_properties();
}  // namespace shlo::fuzz
