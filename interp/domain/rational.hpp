// Rationals and the literal grammar live in num/ (below ast/ and interp/); this header keeps
// the older include path working.
#pragma once

#include "num/rational.hpp"
