"""shapelab: exact tensor shape and broadcasting semantics over symbolic sizes.

    >>> import shapelab as sl
    >>> sl.decide("n % 2 == 0 or n == m", assume=["n >= 1"]).answer
    'depends'
    >>> sl.broadcast_shapes((3, 1), (4,))
    (3, 4)
    >>> sl.broadcast("(n,)", "(m,)").checks
    ['n == 1 or m == 1 or n == m']

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

__version__ = "@PROJECT_VERSION@"

__all__ = [
    "BroadcastResult", "Decision", "EinsumResult", "Error", "GufuncResult", "InconsistentAssumptions",
    "InputTooLarge", "RandomVariableResult", "RuntimeCheckRequired", "SyntaxError",
    "broadcast", "broadcast_shapes", "broadcast_to", "decide", "einsum", "gufunc", "rv", "rv_catalogue",
]
