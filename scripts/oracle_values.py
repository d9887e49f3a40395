"""Array values as the NumPy oracles write them (scripts/make_program_oracle.py,
scripts/make_ufunc_oracle.py): as shapelab literals for the programs' `with` bindings, and as
JSON for the expected results."""
import math

import numpy as np


def literal(a):
    """The shapelab literal of an array's values (nested lists; nan, inf and -inf as Python
    writes them, which shapelab reads back)."""
    def rec(x):
        if isinstance(x, list):
            return "[" + ", ".join(rec(v) for v in x) + "]"
        if isinstance(x, bool):
            return "True" if x else "False"
        if isinstance(x, float):
            return repr(x)
        return str(x)
    return rec(a.tolist())


def value_json(a):
    """Nested lists of the values, with nan, inf and -inf as strings (JSON has no such numbers)."""
    def rec(x):
        if isinstance(x, list):
            return [rec(v) for v in x]
        if isinstance(x, float):
            if math.isnan(x):
                return "nan"
            if math.isinf(x):
                return "inf" if x > 0 else "-inf"
        return x
    return rec(np.asarray(a).tolist())
