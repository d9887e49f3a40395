"""Programs of the shapelab language from Python: shapelab.Program, its results, and NumPy arrays
in and out of the interpreters.

A Program runs its text line by line in a session of its own, as `shapelab run` does; its
methods are the REPL's commands (`shape`, `explain`, `errors`, `decide`, `graph`, `optimize`,
`rules`, `eval`). Each answer is a Result whose `to_dict()` is the JSON object the command line
prints for the same command (`shapelab run --json`), without "line".
"""
import json
import threading

import numpy as np

from ._shapelab import Error, SyntaxError, _Session


class ShapeError(Error):
    """Evaluation failed on a shape rule at the given sizes: NumPy's ValueError (broadcasting,
    reshapes, ...), with NumPy's message."""


class IndexOutOfBounds(Error, IndexError):
    """An index out of range at evaluation: NumPy's IndexError, with NumPy's message (also a
    ValueError, as every shapelab error is)."""


class EvalValueError(Error):
    """Evaluation failed on the data (a singular matrix, a negative integer power)."""


class Result:
    """An answer of the program language: attributes are the keys of the command line's JSON
    object (lists of dims read as tuples under `shape`), `to_dict()` is that object."""

    __slots__ = ("_d",)

    def __init__(self, d):
        object.__setattr__(self, "_d", d)

    def __getattr__(self, key):
        try:
            v = self._d[key]
        except KeyError:
            raise AttributeError(f"this {self.kind} result has no '{key}' (it has {', '.join(self._d)})") from None
        return tuple(v) if key == "shape" and isinstance(v, list) else v

    def __setattr__(self, key, value):
        raise AttributeError("results are read-only")

    @property
    def kind(self):
        return self._d.get("command") or ("statement" if "assign" in self._d else "result")

    def keys(self):
        return list(self._d)

    def to_dict(self):
        return json.loads(json.dumps(self._d))

    def __eq__(self, other):
        return isinstance(other, Result) and other._d == self._d

    def __hash__(self):
        return hash(json.dumps(self._d, sort_keys=True))

    def __repr__(self):
        shown = {k: v for k, v in self._d.items() if k not in ("command",)}
        return f"Result[{self.kind}](" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"


def _error_for(kind, message):
    if kind == "shape":
        return IndexOutOfBounds(message) if ("out of bounds" in message or "too many indices" in message
                                             or message.startswith("index")) else ShapeError(message)
    if kind == "value":
        return IndexOutOfBounds(message) if "out of bounds" in message else EvalValueError(message)
    return Error(message)


def _line_error(line, lineno, reply):
    """The SyntaxError for a line the session refused (its message, column and a caret)."""
    column = reply.get("column", 1)
    err = SyntaxError(f"line {lineno}, column {column}: {reply['error']}\n  {line}\n  {' ' * (column - 1)}^")
    err.position = column - 1
    err.text = line
    err.line = lineno
    err.message = reply["error"]
    return err


class Program:
    """A program of the shapelab language (`param`, `assume`, `input`, NumPy statements).

        >>> p = Program('''param n, m
        ... x = input((n, m), float64)
        ... y = x.sum(axis=0) + x[0]''')
        >>> p.shape("y").shape
        ('m',)
        >>> p.eval("y", x=np.ones((2, 3))).tolist()
        [3.0, 3.0, 3.0]

    A line the language refuses raises SyntaxError (line, column, caret); a shape error is an
    answer (status "error", checks, witnesses), never an exception, until evaluation.
    """

    def __init__(self, text="", *, mode="numpy", seed=0, strict_limits=False):
        self._session = _Session(True, mode, seed, strict_limits)
        self._lock = threading.Lock()
        self._lines = []
        self._statements = {}
        for line in text.splitlines():
            self.run(line)

    @classmethod
    def load(cls, path, **options):
        with open(path) as f:
            return cls(f.read(), **options)

    @property
    def text(self):
        """The program's lines so far, as `shapelab run` reads them."""
        return "\n".join(self._lines) + ("\n" if self._lines else "")

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"Program({len(self._lines)} lines, names {sorted(self._statements)})"

    def _execute(self, line, read=True):
        # Statements are the program's lines (numbered as `shapelab run` numbers the text);
        # commands are asked of it and not kept.
        command = line.lstrip().startswith(":")
        with self._lock:
            lineno = len(self._lines) + 1
            failed, lines = self._session.execute(line, read, lineno)
            replies = [json.loads(r) for r in lines]
            refused = failed and replies and "error" in replies[0] and "column" in replies[0]
            if not command and not refused:
                self._lines.append(line)
        for r in replies:
            r.pop("line", None)
        if refused:
            raise _line_error(line, lineno, replies[0])
        return failed, replies

    def run(self, line):
        """Runs one line (a statement or a command); returns its results."""
        _, replies = self._execute(line)
        results = [Result(r) for r in replies]
        for r in results:
            if "assign" in r._d:
                self._statements[r._d["assign"]] = r
        return results

    def _command(self, text):
        failed, replies = self._execute(text)
        return Result(replies[0]) if replies else None

    def __getitem__(self, name):
        """The reply of the statement that last assigned `name`."""
        return self._statements[name]

    def names(self):
        return list(self._statements)

    def shape(self, expr):
        return self._command(f":shape {expr}")

    def explain(self, expr):
        return self._command(f":explain {expr}")

    def errors(self, limits=False):
        return self._command(":errors --limits" if limits else ":errors")

    def decide(self, predicate):
        return self._command(f":decide {predicate}")

    def graph(self, expr):
        return self._command(f":graph {expr}")

    def optimize(self, name, valid_graph=False, inexact=False):
        flags = (" --valid-graph" if valid_graph else "") + (" --inexact" if inexact else "")
        return self._command(f":optimize {name}{flags}")

    def rules(self):
        return self._command(":rules").rules

    def eval(self, name, optimized=False, checked=False, **bindings):
        """The value of the array bound to `name` as an ndarray. Bindings: sizes (ints) and inputs
        (ndarrays, lists, scalars); sizes not given are read from the inputs' shapes, inputs not
        given are seeded. Contiguous inputs are read in place; the result owns shapelab's buffer
        (no copy), and is read-only where it is a view of an input. Raises ShapeError or
        IndexOutOfBounds (NumPy's ValueError / IndexError, with its message) where NumPy would.
        `checked=True` also checks every kernel's result against its shape rule, as :eval does."""
        out = self._session.evaluate(name, bindings, optimized, checked)
        if isinstance(out, tuple):
            raise _error_for(*out)
        return out

    def time(self, name, *, backend="optimized", fusion=True, scalar_code=True, views=True, block=256, libm=False,
             threads=1, repeat=5, inner=1, **bindings):
        """Seconds per evaluation of `name` (a list of `repeat` figures, each the mean of `inner`
        evaluations; the inputs are made before the clock starts). `backend`: "optimized" or
        "reference" (the reference interpreter, its per-kernel checks off). For the optimized one:
        `fusion` (elementwise chains as one loop, else one loop per op), `scalar_code` (a loop of
        one element as scalar code, else through the block loop), `views` (layout ops as views,
        else copies), `block` (elements per block; 1 walks a fused loop element by element),
        `libm` (transcendental functions by the C library), `threads`. Bindings as for eval.
        Raises ShapeError etc. where evaluation fails."""
        if backend not in ("optimized", "reference"):
            raise ValueError(f"backend must be 'optimized' or 'reference', not {backend!r}")
        out = self._session.time(name, bindings, backend == "optimized", fusion, scalar_code, views, block, libm,
                                 threads, repeat, inner)
        if isinstance(out, tuple):
            raise _error_for(*out)
        return out
