"""Studies over the property harness's random programs (the notebooks' data).

    >>> import shapelab as sl
    >>> census = sl.gradient_masking(range(3), mode="numpy")
    >>> sorted(census)
    ['fired', 'graphs', 'graphs_masking', 'masked', 'whole_masking']
"""

import collections

from . import _shapelab as _core
from ._program import Program


def gradient_masking(seeds, mode="numpy", statements=10):
    """Over the random programs of `seeds` (the harness's generator, built in `mode`), each with
    a cost and the gradient of every float input: each gradient rewritten with every rule
    allowed to mask a shape error (`:optimize grad_X --valid-graph --inexact`). Returns
    {"graphs": gradients rewritten, "graphs_masking": those where an application masked an
    error, "masked": Counter of the masking applications by rule, "fired": Counter of every
    application by rule, "whole_masking": gradients whose program as rewritten runs where the
    program as written fails (decided at the output)}. Each application is decided
    exactly by the rewrite checker."""
    census = {"graphs": 0, "graphs_masking": 0, "masked": collections.Counter(), "fired": collections.Counter(),
              "whole_masking": 0}
    for seed in seeds:
        lines = list(_core._random_program(seed, statements, gradients=True, mode=mode))
        grads = [line.split(" = ")[0] for line in lines if line.startswith("grad_")]
        if not grads:
            continue
        program = Program("\n".join(lines), mode=mode)
        for g in grads:
            answer = program.optimize(g, valid_graph=True, inexact=True).to_dict()
            census["graphs"] += 1
            census["graphs_masking"] += bool(answer["masked"])
            census["masked"].update(answer["masked"])
            census["fired"].update(answer["fired"])
            census["whole_masking"] += answer["whole"]["class"] == "valid-graph"
    return census
