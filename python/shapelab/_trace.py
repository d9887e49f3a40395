"""Tracing unmodified NumPy functions into shapelab programs (shapelab.trace).

A function runs on symbolic arrays: each NumPy call it makes (through the dispatch protocols
__array_ufunc__ and __array_function__, operators, methods, indexing, or the creation functions
intercepted on the numpy module while the trace runs) becomes one statement of a program of the
shapelab language, built and checked as it runs. Shapes are exact: dims are expressions over the
named sizes, and shape problems are the answer (status, checks, the error domain), never an
exception. A branch on sizes (`if n > 1:`) is decided under the assumptions where it can be;
where it depends on the sizes, ShapeDependentBranch says so.
"""
import functools
import inspect
import json
import keyword
import math
import threading

import numpy as np

from ._program import Program
from ._shapelab import Error, SyntaxError, _parameters


class Unsupported(Error):
    """A NumPy function, method or argument shapelab has no counterpart for (`.function` names it)."""

    def __init__(self, function, detail=""):
        super().__init__(f"{function} is not supported by shapelab" + (f": {detail}" if detail else ""))
        self.function = function


class ShapeDependentBranch(Error):
    """Python needed a definite answer (an if, int(), len()) that depends on the symbolic sizes."""

    def __init__(self, what, condition=None):
        hint = ("; add an assumption (assume=[...]) that decides it, read the size from x.shape, or "
                "choose with sl.ifelse(cond, a, b)")
        super().__init__(what + (f" (it holds where {condition})" if condition else "") + hint)
        self.condition = condition


# --- Specifications of the traced function's arguments ------------------------------------------


class ArraySpec:
    """A symbolic array argument: its shape (ints and size expressions such as "n", "d + 1") and
    dtype."""

    def __init__(self, shape, dtype="float64"):
        if isinstance(shape, str):
            text = shape.strip()
            if not (text.startswith("(") and text.endswith(")")):
                raise SyntaxError(f"a shape is a tuple such as (n, 3), not {shape!r}")
            shape = tuple(d.strip() for d in text[1:-1].split(",") if d.strip())
        elif isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        self.shape = tuple(int(d) if isinstance(d, (int, np.integer)) else str(d) for d in shape)
        self.dtype = np.dtype(dtype).name
        self._parameters = self.parameters()  # a malformed dim is a SyntaxError here, with its position

    def parameters(self):
        out = []
        for d in self.shape:
            if isinstance(d, str):
                out += [p for p in _parameters(d) if p not in out]
        return out

    def __repr__(self):
        return f"sl.array({self.shape!r}, {self.dtype!r})"


class SizeSpec:
    """A symbolic size argument (a head count, a window): `sl.size("k")`."""

    def __init__(self, name):
        if not isinstance(name, str) or not name.isidentifier():
            raise SyntaxError(f"a size is named by an identifier, not {name!r}")
        self.name = name

    def __repr__(self):
        return f"sl.size({self.name!r})"


def array(shape, dtype="float64"):
    return ArraySpec(shape, dtype)


def size(name):
    return SizeSpec(name)


# --- Symbolic values ---------------------------------------------------------------------------

_UFUNC_OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
                    "floor_divide": "//", "remainder": "%", "power": "**", "matmul": "@", "less": "<",
                    "less_equal": "<=", "greater": ">", "greater_equal": ">=", "equal": "==",
                    "not_equal": "!=", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}
_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all",
               "logical_or": "any"}
_ACCUMULATIONS = {"add": "cumsum", "multiply": "cumprod"}
_UFUNC_SPELLINGS = {"absolute": "abs"}  # a ufunc's __name__ where the language spells it otherwise


class _Symbolic:
    """What SymArray, Size and Pred share: the tracer, the program text that computes the value."""

    __slots__ = ("_tracer", "_text")

    def __init__(self, tracer, text):
        self._tracer = tracer
        self._text = text


class _Valued(_Symbolic):
    """A symbolic value that is no array: its program text and its value as the session shows it
    (`d + 1`, `n >= 2`)."""

    __slots__ = ("_value",)

    def __init__(self, tracer, text, value):
        super().__init__(tracer, text)
        self._value = value

    def __str__(self):
        return self._value

    def __repr__(self):
        return f"sl.{type(self).__name__}({self._value!r})"


class Pred(_Valued):
    """A predicate over sizes (a comparison of sizes). Its truth is decided under the trace's
    assumptions; where it depends on the sizes, bool() raises ShapeDependentBranch."""

    __slots__ = ()

    def decide(self):
        return self._tracer.decide(self._text)

    def __bool__(self):
        d = self.decide()
        if d["answer"] == "proven":
            return True
        if d["answer"] == "refuted":
            return False
        raise ShapeDependentBranch(f"the truth of '{self._value}' depends on the sizes", d.get("condition"))

    def __and__(self, other):
        return self._tracer.bind(f"({self._text}) & ({self._tracer.text(other)})")

    def __or__(self, other):
        return self._tracer.bind(f"({self._text}) | ({self._tracer.text(other)})")

    def __invert__(self):
        return self._tracer.bind(f"not ({self._text})")

    __rand__, __ror__ = __and__, __or__


class Size(_Valued):
    """A symbolic size (a dim of a traced array, a size argument, or arithmetic on them): exact
    with + - * // % and comparisons (predicates); with floats (np.sqrt(d), 0.5 * d) it becomes a
    0-d array computed at run time, as in NumPy."""

    __slots__ = ()

    def _op(self, op, other, reflected=False):
        if not isinstance(other, (int, np.integer, float, np.floating, bool, _Symbolic, np.ndarray)):
            return NotImplemented
        a, b = self._text, self._tracer.text(other)
        return self._tracer.bind(f"({b}) {op} ({a})" if reflected else f"({a}) {op} ({b})")

    def __add__(self, o): return self._op("+", o)
    def __radd__(self, o): return self._op("+", o, True)
    def __sub__(self, o): return self._op("-", o)
    def __rsub__(self, o): return self._op("-", o, True)
    def __mul__(self, o): return self._op("*", o)
    def __rmul__(self, o): return self._op("*", o, True)
    def __floordiv__(self, o): return self._op("//", o)
    def __rfloordiv__(self, o): return self._op("//", o, True)
    def __mod__(self, o): return self._op("%", o)
    def __rmod__(self, o): return self._op("%", o, True)
    def __truediv__(self, o): return self._op("/", o)
    def __rtruediv__(self, o): return self._op("/", o, True)
    def __pow__(self, o): return self._op("**", o)
    def __lt__(self, o): return self._op("<", o)
    def __le__(self, o): return self._op("<=", o)
    def __gt__(self, o): return self._op(">", o)
    def __ge__(self, o): return self._op(">=", o)

    def __eq__(self, o):
        if isinstance(o, str):
            o = self._tracer.bind(o)
        return self._op("==", o)

    def __ne__(self, o):
        if isinstance(o, str):
            o = self._tracer.bind(o)
        return self._op("!=", o)

    def __neg__(self):
        return self._tracer.bind(f"-({self._text})")

    def __pos__(self):
        return self

    def __hash__(self):
        return hash(self._value)

    def _concrete(self, what):
        try:
            return int(self._value)
        except ValueError:
            raise ShapeDependentBranch(f"{what} of the size '{self._value}' depends on the sizes") from None

    def __index__(self):
        return self._concrete("an integer value")

    def __int__(self):
        return self._concrete("int()")

    def __float__(self):
        return float(self._concrete("float()"))

    def __bool__(self):
        return bool(self._tracer.bind(f"({self._text}) != 0"))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return self._tracer.ufunc(ufunc, method, inputs, kwargs)


class SymArray(_Symbolic, np.lib.mixins.NDArrayOperatorsMixin):
    """A symbolic array of a trace: NumPy's functions, operators, methods and indexing apply to it
    (each one a statement of the trace's program)."""

    __slots__ = ("_shape", "_dtype")
    __array_priority__ = 1000

    def __init__(self, tracer, text, shape, dtype):
        super().__init__(tracer, text)
        self._shape = shape
        self._dtype = dtype

    # Metadata: exact, without a statement.
    @property
    def shape(self):
        return tuple(d if isinstance(d, int) else Size(self._tracer, f"{self._text}.shape[{i}]", d)
                     for i, d in enumerate(self._shape))

    @property
    def dtype(self):
        return np.dtype(self._dtype)

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        if all(isinstance(d, int) for d in self._shape):
            return math.prod(self._shape)
        return self._tracer.bind(f"{self._text}.size")

    @property
    def T(self):
        return self._tracer.bind(f"{self._text}.T")

    @property
    def mT(self):
        return self._tracer.bind(f"np.swapaxes({self._text}, -1, -2)")

    @property
    def real(self):
        return self  # the dtypes shapelab has are real

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def name(self):
        """The program's expression for this array (a name, or an item of a tuple)."""
        return self._text

    def __repr__(self):
        shape = "(" + ", ".join(map(str, self._shape)) + ("," if len(self._shape) == 1 else "") + ")"
        return f"SymArray({self._text}: {shape} {self._dtype})"

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of unsized object")
        d = self._shape[0]
        if isinstance(d, int):
            return d
        raise ShapeDependentBranch(f"len() of an array whose first dimension is '{d}' depends on the sizes; "
                                   "x.shape[0] is the symbolic size")

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self):
        raise Error("the truth of an array depends on its data, which a trace does not have: "
                    "choose with np.where(cond, a, b)")

    def __array__(self, dtype=None):
        raise Error(f"{self._text} is symbolic: it has no values to convert to a NumPy array during a trace")

    # Protocols.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return self._tracer.ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        module = func.__module__ or "numpy"
        prefix = "np" + module[len("numpy"):] if module.startswith("numpy") else module
        if prefix.startswith("np.core") or prefix.startswith("np.lib.") and not prefix.startswith("np.lib.stride_tricks"):
            prefix = "np"
        return self._tracer.call(f"{prefix}.{func.__name__}", args, kwargs)

    def __array_namespace__(self, api_version=None):
        return self._tracer.namespace

    # Indexing.
    def __getitem__(self, key):
        return self._tracer.bind(f"{self._text}[{self._tracer.subscript(key)}]")

    def __setitem__(self, key, value):
        name = self._tracer.named(self)
        self._tracer.statement(f"{name}[{self._tracer.subscript(key)}] = {self._tracer.text(value)}")
        self._tracer.refresh(self)

    # Methods: each one NumPy's, by name, as a statement.
    def __getattr__(self, attr):
        if attr.startswith("_"):  # protocols and front ends' probes (_repr_html_): not NumPy methods
            raise AttributeError(attr)

        def method(*args, **kwargs):
            if attr == "sort":  # in place, as NumPy's method
                name = self._tracer.named(self)
                self._tracer.statement(f"{name}.sort({self._tracer.arguments(args, kwargs)})")
                return None
            return self._tracer.bind(f"{self._text}.{attr}({self._tracer.arguments(args, kwargs)})",
                                     function=f"numpy.ndarray.{attr}")
        method.__name__ = attr
        return method


class _Namespace:
    """The array API namespace of a trace (`x.__array_namespace__()`): NumPy's functions under the
    standard's names, building statements."""

    _RENAMED = {"concat": "concatenate", "permute_dims": "transpose", "pow": "power", "acos": "arccos",
                "asin": "arcsin", "atan": "arctan", "atan2": "arctan2", "acosh": "arccosh",
                "asinh": "arcsinh", "atanh": "arctanh", "bitwise_invert": "invert"}

    def __init__(self, tracer):
        self._tracer = tracer

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if hasattr(np, name) and isinstance(getattr(np, name), type) and issubclass(getattr(np, name), np.generic):
            return getattr(np, name)  # dtypes
        if name in ("e", "pi", "inf", "nan", "newaxis"):
            return getattr(np, name)
        if name == "astype":
            return lambda x, dtype, copy=True: self._tracer.bind(f"{self._tracer.text(x)}.astype({self._tracer.text(dtype)})")
        if name == "matrix_transpose":
            return lambda x: self._tracer.bind(f"np.swapaxes({self._tracer.text(x)}, -1, -2)")
        if name == "linalg":
            return _SubNamespace(self._tracer, "np.linalg")
        target = self._RENAMED.get(name, name)
        return lambda *args, **kwargs: self._tracer.call(f"np.{target}", args, kwargs)


class _SubNamespace:
    def __init__(self, tracer, prefix):
        self._tracer, self._prefix = tracer, prefix

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self._tracer.call(f"{self._prefix}.{name}", args, kwargs)


# --- The tracer --------------------------------------------------------------------------------


def _number_text(x):
    x = float(x)
    if math.isnan(x):
        return "np.nan"
    if math.isinf(x):
        return "np.inf" if x > 0 else "(-np.inf)"
    return repr(x)


def _literal(a):
    def rec(v):
        if isinstance(v, list):
            return "[" + ", ".join(rec(i) for i in v) + "]"
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, float):
            return _number_text(v)
        return str(v)
    return rec(a.tolist())


class _Tracer:
    def __init__(self, program):
        self.program = program
        self.counter = 0
        self.namespace = _Namespace(self)
        self.arguments_named = {}  # id of an argument passed as is -> the traced function's parameter

    # Statements.
    def statement(self, line, function=None):
        try:
            self.program._execute(line, read=False)
        except SyntaxError as e:
            message = getattr(e, "message", str(e))
            if function and ("no function" in message or "has no attribute" in message or "no method" in message):
                raise Unsupported(function, message) from None
            raise Error(f"{message}\n  in the traced statement: {line}") from None

    def fresh(self):
        self.counter += 1
        return f"v{self.counter}"

    def bind(self, expr, function=None):
        name = self.fresh()
        self.statement(f"{name} = {expr}", function)
        return self.wrap(name, json.loads(self.program._session.describe(name)))

    def wrap(self, text, d):
        kind = d["kind"]
        if kind == "array":
            shape = tuple(s if isinstance(s, int) else str(s) for s in d["shape"])
            return SymArray(self, text, shape, d["dtype"])
        if kind == "size":
            # A Size even where its value is a constant: its statement may carry a check (d // h
            # requires h != 0) that the program must keep reading; int() and __index__ give the
            # constant.
            return Size(self, text, d["value"])
        if kind == "predicate":
            if d["value"] in ("True", "False"):
                return d["value"] == "True"
            return Pred(self, text, d["value"])
        if kind == "tuple":
            return tuple(self.wrap(f"{text}[{i}]", item) for i, item in enumerate(d["items"]))
        if kind in ("float", "bool", "string"):
            return d["value"]
        if kind == "dtype":
            return np.dtype(d["value"]).type
        if kind == "none":
            return None
        raise Error(f"{text} is {kind}, which a trace cannot hold")

    def named(self, sym):
        """A name for `sym` (binding its expression first where it is an item of a tuple), for
        statements that rebind it."""
        if not sym._text.isidentifier():
            name = self.fresh()
            self.statement(f"{name} = {sym._text}")
            sym._text = name
        return sym._text

    def refresh(self, sym):
        d = json.loads(self.program._session.describe(sym._text))
        if d.get("kind") == "array":
            sym._shape = tuple(s if isinstance(s, int) else str(s) for s in d["shape"])
            sym._dtype = d["dtype"]

    def decide(self, text):
        r = self.program._command(f":decide {text}")
        return r.to_dict()

    # Arguments as text.
    def text(self, x):
        if isinstance(x, _Symbolic):
            if x._tracer is not self:
                raise Error("a symbolic value of another trace was given")
            return x._text if isinstance(x, SymArray) else f"({x._text})"
        if isinstance(x, (bool, np.bool_)):
            return "True" if x else "False"
        if isinstance(x, (int, np.integer)):
            return str(int(x)) if isinstance(x, int) or x.dtype == np.int64 else f"np.{x.dtype.name}({int(x)})"
        if isinstance(x, (float, np.floating)):
            if isinstance(x, np.floating) and x.dtype != np.float64:
                return f"np.{x.dtype.name}({_number_text(x)})"
            return _number_text(x)
        if isinstance(x, complex):
            raise Unsupported("complex numbers")
        if x is None:
            return "None"
        if x is Ellipsis:
            return "..."
        if isinstance(x, str):
            return repr(x)
        if isinstance(x, tuple):
            return "(" + ", ".join(self.text(i) for i in x) + ("," if len(x) == 1 else "") + ")"
        if isinstance(x, list):
            return "[" + ", ".join(self.text(i) for i in x) + "]"
        if isinstance(x, slice):
            return self.subscript(x)
        if isinstance(x, np.dtype) or (isinstance(x, type) and issubclass(x, np.generic)):
            name = np.dtype(x).name
            return "np.bool_" if name == "bool" else f"np.{name}"
        if x is float or x is int or x is bool:
            return {float: "np.float64", int: "np.int64", bool: "np.bool_"}[x]
        if isinstance(x, np.ndarray):
            if x.dtype.kind not in "biuf":
                raise Unsupported(f"arrays of dtype {x.dtype}")
            if x.size > 100000:
                raise Unsupported("a concrete array of more than 100000 elements inside a trace")
            dt = "np.bool_" if x.dtype == bool else f"np.{x.dtype.name}"
            return f"np.array({_literal(x)}, dtype={dt})" if x.ndim else f"np.{x.dtype.name}({_literal(x)})"
        where = self.arguments_named.get(id(x))
        raise TypeError((f"argument '{where}' of the traced function" if where else "a traced NumPy call's argument") +
                        f" is {type(x).__name__} {x!r}: not an array, a size or a number shapelab can represent")

    def subscript(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        parts = []
        for k in key:
            if isinstance(k, slice):
                parts.append(":".join("" if v is None else self.text(v) for v in (k.start, k.stop, k.step)).rstrip(":")
                             if k.step is not None else
                             ("" if k.start is None else self.text(k.start)) + ":" + ("" if k.stop is None else self.text(k.stop)))
            else:
                parts.append(self.text(k))
        return ", ".join(parts) if parts else "()"

    def arguments(self, args, kwargs):
        parts = [self.text(a) for a in args]
        for k, v in kwargs.items():
            if k == "out" and v is not None:
                raise Unsupported("the out= argument")
            parts.append(f"{k}={self.text(v)}")
        return ", ".join(parts)

    def call(self, function, args, kwargs):
        return self.bind(f"{function}({self.arguments(args, kwargs)})", function="numpy" + function[2:])

    def ufunc(self, ufunc, method, inputs, kwargs):
        name = _UFUNC_SPELLINGS.get(ufunc.__name__, ufunc.__name__)
        out = kwargs.pop("out", None)
        if method == "__call__":
            if out is not None:
                # An in-place operator (x += y): rebinds x to the result, as the language does.
                target = out[0] if isinstance(out, tuple) else out
                if len(out if isinstance(out, tuple) else (out,)) != 1 or not isinstance(target, SymArray) or \
                        target is not inputs[0] or name not in _UFUNC_OPERATORS or kwargs:
                    raise Unsupported(f"numpy.{name}", "out= other than an in-place operator")
                tname = self.named(target)
                self.statement(f"{tname} {_UFUNC_OPERATORS[name]}= {self.text(inputs[1])}")
                self.refresh(target)
                return target
            if name in _UFUNC_OPERATORS and len(inputs) == 2 and not kwargs:
                return self.bind(f"{self.text(inputs[0])} {_UFUNC_OPERATORS[name]} {self.text(inputs[1])}")
            if name == "negative" and not kwargs:
                return self.bind(f"-{self.text(inputs[0])}")
            return self.call(f"np.{name}", inputs, kwargs)
        if out is not None:
            raise Unsupported(f"numpy.{name}.{method}", "the out= argument")
        if method == "reduce" and name in _REDUCTIONS:
            kwargs.setdefault("axis", 0)  # ufunc.reduce's default, unlike np.sum's
            return self.call(f"np.{_REDUCTIONS[name]}", inputs, kwargs)
        if method == "accumulate" and name in _ACCUMULATIONS:
            kwargs.setdefault("axis", 0)
            return self.call(f"np.{_ACCUMULATIONS[name]}", inputs, kwargs)
        if method == "outer":
            return self.call(f"np.{name}.outer", inputs, kwargs)
        if method == "at":
            target = inputs[0]
            if not isinstance(target, SymArray):
                raise Unsupported(f"numpy.{name}.at", "on an array that is not traced")
            tname = self.named(target)
            self.statement(f"np.{name}.at({tname}, {', '.join(self.text(i) for i in inputs[1:])})")
            self.refresh(target)
            return None
        raise Unsupported(f"numpy.{name}.{method}")


# --- Intercepting the creation functions -------------------------------------------------------

_CREATION = ["zeros", "ones", "empty", "full", "arange", "eye", "identity", "linspace", "logspace", "indices",
             "tri", "triu_indices", "tril_indices", "array", "asarray", "asanyarray", "ascontiguousarray"]
_PATCH_LOCK = threading.RLock()


def _tracer_in(x):
    if isinstance(x, _Symbolic):
        return x._tracer
    if isinstance(x, (tuple, list)):
        for i in x:
            t = _tracer_in(i)
            if t is not None:
                return t
    if isinstance(x, dict):
        return _tracer_in(list(x.values()))
    return None


def _interceptor(name, original):
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        tracer = _tracer_in((args, kwargs))
        if tracer is None:
            return original(*args, **kwargs)
        if name in ("asarray", "asanyarray", "ascontiguousarray") and len(args) == 1 and isinstance(args[0], SymArray) \
                and not kwargs:
            return args[0]
        return tracer.call(f"np.{name}", args, kwargs)
    return wrapper


class _Patched:
    """numpy's creation functions replaced by interceptors (under a lock held for the trace, so
    concurrent traces take turns), restored on exit, also on exceptions."""

    def __enter__(self):
        _PATCH_LOCK.acquire()
        self.saved = {n: getattr(np, n) for n in _CREATION}
        try:
            for n, f in self.saved.items():
                setattr(np, n, _interceptor(n, f))
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        try:
            for n, f in self.saved.items():
                setattr(np, n, f)
        finally:
            _PATCH_LOCK.release()
        return False


# --- trace() and its result --------------------------------------------------------------------


class Traced:
    """A traced function: its program (`program`, text), its outputs (one Result each: shape,
    dtype, status, checks, limits, violating, condition, and `name`), the program's error domain
    (`errors()`), `explain(out)`, and evaluation: calling it runs the reference interpreter on
    NumPy arrays; `optimize().run(...)` the checked rewrite and the optimized interpreter."""

    def __init__(self, program, names, structure, inputs):
        self._program = program
        self._names = names
        self._structure = structure  # "one" or "tuple"
        self._inputs = inputs        # the function's parameter -> the program's input name
        self._renamed = any(k != v for k, v in inputs.items())
        self._outputs = None

    @property
    def program(self):
        return self._program.text

    @property
    def session(self):
        """The Program the trace built (every REPL command as a method)."""
        return self._program

    @property
    def outputs(self):
        if self._outputs is None:
            self._outputs = [self._program.shape(n) for n in self._names]
        return self._outputs

    def errors(self, limits=False):
        return self._program.errors(limits)

    def explain(self, out):
        return self._program.explain(out.name if hasattr(out, "name") else out)

    def __call__(self, optimized=False, checked=False, **bindings):
        b = {self._inputs.get(k, k): v for k, v in bindings.items()} if self._renamed else bindings
        values = [self._program.eval(n, optimized, checked, **b) for n in self._names]
        return values[0] if self._structure == "one" else tuple(values)

    def optimize(self):
        return _Optimized(self)

    def __repr__(self):
        return f"Traced({', '.join(self._names)}; {len(self._program.text.splitlines())} lines)"


class _Optimized:
    def __init__(self, traced):
        self._traced = traced
        self.results = [traced._program.optimize(n) for n in traced._names]

    def run(self, **bindings):
        return self._traced(optimized=True, **bindings)


def trace(fn, *args, assume=(), mode="numpy", seed=0, **kwargs):
    """Traces `fn` called with these arguments: sl.array(shape, dtype) for symbolic arrays,
    sl.size(name) for symbolic sizes, anything else passed as is (Python numbers, NumPy arrays)."""
    bound = inspect.signature(fn).bind(*args, **kwargs)
    params = []
    for v in bound.arguments.values():
        for spec in (v if isinstance(v, (tuple, list)) else (v,)):
            if isinstance(spec, ArraySpec):
                params += [p for p in spec.parameters() if p not in params]
            elif isinstance(spec, SizeSpec) and spec.name not in params:
                params.append(spec.name)
    program = Program(mode=mode, seed=seed)
    tracer = _Tracer(program)
    if params:
        program.run("param " + ", ".join(params))
    for a in ([assume] if isinstance(assume, str) else assume):
        program.run(f"assume {a}")
    inputs = {}
    call_args = {}
    taken = set(params)
    for pname, v in bound.arguments.items():
        def make(spec, name):
            if isinstance(spec, ArraySpec):
                iname = name
                while iname in taken or keyword.iskeyword(iname) or iname in ("np", "input", "param", "assume", "mode"):
                    iname += "_"
                taken.add(iname)
                dims = ", ".join(str(d) for d in spec.shape) + ("," if len(spec.shape) == 1 else "")
                program.run(f"{iname} = input(({dims}), {spec.dtype})")
                inputs[name] = iname
                return SymArray(tracer, iname, spec.shape, spec.dtype)
            if isinstance(spec, SizeSpec):
                return Size(tracer, spec.name, spec.name)
            tracer.arguments_named[id(spec)] = name
            return spec
        if isinstance(v, (tuple, list)) and any(isinstance(s, (ArraySpec, SizeSpec)) for s in v):
            call_args[pname] = type(v)(make(s, f"{pname}{i}") for i, s in enumerate(v))
        else:
            call_args[pname] = make(v, pname)
    bound.arguments.update(call_args)
    with _Patched():
        result = fn(*bound.args, **bound.kwargs)
    structure = "tuple" if isinstance(result, (tuple, list)) else "one"
    results = list(result) if structure == "tuple" else [result]
    names = []
    for i, r in enumerate(results):
        name = "out" if structure == "one" else f"out{i}"
        program.run(f"{name} = {tracer.text(r)}")
        names.append(name)
    return Traced(program, names, structure, inputs)


def grad(cost, wrt):
    """The gradient of a 0-d float `cost` with respect to the array `wrt`, or a tuple of them for
    a list (the program's grad: each gradient has its array's shape and dtype; broadcasting's
    adjoint is exact at run time). Inside sl.trace only."""
    tracer = _tracer_in((cost, wrt))
    if tracer is None:
        raise Error("sl.grad differentiates the arrays of a trace (call it inside a function sl.trace runs)")
    several = isinstance(wrt, (list, tuple))
    targets = "[" + ", ".join(tracer.text(w) for w in wrt) + "]" if several else tracer.text(wrt)
    return tracer.bind(f"grad({tracer.text(cost)}, {targets})")


def vectorize(outputs, replace, in_axes=None, out_axes=None):
    """`outputs` (an array or a list) rebuilt over batched arrays: `replace` pairs each array of
    the trace with its batch (extra leading dims, or at `in_axes`), as a list of (array, batch)
    pairs; each output gets the batch's dims in front (or at `out_axes`). The program's
    vectorize. Inside sl.trace only."""
    replace = list(replace)
    tracer = _tracer_in((outputs, [x for x, _ in replace], [xb for _, xb in replace]))
    if tracer is None:
        raise Error("sl.vectorize rebuilds the arrays of a trace (call it inside a function sl.trace runs)")
    several = isinstance(outputs, (list, tuple))
    ys = "[" + ", ".join(tracer.text(y) for y in outputs) + "]" if several else tracer.text(outputs)
    keywords = ", ".join(f"{tracer.named(x)}={tracer.text(xb)}" for x, xb in replace)
    options = ""
    if in_axes is not None:
        options += ", in_axes=" + (f"({', '.join(str(int(a)) for a in in_axes)},)" if isinstance(in_axes, (list, tuple)) else str(int(in_axes)))
    if out_axes is not None:
        options += f", out_axes={int(out_axes)}"
    return tracer.bind(f"vectorize({ys}, {keywords}{options})")


def ifelse(cond, a, b):
    """`a` where the predicate over sizes holds, else `b` (both built; the program's ifelse)."""
    tracer = _tracer_in((cond, a, b))
    if tracer is None:
        return a if cond else b
    return tracer.bind(f"ifelse({tracer.text(cond)}, {tracer.text(a)}, {tracer.text(b)})")
