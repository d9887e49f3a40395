"""shapelab: exact tensor shape and broadcasting semantics over symbolic sizes.

    >>> import shapelab as sl
    >>> sl.decide("n % 2 == 0 or n == m", assume=["n >= 1"]).answer
    'depends'
    >>> sl.broadcast_shapes((3, 1), (4,))
    (3, 4)
    >>> sl.broadcast("(n,)", "(m,)").checks
    ['n == 1 or m == 1 or n == m']

Programs: sl.Program(text) runs a program of the shapelab language (its methods are the REPL's
commands); sl.trace(fn, sl.array(("n", "d")), ...) traces an unmodified NumPy function into one;
sl.campaign(...) runs the property harness split over a Dask cluster.

Shapes are tuples or lists of ints and strings (symbolic dims: "n", "m + 1"), a bare int, or
text such as "(n, 3)". Bad input raises shapelab.Error (a ValueError) or a subclass:
SyntaxError (with .position and .text), InconsistentAssumptions, InputTooLarge.
"""

from ._shapelab import (  # noqa: F401
    BroadcastResult,
    Decision,
    EinsumResult,
    Error,
    GufuncResult,
    InconsistentAssumptions,
    InputTooLarge,
    RandomVariableResult,
    RuntimeCheckRequired,
    SyntaxError,
    broadcast,
    broadcast_shapes,
    broadcast_to,
    decide,
    einsum,
    gufunc,
    rv,
    rv_catalogue,
)

from ._campaign import campaign  # noqa: F401
from ._program import EvalValueError, IndexOutOfBounds, Program, Result, ShapeError  # noqa: F401
from ._studies import gradient_masking  # noqa: F401
from ._trace import (  # noqa: F401
    ArraySpec, Pred, ShapeDependentBranch, Size, SizeSpec, SymArray, Traced, Unsupported, array, grad, ifelse, size, trace,
    vectorize,
)

__version__ = "@PROJECT_VERSION@"

__all__ = [
    "BroadcastResult", "Decision", "EinsumResult", "Error", "GufuncResult", "InconsistentAssumptions",
    "InputTooLarge", "RandomVariableResult", "RuntimeCheckRequired", "SyntaxError",
    "broadcast", "broadcast_shapes", "broadcast_to", "decide", "einsum", "gufunc", "rv", "rv_catalogue",
    "ArraySpec", "EvalValueError", "IndexOutOfBounds", "Pred", "Program", "Result", "ShapeDependentBranch",
    "ShapeError", "Size", "SizeSpec", "SymArray", "Traced", "Unsupported", "array", "campaign", "grad", "ifelse", "size",
    "trace", "vectorize",
]
