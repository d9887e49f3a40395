#include "ops/Scalar.h"

namespace shapelab::ops {

void negativeIntegerPower() { throw EvalError(EvalError::Value, "Integers to negative integer powers are not allowed."); }

} // namespace shapelab::ops
