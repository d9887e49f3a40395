// The Python module `shapelab._shapelab` (re-exported by python/shapelab/__init__.py).
//
// Shapes come in as tuples or lists of ints and strings ((3, "n", "m + 1")), as a bare int
// (a 1-d shape, as NumPy allows), or as text ("(n, 3)"); dims come out as Python ints, or as
// strings for symbolic dims. Bad input raises shapelab.Error (a ValueError) or one of its
// subclasses; shape errors are answers, not exceptions (broadcast_shapes excepted: it is a
// drop-in for NumPy's and raises ValueError with NumPy's message).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "shape/Broadcast.h"
#include "shape/Einsum.h"
#include "shape/Gufunc.h"
#include "shape/RandomVariable.h"
#include "shape/Shape.h"
#include "shape/Signature.h"
#include "symbolic/Errors.h"
#include "symbolic/Parser.h"
#include "symbolic/Solver.h"

namespace py = pybind11;
using namespace shapelab;

namespace {

// ---------------------------------------------------------------------------------------------
// Values out

py::object integerObject(const Integer &i) {
  if (auto v = i.tryToInt64()) return py::int_(*v);
  return py::reinterpret_steal<py::object>(PyLong_FromString(i.toString().c_str(), nullptr, 10));
}

py::object dimObject(const std::optional<Expr> &d) {
  if (!d) return py::none();
  if (auto v = d->constantValue()) return integerObject(*v);
  return py::str(d->toString());
}

py::tuple shapeObject(const std::vector<std::optional<Expr>> &s) {
  py::tuple t(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) t[i] = dimObject(s[i]);
  return t;
}

py::tuple shapeObject(const Shape &s) {
  return shapeObject(std::vector<std::optional<Expr>>(s.begin(), s.end()));
}

py::object assignmentObject(const std::optional<Assignment> &a) {
  if (!a) return py::none();
  py::dict d;
  for (auto &[k, v] : a->values()) d[py::str(k)] = integerObject(v);
  return d;
}

py::list stringList(const std::vector<std::string> &v) {
  py::list l;
  for (auto &s : v) l.append(py::str(s));
  return l;
}

// ---------------------------------------------------------------------------------------------
// Values in

Integer integerOf(const py::handle &h) {
  std::string text = py::str(h);
  std::optional<Integer> v = Integer::tryParse(text);
  if (!v) throw UserError("not an integer: " + text);
  return *v;
}

/// A dim: an int, or an expression's text.
Expr dimOf(const py::handle &h) {
  if (py::isinstance<py::bool_>(h)) throw py::type_error("a dimension must be an int or a string, not a bool");
  if (py::isinstance<py::int_>(h)) return Expr(integerOf(h));
  if (py::isinstance<py::str>(h)) return parseExpr(h.cast<std::string>());
  // NumPy integers and anything else with __index__.
  if (PyIndex_Check(h.ptr())) {
    PyObject *index = PyNumber_Index(h.ptr());
    if (!index) throw py::error_already_set();
    return Expr(integerOf(py::reinterpret_steal<py::object>(index)));
  }
  throw py::type_error("a dimension must be an int or a string, not " +
                       std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

/// The name of `h`'s type, for a message.
std::string typeName(const py::handle &h) { return py::str(py::type::handle_of(h).attr("__name__")); }

/// A shape: text, a sequence of dims (a tuple, a list, a 1-d NumPy integer array, ...), or one
/// integer (a Python int, a NumPy integer scalar or 0-d array: a 1-d shape), as
/// numpy.broadcast_shapes takes them. Anything else is a TypeError.
Shape shapeOf(const py::handle &h) {
  if (py::isinstance<py::str>(h)) return parseShape(h.cast<std::string>());
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) return {dimOf(h)};
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    Shape s;
    for (py::handle d : h) s.push_back(dimOf(d));
    return s;
  }
  // A NumPy array: 0-d is one integer, 1-d a sequence of them; its dtype must be an integer's.
  if (py::hasattr(h, "ndim") && py::hasattr(h, "dtype")) {
    const int ndim = h.attr("ndim").cast<int>();
    const std::string kind = py::str(h.attr("dtype").attr("kind"));
    if (ndim > 1) throw py::type_error("a shape must be one-dimensional, not an array of " + std::to_string(ndim) + " dimensions");
    if (kind != "i" && kind != "u")
      throw py::type_error("a shape's dimensions must be integers, not an array of dtype " + std::string(py::str(h.attr("dtype"))));
    if (ndim == 0) return {Expr(integerOf(h.attr("item")()))};
    Shape s;
    for (py::handle d : h.attr("tolist")()) s.push_back(Expr(integerOf(d)));
    return s;
  }
  if (PyIndex_Check(h.ptr())) {
    PyObject *index = PyNumber_Index(h.ptr());
    if (!index) throw py::error_already_set();
    return {Expr(integerOf(py::reinterpret_steal<py::object>(index)))};
  }
  if (PySequence_Check(h.ptr())) {
    Shape s;
    for (py::handle d : py::reinterpret_borrow<py::sequence>(h)) s.push_back(dimOf(d));
    return s;
  }
  throw py::type_error("a shape must be a tuple, list or array of integers (or text such as \"(n, 3)\"), not " + typeName(h));
}

/// The shapes as integers when every one is a tuple, list or bare int of Python ints that fit in
/// 64 bits; nullopt otherwise (text, symbolic dims, other types: the general path decides).
std::optional<std::vector<std::vector<Integer>>> concreteShapes(const py::args &shapes) {
  std::vector<std::vector<Integer>> out;
  auto dim = [](PyObject *o, std::vector<Integer> &v) {
    if (!PyLong_CheckExact(o)) return false;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    v.push_back(Integer(int64_t(x)));
    return true;
  };
  for (py::handle h : shapes) {
    std::vector<Integer> v;
    PyObject *o = h.ptr();
    if (PyTuple_CheckExact(o)) {
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o); ++i)
        if (!dim(PyTuple_GET_ITEM(o, i), v)) return std::nullopt;
    } else if (PyList_CheckExact(o)) {
      for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i)
        if (!dim(PyList_GET_ITEM(o, i), v)) return std::nullopt;
    } else if (!dim(o, v)) {
      return std::nullopt;
    }
    out.push_back(std::move(v));
  }
  return out;
}

/// A gufunc or RV argument: a shape, or "<...>" text for a shape-only value.
GufuncArgument argumentOf(const py::handle &h) {
  if (py::isinstance<py::str>(h)) return parseGufuncArgument(h.cast<std::string>());
  return {shapeOf(h), false};
}

std::vector<std::string> assumptionsOf(const py::handle &h) {
  if (h.is_none()) return {};
  if (py::isinstance<py::str>(h)) return {h.cast<std::string>()};
  std::vector<std::string> out;
  for (py::handle a : h) {
    if (!py::isinstance<py::str>(a)) throw UserError("an assumption must be a string (a predicate)");
    out.push_back(a.cast<std::string>());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// One solver for the module (calls hold the GIL, so one at a time); contexts built per call,
// the empty one kept.

Solver &solver() {
  static Solver *s = new Solver(); // never destroyed: it outlives every result handed out
  return *s;
}

/// One call of the API is one command: its questions together answer within the solver's time
/// limit, as a shape command's do on the command line, and the bound ends with the call.
struct CommandTime {
  CommandTime() { solver().limitTotalTime(solver().options().timeLimitMs); }
  ~CommandTime() { solver().limitTotalTime(0); }
  CommandTime(const CommandTime &) = delete;
  CommandTime &operator=(const CommandTime &) = delete;
};

Context contextFor(const py::handle &assume, SizeDomain domain) {
  std::vector<std::string> texts = assumptionsOf(assume);
  if (texts.empty()) {
    static Context *sizes = new Context(solver().makeContext({}, SizeDomain::ArraySizes));
    static Context *integers = new Context(solver().makeContext({}, SizeDomain::Integers));
    return domain == SizeDomain::ArraySizes ? *sizes : *integers;
  }
  std::vector<Pred> preds;
  for (auto &t : texts) preds.push_back(parsePred(t));
  return solver().makeContext(preds, domain);
}

// ---------------------------------------------------------------------------------------------
// Results

struct PyDecision {
  std::string answer, condition, residual, reason;
  py::object satisfying = py::none(), violating = py::none();
};

struct PyVerdict {
  std::string status, message;
  py::list checks, limits;
  py::object violating = py::none();
  /// Reads `v` (strict: the limits of results count as checks); `m` is the message, unless
  /// strictness changes the status. Returns whether the status is an error.
  bool set(Validity v, const std::string &m, bool strict) {
    const Status before = v.status();
    v.strictLimits(strict);
    status = spelling(v.status());
    message = v.status() == before ? m : v.message();
    if (v.status() != Status::Error) {
      for (const Pred &p : v.shownChecks()) checks.append(py::str(p.toString()));
      for (const Pred &p : v.limits()) limits.append(py::str(p.toString()));
    }
    if (auto w = v.violating()) violating = assignmentObject(*w);
    return v.status() == Status::Error;
  }
};

struct PyBroadcast : PyVerdict {
  py::object shape = py::none();
};

struct PyEinsum : PyVerdict {
  py::object shape = py::none();
  std::string subscripts;
};

struct PyGufunc : PyVerdict {
  py::object batch_shape = py::none(), out_shapes = py::none();
  py::dict core_dims;
  py::list undetermined;
};

struct PyRandomVariable : PyVerdict {
  py::object shape = py::none(), batch_shape = py::none();
  std::string signature, core_shape;
  bool allocatable = false;
  py::list undetermined;
};

PyBroadcast fromBroadcast(const BroadcastResult &r, bool strict) {
  PyBroadcast b;
  if (!b.set(r.validity, r.message, strict)) b.shape = shapeObject(r.validity.simplified(r.shape));
  return b;
}

std::string reprOf(const py::object &self, std::initializer_list<const char *> fields) {
  std::string out = std::string(py::str(py::type::handle_of(self).attr("__name__"))) + "(";
  bool first = true;
  for (const char *f : fields) {
    if (!first) out += ", ";
    first = false;
    out += std::string(f) + "=" + std::string(py::repr(self.attr(f)));
  }
  return out + ")";
}

// ---------------------------------------------------------------------------------------------
// Exceptions: shapelab.Error(ValueError), SyntaxError(Error) with .position and .text,
// InconsistentAssumptions(Error), InputTooLarge(Error), RuntimeCheckRequired(Error).

PyObject *errorType, *syntaxErrorType, *inconsistentType, *tooLargeType, *checkRequiredType;
struct RuntimeCheckRequiredTag {};

void raise(PyObject *type, const std::string &message, py::dict attributes = {}) {
  py::object e = py::reinterpret_borrow<py::object>(type)(message);
  for (auto item : attributes) e.attr(item.first) = item.second;
  PyErr_SetObject(type, e.ptr());
}

} // namespace

void bindPrograms(py::module_ &m); // ProgramBindings.cpp

PYBIND11_MODULE(_shapelab, m) {
  m.doc() = "shapelab: exact tensor shape and broadcasting semantics over symbolic sizes";

  // The module holds the exception types; no C++ static owns one (its destructor would run
  // after the interpreter is gone).
  errorType = py::exception<UserError>(m, "Error", PyExc_ValueError).ptr();
  syntaxErrorType = py::exception<SyntaxError>(m, "SyntaxError", errorType).ptr();
  inconsistentType = py::exception<InconsistentAssumptions>(m, "InconsistentAssumptions", errorType).ptr();
  tooLargeType = py::exception<InputTooLarge>(m, "InputTooLarge", errorType).ptr();
  checkRequiredType = py::exception<RuntimeCheckRequiredTag>(m, "RuntimeCheckRequired", errorType).ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SyntaxError &e) {
      // Text refused for its size is InputTooLarge, with the same position and text.
      py::dict a;
      a["position"] = e.position();
      a["text"] = py::bytes(e.text()).attr("decode")("utf-8", "replace");
      raise(e.tooLarge() ? tooLargeType : syntaxErrorType, e.render(), a);
    } catch (const InconsistentAssumptions &e) {
      raise(inconsistentType, e.what());
    } catch (const InputTooLarge &e) {
      raise(tooLargeType, e.what());
    } catch (const UserError &e) {
      raise(errorType, e.what());
    }
  });

  py::class_<PyDecision>(m, "Decision", "The answer of decide(): answer, condition, satisfying, violating (+ residual, reason when unknown).")
      .def_readonly("answer", &PyDecision::answer, "'proven' | 'refuted' | 'depends' | 'unknown'")
      .def_readonly("condition", &PyDecision::condition, "the exact condition under the assumptions ('True', 'False', or a predicate); for unknown, what to check at run time")
      .def_readonly("satisfying", &PyDecision::satisfying, "a point where it holds (dict name -> int), or None")
      .def_readonly("violating", &PyDecision::violating, "a point where it fails (dict name -> int), or None")
      .def_readonly("residual", &PyDecision::residual, "unknown: what to check at run time ('' otherwise)")
      .def_readonly("reason", &PyDecision::reason, "unknown: why ('' otherwise)")
      .def("__repr__", [](py::object self) { return reprOf(self, {"answer", "condition", "satisfying", "violating"}); });

  py::class_<PyVerdict>(m, "Verdict")
      .def_readonly("status", &PyVerdict::status, "'valid' | 'runtime-check' | 'error' | 'unknown'")
      .def_readonly("checks", &PyVerdict::checks, "predicates to check at run time (shape conditions)")
      .def_readonly("limits", &PyVerdict::limits, "NumPy's array-size limits not proven (predicates), apart from the checks")
      .def_readonly("violating", &PyVerdict::violating, "a point where the call fails (dict), or None")
      .def_readonly("message", &PyVerdict::message, "NumPy's message for an error, else a summary");
  py::class_<PyBroadcast, PyVerdict>(m, "BroadcastResult")
      .def_readonly("shape", &PyBroadcast::shape, "the result shape (ints, strings for symbolic dims), None on error")
      .def("__repr__", [](py::object self) { return reprOf(self, {"status", "shape", "checks", "limits", "violating", "message"}); });
  py::class_<PyEinsum, PyVerdict>(m, "EinsumResult")
      .def_readonly("shape", &PyEinsum::shape, "the output shape (ints, strings for symbolic dims), None on error")
      .def_readonly("subscripts", &PyEinsum::subscripts, "the subscripts with the output spelled out ('ij,jk->ik')")
      .def("__repr__", [](py::object self) { return reprOf(self, {"status", "shape", "subscripts", "checks", "limits", "violating", "message"}); });
  py::class_<PyGufunc, PyVerdict>(m, "GufuncResult")
      .def_readonly("batch_shape", &PyGufunc::batch_shape)
      .def_readonly("core_dims", &PyGufunc::core_dims, "signature name -> size (None when nothing determines it)")
      .def_readonly("out_shapes", &PyGufunc::out_shapes, "one tuple per output (None for an undetermined dim), None on error")
      .def_readonly("undetermined", &PyGufunc::undetermined)
      .def("__repr__", [](py::object self) { return reprOf(self, {"status", "batch_shape", "core_dims", "out_shapes", "undetermined", "checks", "limits", "violating", "message"}); });
  py::class_<PyRandomVariable, PyVerdict>(m, "RandomVariableResult")
      .def_readonly("shape", &PyRandomVariable::shape)
      .def_readonly("batch_shape", &PyRandomVariable::batch_shape)
      .def_readonly("signature", &PyRandomVariable::signature)
      .def_readonly("allocatable", &PyRandomVariable::allocatable, "True when the output can be allocated before sampling")
      .def_readonly("core_shape", &PyRandomVariable::core_shape, "'scalar' | 'from-shapes' | 'needs-value'")
      .def_readonly("undetermined", &PyRandomVariable::undetermined)
      .def("__repr__", [](py::object self) { return reprOf(self, {"status", "shape", "batch_shape", "signature", "allocatable", "core_shape", "checks", "limits", "message"}); });

  m.def(
      "decide",
      [](const std::string &predicate, py::object assume) {
        CommandTime budget;
        Pred p = parsePred(predicate);
        Context c = contextFor(assume, SizeDomain::Integers);
        Decision d = solver().decide(c, p);
        PyDecision out;
        out.answer = spelling(d.answer);
        out.satisfying = assignmentObject(d.satisfying);
        out.violating = assignmentObject(d.violating);
        if (d.answer == Answer::Unknown) {
          out.residual = d.residual.toString();
          out.reason = d.reason;
          out.condition = out.residual;
        } else {
          out.condition = d.condition().toString();
        }
        return out;
      },
      py::arg("predicate"), py::arg("assume") = py::none(),
      "Decides a predicate over size parameters (integers >= 0) under the assumptions.");

  m.def(
      "broadcast",
      [](py::args shapes, const std::string &mode, py::object assume, bool strict) {
        CommandTime budget;
        std::vector<Shape> s;
        for (py::handle h : shapes) s.push_back(shapeOf(h));
        return fromBroadcast(broadcast(solver(), contextFor(assume, SizeDomain::ArraySizes), s, parseBroadcastMode(mode)), strict);
      },
      py::arg("mode") = "numpy", py::arg("assume") = py::none(), py::arg("strict_limits") = false,
      "Broadcasts shapes; never raises on shape errors (see .status).");

  m.def(
      "broadcast_to",
      [](py::object from, py::object target, py::object assume, bool strict) {
        CommandTime budget;
        return fromBroadcast(broadcastTo(solver(), contextFor(assume, SizeDomain::ArraySizes), shapeOf(from), shapeOf(target)), strict);
      },
      py::arg("shape"), py::arg("target"), py::arg("assume") = py::none(), py::arg("strict_limits") = false,
      "NumPy's one-way broadcast_to: may `shape` broadcast to `target`?");

  m.def(
      "broadcast_shapes",
      [](py::args shapes, const std::string &mode, py::object assume, bool strict) -> py::tuple {
        CommandTime budget;
        // Shapes of plain ints: NumPy's algorithm on integers, as broadcast() does for concrete
        // shapes, without building expressions (the common drop-in call).
        (void)parseBroadcastMode(mode); // refuses a bad mode on every path
        bool noAssumptions = assume.is_none() || (py::isinstance<py::sequence>(assume) &&
                                                  !py::isinstance<py::str>(assume) && py::len(assume) == 0);
        if (auto concrete = noAssumptions ? concreteShapes(shapes) : std::nullopt) {
          std::string message;
          auto out = broadcastConcrete(*concrete, message);
          if (!out) {
            PyErr_SetString(PyExc_ValueError, message.c_str());
            throw py::error_already_set();
          }
          py::tuple t(out->size());
          for (std::size_t i = 0; i < out->size(); ++i) t[i] = integerObject((*out)[i]);
          return t;
        }
        std::vector<Shape> s;
        for (py::handle h : shapes) s.push_back(shapeOf(h));
        BroadcastResult r = broadcast(solver(), contextFor(assume, SizeDomain::ArraySizes), s, parseBroadcastMode(mode));
        PyBroadcast b = fromBroadcast(r, strict);
        // Valid where only limits are open: NumPy's limits are reported apart (strict_limits
        // counts them as checks).
        if (b.status == "valid") return b.shape;
        if (b.status == "error") {
          PyErr_SetString(PyExc_ValueError, b.message.c_str());
          throw py::error_already_set();
        }
        {
          py::dict a;
          a["checks"] = b.checks;
          a["shape"] = b.shape;
          a["status"] = b.status;
          std::string checks = py::str("; ").attr("join")(b.checks).cast<std::string>();
          raise(checkRequiredType,
                "the shapes broadcast only where " + (checks.empty() ? r.message : checks) +
                    " (shapelab.broadcast gives the checks and the shape)",
                a);
          throw py::error_already_set();
        }
      },
      py::arg("mode") = "numpy", py::arg("assume") = py::none(), py::arg("strict_limits") = false,
      "Drop-in for numpy.broadcast_shapes: the broadcast shape as a tuple, or ValueError with NumPy's\n"
      "message. Symbolic dims (strings) are allowed; a result valid only for some sizes raises\n"
      "RuntimeCheckRequired (a ValueError) naming the checks.");

  m.def(
      "gufunc",
      [](const std::string &signature, py::args args, const std::string &mode, py::object assume, bool strict) {
        CommandTime budget;
        Signature sig = parseSignature(signature);
        std::vector<GufuncArgument> a;
        for (py::handle h : args) a.push_back(argumentOf(h));
        GufuncResult r = resolveGufunc(solver(), contextFor(assume, SizeDomain::ArraySizes), sig, a, parseBroadcastMode(mode));
        PyGufunc g;
        bool error = g.set(r.validity, r.message, strict);
        if (!error) {
          g.batch_shape = shapeObject(r.validity.simplified(r.batchShape));
          py::list outs;
          for (auto &o : r.outShapes) outs.append(shapeObject(r.validity.simplified(o)));
          g.out_shapes = outs;
        }
        for (auto &[name, value] : r.coreDims) g.core_dims[py::str(name)] = dimObject(value);
        g.undetermined = stringList(r.undetermined);
        return g;
      },
      py::arg("signature"), py::arg("mode") = "numpy", py::arg("assume") = py::none(), py::arg("strict_limits") = false,
      "Resolves a generalized-ufunc call: gufunc('(m,n),(n,p)->(m,p)', '(b,m,n)', (4, 5)).");

  m.def(
      "einsum",
      [](const std::string &subscripts, py::args shapes, const std::string &mode, py::object assume, bool strict) {
        CommandTime budget;
        std::vector<Shape> s;
        std::vector<std::size_t> ranks;
        for (py::handle h : shapes) {
          s.push_back(shapeOf(h));
          ranks.push_back(s.back().size());
        }
        EinsumSpec spec = parseEinsum(subscripts, ranks);
        EinsumResult r = resolveEinsum(solver(), contextFor(assume, SizeDomain::ArraySizes), spec, s, parseBroadcastMode(mode));
        PyEinsum e;
        if (!e.set(r.validity, r.message, strict)) e.shape = shapeObject(r.validity.simplified(r.shape));
        e.subscripts = spec.text();
        return e;
      },
      py::arg("subscripts"), py::arg("mode") = "numpy", py::arg("assume") = py::none(), py::arg("strict_limits") = false,
      "np.einsum's output shape (without optimize): einsum('ij,jk->ik', ('n', 'm'), ('m', 'p')).");

  m.def(
      "rv",
      [](const std::string &name, py::args params, py::object size, const std::string &mode, py::object assume, bool strict) {
        CommandTime budget;
        if (!findRandomVariable(name)) throw UserError("unknown random variable '" + name + "'; shapelab.rv_catalogue() lists them");
        std::vector<GufuncArgument> p;
        for (py::handle h : params) p.push_back(argumentOf(h));
        std::optional<Shape> s;
        if (!size.is_none()) s = shapeOf(size);
        RandomVariableResult r = inferRandomVariable(solver(), contextFor(assume, SizeDomain::ArraySizes), name, p, s, parseBroadcastMode(mode));
        PyRandomVariable v;
        if (!v.set(r.validity, r.message, strict)) {
          v.shape = shapeObject(r.validity.simplified(r.shape));
          v.batch_shape = shapeObject(r.validity.simplified(r.batchShape));
        }
        v.signature = r.signature;
        v.core_shape = spelling(r.coreShape);
        v.allocatable = r.allocatable();
        v.undetermined = stringList(r.undetermined);
        return v;
      },
      py::arg("name"), py::arg("size") = py::none(), py::arg("mode") = "numpy",
      py::arg("assume") = py::none(), py::arg("strict_limits") = false,
      "Output shape of a random variable draw: rv('multivariate_normal', '(5,n)', '(n,n)', size=(2, 5)).");

  m.def("rv_catalogue", [] {
    py::list out;
    for (const RandomVariableInfo &i : randomVariableCatalogue()) {
      py::dict d;
      d["name"] = i.name;
      d["class"] = i.className;
      d["parameters"] = stringList(i.parameters);
      py::dict defaults; // as in `shapelab rv --list --json`: None for integers' high
      for (std::size_t k = 0; k < i.parameters.size(); ++k)
        if (auto v = i.defaultValue(k))
          defaults[py::str(i.parameters[k])] = *v ? py::object(py::float_(**v)) : py::object(py::none());
      d["defaults"] = defaults;
      d["signature"] = i.signature;
      d["dtype"] = i.dtype;
      d["core_shape"] = spelling(i.coreShape);
      d["note"] = i.note;
      out.append(d);
    }
    return out;
  }, "The random-variable catalogue: one dict per RV (name, class, parameters, defaults, signature, dtype, core_shape, note).");

  bindPrograms(m);
}
